/**
 * PersistentVolume phase transitions need the time: status.lastPhaseTransitionTime is set when a
 * PV is created (phase Pending) and whenever a write changes its phase, as upstream's PV
 * strategy does (PersistentVolumeLastPhaseTransitionTime, GA in 1.31).
 */
import type { Clock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ResourceHooks } from "../rest/context.js";
import { formatTime } from "../rest/metadata.js";

function statusOf(obj: KubeObject): Record<string, unknown> | undefined {
  const s = obj.status;
  return typeof s === "object" && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : undefined;
}

export function persistentVolumeHooks(clock: Clock): ResourceHooks {
  return {
    beforeCreate(obj) {
      const st = statusOf(obj);
      if (st) st.lastPhaseTransitionTime = formatTime(clock.now());
    },
    beforeUpdate(obj, old) {
      const st = statusOf(obj);
      if (st && st.phase !== statusOf(old)?.phase) st.lastPhaseTransitionTime = formatTime(clock.now());
    },
  };
}
