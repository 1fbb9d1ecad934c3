/**
 * DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): a pod that does not
 * tolerate the node.kubernetes.io/not-ready and node.kubernetes.io/unreachable NoExecute taints
 * gets tolerations for them of 300 s (--default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds), so that it is evicted five minutes after its node
 * fails. A toleration with an empty key or an empty effect counts as tolerating.
 */
import type { AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { isResource } from "../attributes.js";

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export const notReadyTaintKey = "node.kubernetes.io/not-ready";
export const unreachableTaintKey = "node.kubernetes.io/unreachable";

export function defaultTolerationSecondsPlugin(seconds: { notReady?: number; unreachable?: number } = {}): AnyAdmissionPlugin {
  const defaults: [string, number][] = [
    [notReadyTaintKey, seconds.notReady ?? 300],
    [unreachableTaintKey, seconds.unreachable ?? 300],
  ];
  return {
    name: "DefaultTolerationSeconds",
    handles: (op) => op === "CREATE" || op === "UPDATE",
    handlesResource: (r, sub) => r.group === "" && r.resource === "pods" && sub === "",
    admit(a) {
      if (!isResource(a, "", "pods") || a.subresource !== "" || !a.object) return Promise.resolve();
      const spec = ((a.object as { spec?: { tolerations?: Toleration[] } }).spec ??= {});
      const existing = spec.tolerations ?? [];
      const add: Toleration[] = [];
      for (const [key, s] of defaults) {
        const tolerated = existing.some((t) => (t.key === key || !t.key) && (t.effect === "NoExecute" || !t.effect));
        if (!tolerated) add.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: s });
      }
      if (add.length) spec.tolerations = [...existing, ...add];
      return Promise.resolve();
    },
  };
}

export const defaultTolerationSeconds: AdmissionPluginRegistration = { name: "DefaultTolerationSeconds", create: () => defaultTolerationSecondsPlugin() };
