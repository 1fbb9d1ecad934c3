/**
 * Pod-specific server behaviour: graceful deletion (a pod bound to a node gets a
 * deletionTimestamp in the future and stays until the kubelet removes it; an unscheduled or
 * finished pod is deleted at once) and the admission defaults every pod gets
 * (ServiceAccount: serviceAccountName "default"; DefaultTolerationSeconds: not-ready and
 * unreachable NoExecute tolerations of 300 s).
 */
import type { KubeObject } from "../../apimachinery/types.js";
import type { ResourceHooks } from "../rest/context.js";
import type { DeleteOptions } from "../rest/options.js";

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
  tolerationSeconds?: number;
}
interface PodShape {
  spec?: { nodeName?: string; terminationGracePeriodSeconds?: number; serviceAccountName?: string; serviceAccount?: string; tolerations?: Toleration[] };
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

const defaultTolerations: Toleration[] = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
];

export function admitPod(obj: KubeObject): void {
  const spec = ((obj as PodShape).spec ??= {});
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || "default";
  if (!spec.serviceAccount) spec.serviceAccount = spec.serviceAccountName;
  const tolerations = (spec.tolerations ??= []);
  for (const d of defaultTolerations) {
    const covered = tolerations.some((t) => (t.key === d.key || (t.key === undefined && t.operator === "Exists")) && (t.effect === undefined || t.effect === "" || t.effect === d.effect));
    if (!covered) tolerations.push({ ...d });
  }
}

export function podHooks(): ResourceHooks {
  return {
    beforeCreate(obj) {
      admitPod(obj);
    },
    gracePeriodSeconds: podGracePeriod,
  };
}
