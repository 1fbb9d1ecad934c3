/** Validation and defaulting of the RBAC kinds (pkg/apis/rbac/validation/validation_test.go), and aggregation. */
import type { ClusterRole } from "../../apimachinery/api/rbac/v1.js";
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { aggregatedRules } from "./aggregation.js";
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from "./bootstrap.js";
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from "./strategies.js";

const obj = (o: object) => o as KubeObject;
const fields = (errs: { field: string; type: string }[]) => errs.map((e) => `${e.type} ${e.field}`);

describe("Role / ClusterRole validation", () => {
  it("accepts a well-formed role and names that are valid path segments", () => {
    const role = obj({ metadata: { name: "system:pod-reader", namespace: "ns" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    expect(roleStrategy.validate(role)).toEqual([]);
  });

  it("rejects rules without verbs, groups or resources, and names with / or %", () => {
    const role = obj({ metadata: { name: "a/b", namespace: "ns" }, rules: [{ verbs: [], apiGroups: [], resources: [] }] });
    expect(fields(roleStrategy.validate(role) as never)).toEqual([
      "FieldValueInvalid metadata.name",
      "FieldValueRequired rules[0].verbs",
      "FieldValueRequired rules[0].apiGroups",
      "FieldValueRequired rules[0].resources",
    ]);
  });

  it("non-resource URLs: not in namespaced roles, not mixed with resources", () => {
    const role = obj({ metadata: { name: "r", namespace: "ns" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }] });
    expect(roleStrategy.validate(role).map((e) => e.detail)).toEqual(["namespaced rules cannot apply to non-resource URLs"]);
    const cr = obj({ metadata: { name: "r" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"], resources: ["pods"] }] });
    expect(clusterRoleStrategy.validate(cr).map((e) => e.detail)).toEqual(["rules cannot apply to both regular resources and non-resource URLs"]);
    expect(clusterRoleStrategy.validate(obj({ metadata: { name: "r" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }] }))).toEqual([]);
  });

  it("an aggregationRule needs a selector", () => {
    const cr = obj({ metadata: { name: "agg" }, aggregationRule: { clusterRoleSelectors: [] } });
    expect(fields(clusterRoleStrategy.validate(cr) as never)).toEqual(["FieldValueRequired aggregationRule.clusterRoleSelectors"]);
  });
});

describe("RoleBinding / ClusterRoleBinding", () => {
  it("defaults roleRef and User/Group subject API groups", () => {
    const b = obj({ metadata: { name: "b", namespace: "ns" }, roleRef: { kind: "Role", name: "r" }, subjects: [{ kind: "User", name: "alice" }, { kind: "ServiceAccount", name: "default" }] });
    roleBindingStrategy.defaults(b);
    expect(b).toMatchObject({ roleRef: { apiGroup: "rbac.authorization.k8s.io" }, subjects: [{ apiGroup: "rbac.authorization.k8s.io" }, { kind: "ServiceAccount" }] });
    expect((b as { subjects: { apiGroup?: string }[] }).subjects[1].apiGroup).toBeUndefined();
    expect(roleBindingStrategy.validate(b)).toEqual([]);
  });

  it("validates roleRef kind, subjects and the ServiceAccount namespace of cluster bindings", () => {
    const b = obj({
      metadata: { name: "b" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
      subjects: [{ kind: "ServiceAccount", name: "sa" }, { kind: "Robot", name: "x" }, { kind: "User", name: "" , apiGroup: "rbac.authorization.k8s.io" }],
    });
    expect(fields(clusterRoleBindingStrategy.validate(b) as never)).toEqual([
      "FieldValueNotSupported roleRef.kind",
      "FieldValueRequired subjects[0].namespace",
      "FieldValueNotSupported subjects[1].kind",
      "FieldValueRequired subjects[2].name",
    ]);
  });

  it("roleRef is immutable", () => {
    const old = obj({ metadata: { name: "b", namespace: "ns", resourceVersion: "1" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" } });
    const next = obj({ metadata: { name: "b", namespace: "ns", resourceVersion: "1" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "other" } });
    expect(roleBindingStrategy.validateUpdate(next, old).map((e) => e.detail)).toEqual(["cannot change roleRef"]);
  });
});

describe("aggregation", () => {
  it("admin/edit/view aggregate the system:aggregate-to-* roles transitively through labels", () => {
    const roles = bootstrapClusterRoles();
    const byName = new Map(roles.map((r) => [r.metadata!.name!, r]));
    // One pass computes view; edit then includes view (labelled aggregate-to-edit) once view has rules.
    const view = { ...byName.get("view")!, rules: aggregatedRules(byName.get("view")!, roles) };
    // ... and metrics-server's system:aggregated-metrics-reader (labelled for admin, edit and view).
    expect(view.rules).toEqual([...byName.get("system:aggregate-to-view")!.rules!, ...byName.get("system:aggregated-metrics-reader")!.rules!]);
    const withView = roles.map((r) => (r.metadata?.name === "view" ? view : r));
    const edit = aggregatedRules(byName.get("edit")!, withView)!;
    expect(edit.length).toBe(byName.get("system:aggregate-to-edit")!.rules!.length + view.rules!.length);
    expect(aggregatedRules(byName.get("cluster-admin")!, roles)).toBeUndefined();
  });

  it("orders matches by name, skips itself and drops duplicate rules", () => {
    const rule = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };
    const roles: ClusterRole[] = [
      { metadata: { name: "z", labels: { agg: "yes" } }, rules: [rule, { verbs: ["list"], apiGroups: [""], resources: ["pods"] }] },
      { metadata: { name: "a", labels: { agg: "yes" } }, rules: [rule] },
      { metadata: { name: "self", labels: { agg: "yes" } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: "yes" } }] }, rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }] },
    ];
    expect(aggregatedRules(roles[2], roles)).toEqual([rule, { verbs: ["list"], apiGroups: [""], resources: ["pods"] }]);
  });

  it("bootstrap bindings: masters are cluster-admins, everyone authenticated gets discovery and basic-user", () => {
    const b = Object.fromEntries(bootstrapClusterRoleBindings().map((x) => [x.metadata!.name!, x.subjects!.map((s) => s.name)]));
    expect(b["cluster-admin"]).toEqual(["system:masters"]);
    expect(b["system:discovery"]).toEqual(["system:authenticated"]);
    expect(b["system:basic-user"]).toEqual(["system:authenticated"]);
    expect(b["system:public-info-viewer"]).toEqual(["system:authenticated", "system:unauthenticated"]);
  });
});
