/**
 * The RBAC authorizer and rule matching, restating upstream's
 * plugin/pkg/auth/authorizer/rbac/rbac_test.go (TestAuthorizer, TestRuleMatches) and the
 * resolver's applies-to rules (pkg/registry/rbac/validation/rule_test.go).
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from "../../apimachinery/api/rbac/v1.js";
import { describe, expect, it } from "vitest";
import type { Attributes } from "./attributes.js";
import { RBACAuthorizer } from "./authorizer.js";
import { appliesToUser, RuleResolver, StaticRbacObjects } from "./resolver.js";
import { ruleAllows } from "./rules.js";

const split = (s: string) => s.split(",");
const newRule = (verbs: string, apiGroups: string, resources: string, urls: string): PolicyRule => ({
  verbs: split(verbs),
  apiGroups: split(apiGroups),
  resources: split(resources),
  nonResourceURLs: split(urls),
});
const clusterRole = (name: string, ...rules: PolicyRule[]): ClusterRole => ({ metadata: { name }, rules });
const role = (name: string, namespace: string, ...rules: PolicyRule[]): Role => ({ metadata: { name, namespace }, rules });
const subjects = (list: string[]): Subject[] =>
  list.map((s) => {
    const [kind, ...rest] = s.split(":");
    const name = rest.join(":");
    return kind === "ServiceAccount" ? { kind, name, apiGroup: "" } : { kind, name, apiGroup: "rbac.authorization.k8s.io" };
  });
const crb = (roleName: string, ...subs: string[]): ClusterRoleBinding => ({
  metadata: { name: `crb-${roleName}` },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
  subjects: subjects(subs),
});
const rb = (namespace: string, roleName: string, kind: "Role" | "ClusterRole", ...subs: string[]): RoleBinding => ({
  metadata: { name: `rb-${roleName}`, namespace },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind, name: roleName },
  subjects: subjects(subs),
});

function res(user: string, groups: string, verb: string, resource: string, subresource: string, namespace: string, apiGroup: string): Attributes {
  return {
    user: { username: user, groups: groups ? split(groups) : [] },
    verb,
    resource,
    subresource,
    namespace,
    apiGroup,
    resourceRequest: true,
    path: "",
    apiVersion: "",
    name: "",
  };
}
function nonRes(user: { name?: string; groups?: string[] }, verb: string, path: string): Attributes {
  return { user: { username: user.name ?? "", groups: user.groups ?? [] }, verb, path, resourceRequest: false, apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "" };
}

describe("RBACAuthorizer (rbac_test.go TestAuthorizer)", () => {
  const cases: {
    roles?: Role[];
    roleBindings?: RoleBinding[];
    clusterRoles?: ClusterRole[];
    clusterRoleBindings?: ClusterRoleBinding[];
    pass: Attributes[];
    fail: Attributes[];
  }[] = [
    {
      clusterRoles: [clusterRole("admin", newRule("*", "*", "*", "*"))],
      roleBindings: [rb("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")],
      pass: [
        res("admin", "", "get", "Pods", "", "ns1", ""),
        res("admin", "", "watch", "Pods", "", "ns1", ""),
        res("admin", "group1", "watch", "Foobar", "", "ns1", ""),
        res("joe", "admins", "watch", "Foobar", "", "ns1", ""),
        res("joe", "group1,admins", "watch", "Foobar", "", "ns1", ""),
      ],
      fail: [
        res("admin", "", "GET", "Pods", "", "ns2", ""),
        res("admin", "", "GET", "Nodes", "", "", ""),
        res("admin", "admins", "GET", "Pods", "", "ns2", ""),
        res("admin", "admins", "GET", "Nodes", "", "", ""),
      ],
    },
    {
      clusterRoles: [
        clusterRole("non-resource-url-getter", newRule("get", "", "", "/apis")),
        clusterRole("non-resource-url", newRule("*", "", "", "/apis")),
        clusterRole("non-resource-url-prefix", newRule("get", "", "", "/apis/*")),
      ],
      clusterRoleBindings: [
        crb("non-resource-url-getter", "User:foo", "Group:bar"),
        crb("non-resource-url", "User:admin", "Group:admin"),
        crb("non-resource-url-prefix", "User:prefixed", "Group:prefixed"),
      ],
      pass: [
        nonRes({ name: "foo" }, "get", "/apis"),
        nonRes({ groups: ["bar"] }, "get", "/apis"),
        nonRes({ name: "admin" }, "get", "/apis"),
        nonRes({ groups: ["admin"] }, "get", "/apis"),
        nonRes({ name: "admin" }, "watch", "/apis"),
        nonRes({ groups: ["admin"] }, "watch", "/apis"),
        nonRes({ name: "prefixed" }, "get", "/apis/v1"),
        nonRes({ groups: ["prefixed"] }, "get", "/apis/v1"),
        nonRes({ name: "prefixed" }, "get", "/apis/v1/foobar"),
        nonRes({ groups: ["prefixed"] }, "get", "/apis/v1/foorbar"),
      ],
      fail: [
        nonRes({ name: "foo" }, "watch", "/apis"),
        nonRes({ groups: ["bar"] }, "watch", "/apis"),
        nonRes({ name: "foo" }, "get", "/api/v1"),
        nonRes({ groups: ["bar"] }, "get", "/api/v1"),
        nonRes({ name: "admin" }, "get", "/api/v1"),
        nonRes({ groups: ["admin"] }, "get", "/api/v1"),
        nonRes({ name: "prefixed" }, "get", "/api/v1"),
        nonRes({ groups: ["prefixed"] }, "get", "/api/v1"),
      ],
    },
    {
      clusterRoles: [clusterRole("admin", newRule("*", "*", "pods", "*"))],
      roleBindings: [rb("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")],
      pass: [res("admin", "", "get", "pods", "", "ns1", "")],
      fail: [res("admin", "", "get", "pods", "status", "ns1", "")],
    },
    {
      clusterRoles: [clusterRole("admin", newRule("*", "*", "pods/status", "*"))],
      roleBindings: [rb("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")],
      pass: [res("admin", "", "get", "pods", "status", "ns1", "")],
      fail: [res("admin", "", "get", "pods", "", "ns1", "")],
    },
    {
      // A namespaced Role only applies in its namespace, through a RoleBinding there.
      roles: [role("pod-reader", "ns1", newRule("get,list", "", "pods", ""))],
      roleBindings: [rb("ns1", "pod-reader", "Role", "User:alice"), rb("ns2", "pod-reader", "Role", "User:alice")],
      pass: [res("alice", "", "list", "pods", "", "ns1", "")],
      fail: [res("alice", "", "list", "pods", "", "ns2", ""), res("alice", "", "delete", "pods", "", "ns1", ""), res("alice", "", "list", "deployments", "", "ns1", "apps")],
    },
  ];
  cases.forEach((tc, i) => {
    const a = new RBACAuthorizer(new RuleResolver(new StaticRbacObjects(tc)));
    it(`case ${i}`, () => {
      for (const attr of tc.pass) expect(a.authorize(attr).allowed, `should pass ${JSON.stringify(attr)}`).toBe(true);
      for (const attr of tc.fail) expect(a.authorize(attr).allowed, `should fail ${JSON.stringify(attr)}`).toBe(false);
    });
  });

  it("reasons: allowed-by describes the binding; a missing role is the denial reason", () => {
    const a = new RBACAuthorizer(
      new RuleResolver(
        new StaticRbacObjects({
          clusterRoles: [clusterRole("reader", newRule("get", "", "pods", ""))],
          clusterRoleBindings: [crb("reader", "User:alice"), crb("missing", "User:bob")],
          roleBindings: [rb("ns1", "reader", "ClusterRole", "ServiceAccount:sa1")],
        }),
      ),
    );
    expect(a.authorize(res("alice", "", "get", "pods", "", "ns1", "")).reason).toBe('RBAC: allowed by ClusterRoleBinding "crb-reader" of ClusterRole "reader" to User "alice"');
    expect(a.authorize(res("system:serviceaccount:ns1:sa1", "", "get", "pods", "", "ns1", "")).reason).toBe(
      'RBAC: allowed by RoleBinding "rb-reader/ns1" of ClusterRole "reader" to ServiceAccount "sa1/ns1"',
    );
    expect(a.authorize(res("bob", "", "get", "pods", "", "ns1", ""))).toEqual({ allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found' });
    expect(a.authorize(res("carol", "", "get", "pods", "", "ns1", ""))).toEqual({ allowed: false, reason: "" });
  });
});

describe("ruleAllows (rbac_test.go TestRuleMatches)", () => {
  const rr = (verb: string, group: string, resource: string, subresource = ""): Attributes => ({ ...res("u", "", verb, resource, subresource, "", group) });
  const nr = (verb: string, url: string) => nonRes({ name: "u" }, verb, url);
  const cases: { name: string; rule: PolicyRule; expect: [Attributes, boolean][] }[] = [
    {
      name: "star verb, exact match other",
      rule: { verbs: ["*"], apiGroups: ["group1"], resources: ["resource1"] },
      expect: [
        [rr("verb1", "group1", "resource1"), true],
        [rr("verb1", "group2", "resource1"), false],
        [rr("verb1", "group1", "resource2"), false],
        [rr("verb2", "group1", "resource1"), true],
      ],
    },
    {
      name: "star group, exact match other",
      rule: { verbs: ["verb1"], apiGroups: ["*"], resources: ["resource1"] },
      expect: [
        [rr("verb1", "group1", "resource1"), true],
        [rr("verb1", "group2", "resource1"), true],
        [rr("verb1", "group1", "resource2"), false],
        [rr("verb2", "group1", "resource1"), false],
      ],
    },
    {
      name: "star resource, exact match other",
      rule: { verbs: ["verb1"], apiGroups: ["group1"], resources: ["*"] },
      expect: [
        [rr("verb1", "group1", "resource1"), true],
        [rr("verb1", "group2", "resource1"), false],
        [rr("verb1", "group1", "resource2"), true],
        [rr("verb2", "group1", "resource1"), false],
      ],
    },
    {
      name: "tuple expansion",
      rule: { verbs: ["verb1", "verb2"], apiGroups: ["group1", "group2"], resources: ["resource1", "resource2"] },
      expect: [
        [rr("verb1", "group1", "resource1"), true],
        [rr("verb2", "group2", "resource2"), true],
        [rr("verb1", "group2", "resource1"), true],
      ],
    },
    {
      name: "subresource expansion",
      rule: { verbs: ["*"], apiGroups: ["*"], resources: ["resource1/subresource1"] },
      expect: [
        [rr("verb1", "group1", "resource1", "subresource1"), true],
        [rr("verb1", "group2", "resource1", "subresource2"), false],
        [rr("verb1", "group1", "resource2", "subresource1"), false],
        [rr("verb2", "group1", "resource1", "subresource1"), true],
      ],
    },
    {
      name: "star subresource of any resource",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["*/scale"] },
      expect: [
        [rr("get", "", "deployments", "scale"), true],
        [rr("get", "", "deployments", "status"), false],
        [rr("get", "", "deployments"), false],
      ],
    },
    {
      name: "star nonresource, exact match other",
      rule: { verbs: ["verb1"], nonResourceURLs: ["*"] },
      expect: [
        [nr("verb1", "/foo"), true],
        [nr("verb1", "/foo/bar/one"), true],
        [nr("verb2", "/foo"), false],
      ],
    },
    {
      name: "star nonresource subpath",
      rule: { verbs: ["verb1"], nonResourceURLs: ["/foo/*"] },
      expect: [
        [nr("verb1", "/foo"), false],
        [nr("verb1", "/foo/bar"), true],
        [nr("verb1", "/foo/baz/one"), true],
        [nr("verb1", "/notfoo"), false],
        [nr("verb2", "/foo/bar"), false],
      ],
    },
    {
      name: "star verb, exact nonresource",
      rule: { verbs: ["*"], nonResourceURLs: ["/foo", "/foo/bar/one"] },
      expect: [
        [nr("verb1", "/foo"), true],
        [nr("verb1", "/foo/bar"), false],
        [nr("verb2", "/foo/bar/one"), true],
      ],
    },
    {
      name: "resourceNames",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      expect: [
        [{ ...rr("get", "", "configmaps"), name: "a" }, true],
        [{ ...rr("get", "", "configmaps"), name: "b" }, false],
        [rr("get", "", "configmaps"), false],
      ],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      for (const [attrs, want] of tc.expect) expect(ruleAllows(attrs, tc.rule), JSON.stringify(attrs)).toBe(want);
    });
  }
});

describe("appliesToUser (rule_test.go TestAppliesTo)", () => {
  const cases: { subject: Subject; user: { username: string; groups?: string[] }; namespace: string; applies: boolean }[] = [
    { subject: { kind: "User", name: "foobar" }, user: { username: "foobar" }, namespace: "", applies: true },
    { subject: { kind: "User", name: "foobar" }, user: { username: "zimzam" }, namespace: "", applies: false },
    { subject: { kind: "Group", name: "foobar" }, user: { username: "zimzam", groups: ["foobar"] }, namespace: "", applies: true },
    { subject: { kind: "Group", name: "foobar" }, user: { username: "foobar", groups: ["zimzam"] }, namespace: "", applies: false },
    { subject: { kind: "ServiceAccount", name: "default", namespace: "kube-system" }, user: { username: "system:serviceaccount:kube-system:default" }, namespace: "default", applies: true },
    { subject: { kind: "ServiceAccount", name: "default" }, user: { username: "system:serviceaccount:default:default" }, namespace: "default", applies: true },
    { subject: { kind: "ServiceAccount", name: "default" }, user: { username: "system:serviceaccount:default:default" }, namespace: "", applies: false },
    { subject: { kind: "ServiceAccount", name: "default", namespace: "kube-system" }, user: { username: "system:serviceaccount:default:default" }, namespace: "default", applies: false },
    { subject: { kind: "Group", name: "system:serviceaccounts:kube-system" }, user: { username: "system:serviceaccount:kube-system:default", groups: ["system:serviceaccounts:kube-system"] }, namespace: "", applies: true },
  ];
  cases.forEach((tc, i) =>
    it(`case ${i}`, () => {
      expect(appliesToUser({ username: tc.user.username, groups: tc.user.groups ?? [] }, tc.subject, tc.namespace)).toBe(tc.applies);
    }),
  );
});
