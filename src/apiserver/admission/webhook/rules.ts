/**
 * Whether a webhook rule matches a request (k8s.io/apiserver/pkg/admission/plugin/webhook/
 * predicates/rules): scope, operation, API group, version and resource with subresource
 * (`*`, `pods`, `pods/status`, `pods/*`, and `*` before the slash too), each side exact or `*`.
 * Requests on the admission configuration kinds themselves never go to webhooks.
 */
import type { GroupVersionResource } from "../../../apimachinery/gvk.js";
import type { AdmissionAttributes } from "../interfaces.js";
import type { WebhookRule } from "./source.js";

const exactOrWildcard = (items: readonly string[], requested: string) => items.some((i) => i === "*" || i === requested);

const isNamespacesResource = (r: GroupVersionResource) => r.group === "" && r.version === "v1" && r.resource === "namespaces";

/** Rule matching of `a` against `rule`, with `resource` in place of the request's (for equivalents). */
export function ruleMatches(rule: WebhookRule, a: AdmissionAttributes, resource: GroupVersionResource = a.resource): boolean {
  switch (rule.scope) {
    case "":
    case "*":
      break;
    case "Namespaced":
      if (isNamespacesResource(resource) || a.namespace === "") return false;
      break;
    case "Cluster":
      if (!(isNamespacesResource(resource) || a.namespace === "")) return false;
      break;
    default:
      return false;
  }
  if (!rule.operations.some((op) => op === "*" || op === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group) || !exactOrWildcard(rule.apiVersions, resource.version)) return false;
  return rule.resources.some((rs) => {
    const slash = rs.indexOf("/");
    const res = slash < 0 ? rs : rs.slice(0, slash);
    const sub = slash < 0 ? "" : rs.slice(slash + 1);
    return (res === "*" || res === resource.resource) && (sub === "*" || sub === a.subresource);
  });
}

const exemptKinds = new Set([
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
]);

/** IsExemptAdmissionConfigurationResource. */
export function isExemptAdmissionConfigurationResource(a: AdmissionAttributes): boolean {
  return a.kind.group === "admissionregistration.k8s.io" && exemptKinds.has(a.kind.kind);
}
