/**
 * How the server's own loops write status: through the status subresource, starting from the
 * live object (a compare-and-swap retried by the store), with a vanished object or a lost race
 * left for the loop's next pass instead of failing it.
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { fieldsOf, rec, records, type Obj } from "../registry/shape.js";
import { defaultWriteContext } from "../rest/context.js";
import type { ResourceStore } from "../rest/store.js";

/** Replaces `status` of `name` with what `change` makes of the live status. */
export async function writeStatus(
  store: ResourceStore,
  obj: KubeObject,
  change: (status: Obj) => Obj,
  fieldManager: string,
  log?: (msg: string, err?: unknown) => void,
): Promise<void> {
  const name = obj.metadata?.name ?? "";
  try {
    await store.update(
      obj.metadata?.namespace,
      name,
      (live) => {
        const base = structuredClone(live ?? obj) as KubeObject;
        return { ...base, status: change(structuredClone(rec(fieldsOf(base).status) ?? {})) } as KubeObject;
      },
      defaultWriteContext({ fieldManager }),
      { subresource: "status" },
    );
  } catch (err) {
    if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
    log?.(`updating the status of ${store.strategy.names.kind} ${name} failed`, err);
  }
}

/**
 * The conditions of `status` with `cond` in place of the one of its type; the old
 * lastTransitionTime is kept when the status value did not change.
 */
export function withCondition(status: Obj, cond: Obj): Obj {
  const conds = records(status.conditions);
  const cur = conds.find((c) => c.type === cond.type);
  const next = cur && cur.status === cond.status && cur.lastTransitionTime !== undefined ? { ...cond, lastTransitionTime: cur.lastTransitionTime } : cond;
  return { ...status, conditions: [...conds.filter((c) => c.type !== cond.type), next] };
}

/** Whether `status` already has a condition like `cond` (type, status, reason and message). */
export function hasCondition(status: Obj | undefined, cond: Obj): boolean {
  const cur = records(status?.conditions).find((c) => c.type === cond.type);
  return cur !== undefined && cur.status === cond.status && cur.reason === cond.reason && cur.message === cond.message;
}
