// Restated from k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules_test.go:
// each rule with the requests it must and must not match.
import { describe, expect, it } from "vitest";
import type { AdmissionAttributes, AdmissionOperation } from "../interfaces.js";
import { isExemptAdmissionConfigurationResource, ruleMatches } from "./rules.js";
import type { WebhookRule } from "./source.js";

function a(group: string, version: string, resource: string, subresource: string, operation: AdmissionOperation, namespace = "ns"): AdmissionAttributes {
  return {
    operation,
    kind: { group, version, kind: "K" },
    resource: { group, version, resource },
    subresource,
    namespace,
    name: "name",
    object: undefined,
    oldObject: undefined,
    options: undefined,
    dryRun: false,
    userInfo: { username: "u", groups: [] },
    warnings: [],
    auditAnnotations: new Map(),
  };
}

const any: WebhookRule = { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], scope: "*" };
const rule = (r: Partial<WebhookRule>): WebhookRule => ({ ...any, ...r });

const table: { name: string; rule: WebhookRule; match: AdmissionAttributes[]; noMatch: AdmissionAttributes[] }[] = [
  { name: "group: exact", rule: rule({ apiGroups: ["g"] }), match: [a("g", "v", "r", "", "CREATE")], noMatch: [a("g2", "v", "r", "", "CREATE")] },
  { name: "group: several", rule: rule({ apiGroups: ["g1", "g2"] }), match: [a("g1", "v", "r", "", "CREATE"), a("g2", "v2", "r3", "", "CREATE")], noMatch: [a("g3", "v", "r", "", "CREATE"), a("g4", "v", "r", "", "CREATE")] },
  { name: "version: exact", rule: rule({ apiVersions: ["v"] }), match: [a("g", "v", "r", "", "CREATE")], noMatch: [a("g", "v2", "r", "", "CREATE")] },
  { name: "version: several", rule: rule({ apiVersions: ["v1", "v2"] }), match: [a("g1", "v1", "r", "", "CREATE"), a("g2", "v2", "r", "", "CREATE")], noMatch: [a("g1", "v3", "r", "", "CREATE"), a("g2", "v4", "r", "", "CREATE")] },
  { name: "operation: all", rule: rule({}), match: (["CREATE", "UPDATE", "DELETE", "CONNECT"] as const).map((op) => a("g", "v", "r", "", op)), noMatch: [] },
  { name: "operation: create", rule: rule({ operations: ["CREATE"] }), match: [a("g", "v", "r", "", "CREATE")], noMatch: (["UPDATE", "DELETE", "CONNECT"] as const).map((op) => a("g", "v", "r", "", op)) },
  { name: "operation: update", rule: rule({ operations: ["UPDATE"] }), match: [a("g", "v", "r", "", "UPDATE")], noMatch: (["CREATE", "DELETE", "CONNECT"] as const).map((op) => a("g", "v", "r", "", op)) },
  { name: "operation: delete", rule: rule({ operations: ["DELETE"] }), match: [a("g", "v", "r", "", "DELETE")], noMatch: (["CREATE", "UPDATE", "CONNECT"] as const).map((op) => a("g", "v", "r", "", op)) },
  { name: "operation: connect", rule: rule({ operations: ["CONNECT"] }), match: [a("g", "v", "r", "", "CONNECT")], noMatch: (["CREATE", "UPDATE", "DELETE"] as const).map((op) => a("g", "v", "r", "", op)) },
  { name: "operation: several", rule: rule({ operations: ["UPDATE", "DELETE"] }), match: [a("g", "v", "r", "", "UPDATE"), a("g", "v", "r", "", "DELETE")], noMatch: [a("g", "v", "r", "", "CREATE"), a("g", "v", "r", "", "CONNECT")] },
  {
    name: "resource: no subresources",
    rule: rule({ resources: ["*"] }),
    match: [a("g", "v", "r", "", "CREATE"), a("2", "v", "r2", "", "CREATE")],
    noMatch: [a("g", "v", "r", "exec", "CREATE"), a("2", "v", "r2", "proxy", "CREATE")],
  },
  {
    name: "resource: r and its subresources",
    rule: rule({ resources: ["r/*"] }),
    match: [a("g", "v", "r", "", "CREATE"), a("g", "v", "r", "exec", "CREATE")],
    noMatch: [a("2", "v", "r2", "", "CREATE"), a("2", "v", "r2", "proxy", "CREATE")],
  },
  {
    name: "resource: r and its subresources, or r2",
    rule: rule({ resources: ["r/*", "r2"] }),
    match: [a("g", "v", "r", "", "CREATE"), a("g", "v", "r", "exec", "CREATE"), a("2", "v", "r2", "", "CREATE")],
    noMatch: [a("2", "v", "r2", "proxy", "CREATE")],
  },
  {
    name: "resource: proxy or exec of anything",
    rule: rule({ resources: ["*/proxy", "*/exec"] }),
    match: [a("g", "v", "r", "exec", "CREATE"), a("2", "v", "r2", "proxy", "CREATE"), a("2", "v", "r3", "proxy", "CREATE")],
    noMatch: [a("g", "v", "r", "", "CREATE"), a("2", "v", "r2", "", "CREATE"), a("2", "v", "r4", "scale", "CREATE")],
  },
  {
    name: "scope: cluster",
    rule: rule({ scope: "Cluster" }),
    match: [a("g", "v", "r", "", "CREATE", ""), a("", "v1", "namespaces", "", "CREATE", "ns"), a("", "v1", "namespaces", "finalize", "CREATE", "ns")],
    noMatch: [a("g", "v", "r", "", "CREATE", "ns"), a("", "v1", "pods", "", "CREATE", "ns")],
  },
  {
    name: "scope: namespaced",
    rule: rule({ scope: "Namespaced" }),
    match: [a("g", "v", "r", "", "CREATE", "ns"), a("", "v1", "pods", "", "CREATE", "ns")],
    noMatch: [a("g", "v", "r", "", "CREATE", ""), a("", "v1", "namespaces", "", "CREATE", "ns"), a("", "v1", "namespaces", "finalize", "CREATE", "ns")],
  },
  {
    name: "scope: all",
    rule: rule({ scope: "*" }),
    match: [a("g", "v", "r", "", "CREATE", ""), a("g", "v", "r", "", "CREATE", "ns"), a("", "v1", "namespaces", "", "CREATE", "ns")],
    noMatch: [],
  },
  { name: "scope: unknown", rule: rule({ scope: "bogus" }), match: [], noMatch: [a("g", "v", "r", "", "CREATE", ""), a("g", "v", "r", "", "CREATE", "ns")] },
];

describe("webhook rules", () => {
  for (const t of table) {
    it(t.name, () => {
      for (const m of t.match) expect(ruleMatches(t.rule, m), JSON.stringify(m.resource) + m.subresource + m.operation).toBe(true);
      for (const m of t.noMatch) expect(ruleMatches(t.rule, m), JSON.stringify(m.resource) + m.subresource + m.operation).toBe(false);
    });
  }

  it("the admission configuration kinds are exempt", () => {
    for (const kind of ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"]) {
      const x = a("admissionregistration.k8s.io", "v1", "x", "", "CREATE", "");
      expect(isExemptAdmissionConfigurationResource({ ...x, kind: { ...x.kind, kind } })).toBe(true);
    }
    const pod = a("", "v1", "pods", "", "CREATE");
    expect(isExemptAdmissionConfigurationResource({ ...pod, kind: { group: "", version: "v1", kind: "Pod" } })).toBe(false);
  });
});
