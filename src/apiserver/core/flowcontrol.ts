/**
 * API Priority and Fairness configuration upkeep, as kube-apiserver's APF bootstrap ensurer and
 * config controller do it, without the request classification itself (not enforced here):
 * - at start, the mandatory and suggested FlowSchemas and PriorityLevelConfigurations are created
 *   when missing, and those annotated apf.kubernetes.io/autoupdate-spec=true get the current
 *   bootstrap spec;
 * - every FlowSchema carries a `Dangling` condition saying whether the PriorityLevelConfiguration
 *   it names exists (kubectl prints it as MISSINGPL), kept current as either kind changes.
 */
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { autoUpdateAnnotation, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from "../registry/flowcontrolbootstrap.js";
import { fieldsOf, rec, text, type Obj } from "../registry/shape.js";
import { hasCondition, withCondition, writeStatus } from "./statuswrite.js";
import { defaultWriteContext } from "../rest/context.js";
import { formatTime } from "../rest/metadata.js";
import type { ResourceStore } from "../rest/store.js";

const ensurerContext = () => defaultWriteContext({ fieldManager: "api-priority-and-fairness-config-producer-v1" });
const consumerFieldManager = "api-priority-and-fairness-config-consumer-v1";

export interface FlowControlDeps {
  flowSchemas: () => ResourceStore | undefined;
  priorityLevels: () => ResourceStore | undefined;
  clock: Clock;
  log?: (msg: string, err?: unknown) => void;
}

function ignoreRace(err: unknown): void {
  if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
}

/** Creates the missing bootstrap objects and refreshes the auto-updated ones. */
export async function ensureFlowControlBootstrap(deps: FlowControlDeps): Promise<void> {
  const sets: [ResourceStore | undefined, KubeObject[]][] = [
    [deps.priorityLevels(), [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()]],
    [deps.flowSchemas(), [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]],
  ];
  for (const [store, objects] of sets) {
    if (!store) continue;
    for (const want of objects) {
      const name = want.metadata?.name ?? "";
      const cur = await store.storage.get(store.key(undefined, name));
      try {
        if (!cur) {
          await store.create(undefined, want, ensurerContext());
          continue;
        }
        if (cur.object.metadata?.annotations?.[autoUpdateAnnotation] !== "true") continue;
        // Compare defaulted specs: what the stored object would be with the bootstrap spec.
        const candidate = structuredClone(want);
        store.strategy.defaults(candidate);
        if (semanticEqual(fieldsOf(cur.object).spec, fieldsOf(candidate).spec)) continue;
        await store.update(undefined, name, (live) => ({ ...structuredClone(live ?? cur.object), spec: structuredClone(fieldsOf(want).spec) }) as KubeObject, ensurerContext());
      } catch (err) {
        ignoreRace(err);
      }
    }
  }
}

/** The Dangling condition a FlowSchema should carry, given whether its priority level exists. */
export function danglingCondition(plName: string, exists: boolean, now: string): Obj {
  return exists
    ? { type: "Dangling", status: "False", lastTransitionTime: now, reason: "Found", message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} and it exists` }
    : {
        type: "Dangling",
        status: "True",
        lastTransitionTime: now,
        reason: "NotFound",
        message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} but there is no such object`,
      };
}

/** Brings every FlowSchema's Dangling condition up to date. */
export async function reconcileDanglingConditions(deps: FlowControlDeps): Promise<void> {
  const fsStore = deps.flowSchemas();
  const plStore = deps.priorityLevels();
  if (!fsStore || !plStore) return;
  const levels = new Set((await plStore.storage.list(plStore.prefix(undefined))).items.map((i) => i.object.metadata?.name ?? ""));
  const now = formatTime(deps.clock.now());
  for (const item of (await fsStore.storage.list(fsStore.prefix(undefined))).items) {
    const fs = item.object;
    const plName = text(rec(rec(fieldsOf(fs).spec)?.priorityLevelConfiguration)?.name);
    const want = danglingCondition(plName, levels.has(plName), now);
    if (hasCondition(rec(fieldsOf(fs).status), want)) continue;
    await writeStatus(fsStore, fs, (status) => withCondition(status, want), consumerFieldManager, deps.log);
  }
}

