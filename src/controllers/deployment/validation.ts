/**
 * The check the controller makes before touching anything: a RollingUpdate Deployment's maxSurge
 * and maxUnavailable must resolve against spec.replicas (API validation should guarantee it; an
 * object that slipped past — written by an old server, or a fake client — must not be acted on
 * with guessed numbers).
 */
import type { Deployment } from "../../apimachinery/api/apps/v1.js";
import { keyOf } from "./context.js";
import { InvalidStrategyError } from "./errors.js";
import { replicasOf } from "./replicasets.js";
import { isRollingUpdate, resolveFenceposts } from "./rollout.js";

/** Throws InvalidStrategyError naming the first field that cannot be resolved. */
export function validateRollingUpdate(d: Deployment): void {
  if (!isRollingUpdate(d)) return;
  const ru = d.spec?.strategy?.rollingUpdate;
  const replicas = replicasOf(d);
  const fields: Array<[string, () => void]> = [
    ["spec.strategy.rollingUpdate.maxSurge", () => resolveFenceposts(ru?.maxSurge, 1, replicas)],
    ["spec.strategy.rollingUpdate.maxUnavailable", () => resolveFenceposts(0, ru?.maxUnavailable, replicas)],
  ];
  for (const [field, check] of fields) {
    try {
      check();
    } catch (err) {
      throw new InvalidStrategyError(keyOf(d), field, err instanceof Error ? err.message : String(err));
    }
  }
}
