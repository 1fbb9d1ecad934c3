/**
 * Pod-specific server behaviour: graceful deletion (a pod bound to a node gets a
 * deletionTimestamp in the future and stays until the kubelet removes it; an unscheduled or
 * finished pod is deleted at once). What every pod gets at admission (service account,
 * tolerations, priority) is the admission chain's (admission/plugins/).
 */
import type { KubeObject } from "../../apimachinery/types.js";
import type { ResourceHooks } from "../rest/context.js";
import type { DeleteOptions } from "../rest/options.js";

interface PodShape {
  spec?: { nodeName?: string; terminationGracePeriodSeconds?: number };
  status?: { phase?: string };
}

export function podGracePeriod(obj: KubeObject, options: DeleteOptions): number {
  const pod = obj as PodShape;
  let grace = options.gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
  if (!pod.spec?.nodeName) grace = 0;
  const phase = pod.status?.phase;
  if (phase === "Failed" || phase === "Succeeded") grace = 0;
  return Math.max(0, grace);
}

export function podHooks(): ResourceHooks {
  return {
    gracePeriodSeconds: podGracePeriod,
  };
}
