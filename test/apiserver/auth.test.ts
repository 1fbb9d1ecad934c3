/**
 * HTTPS, authentication and RBAC of the embedded API server over real TLS connections:
 * anonymous access, client certificates, static and ServiceAccount tokens, impersonation,
 * Forbidden answers, escalation prevention, aggregation, the review APIs, the insecure http
 * mode, and the PKI kept in a data directory across restarts.
 */
import { readFile } from "node:fs/promises";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { call, credentialsOf, type Credentials } from "./auth-helpers.js";

let api: RunningApiServer;
let admin: Credentials;
let anon: Credentials;
const as = (user: string, groups: string[] = []) => credentialsOf(api.kubeconfigForUser!(user, groups));

beforeAll(async () => {
  api = await startApiServer({ port: 0, auth: { staticTokens: new Map([["static-token", { username: "tok-user", uid: "42", groups: ["tok-group"] }]]) } });
  admin = credentialsOf(await readFile(api.kubeconfigPath, "utf8"));
  anon = { ca: admin.ca };
  const post = (path: string, body: unknown) => call(api.url, admin, "POST", path, body);
  expect((await post("/api/v1/namespaces", { metadata: { name: "team" } })).status).toBe(201);
  expect(
    (await post("/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", { metadata: { name: "pod-reader" }, rules: [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }] })).status,
  ).toBe(201);
  expect(
    (
      await post("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
        metadata: { name: "alice-reads-pods" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" },
        subjects: [{ kind: "User", name: "alice" }],
      })
    ).status,
  ).toBe(201);
});
afterAll(async () => {
  await api?.stop();
});

describe("HTTPS and authentication", () => {
  it("serves https; the kubeconfig verifies the CA and uses the admin client certificate", async () => {
    expect(api.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = await readFile(api.kubeconfigPath, "utf8");
    expect(kc).toContain("certificate-authority-data");
    expect(kc).not.toContain("insecure-skip-tls-verify");
    const who = await call(api.url, admin, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
    expect(who.status).toBe(201);
    expect(who.body.status.userInfo).toEqual({ username: "kubeloop-admin", groups: ["system:masters", "system:authenticated"] });
  });

  it("anonymous requests reach only the public-info paths; elsewhere 401", async () => {
    for (const p of ["/healthz", "/livez", "/readyz", "/version"]) expect((await call(api.url, anon, "GET", p)).status, p).toBe(200);
    const r = await call(api.url, anon, "GET", "/api/v1/namespaces");
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ kind: "Status", status: "Failure", reason: "Unauthorized", message: "Unauthorized", code: 401 });
    expect((await call(api.url, anon, "GET", "/apis")).status).toBe(401);
  });

  it("a client certificate from another CA is refused (401), also on /healthz", async () => {
    const { generateCA, issueCertificate } = await import("../../src/apiserver/index.js");
    const rogue = generateCA("rogue");
    const leaf = issueCertificate(rogue, { subject: { commonName: "kubeloop-admin", organizations: ["system:masters"] }, usages: ["clientAuth"] });
    expect((await call(api.url, { ca: admin.ca, cert: leaf.certPem, key: leaf.keyPem }, "GET", "/api/v1/namespaces")).status).toBe(401);
  });

  it("static tokens and bad tokens", async () => {
    const who = await call(api.url, { ca: admin.ca, token: "static-token" }, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {});
    expect(who.body.status.userInfo).toEqual({ username: "tok-user", uid: "42", groups: ["tok-group", "system:authenticated"] });
    expect((await call(api.url, { ca: admin.ca, token: "nope" }, "GET", "/version")).status).toBe(401);
  });

  it("authenticated users get discovery and the review APIs, nothing else", async () => {
    const bob = as("bob");
    expect((await call(api.url, bob, "GET", "/apis")).status).toBe(200);
    expect((await call(api.url, bob, "GET", "/openapi/v3")).status).toBe(200);
    const r = await call(api.url, bob, "GET", "/api/v1/namespaces/team/configmaps");
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team"');
    expect(r.body.details).toEqual({ kind: "configmaps" });
  });
});

describe("RBAC", () => {
  it("a Role for pods allows pods in its namespace only, with upstream's Forbidden messages", async () => {
    const alice = as("alice", ["devs"]);
    expect((await call(api.url, alice, "GET", "/api/v1/namespaces/team/pods")).status).toBe(200);
    const other = await call(api.url, alice, "GET", "/api/v1/namespaces/default/pods");
    expect(other.body.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
    const dep = await call(api.url, alice, "POST", "/apis/apps/v1/namespaces/team/deployments", { metadata: { name: "x" } });
    expect(dep.status).toBe(403);
    expect(dep.body.message).toBe('deployments.apps is forbidden: User "alice" cannot create resource "deployments" in API group "apps" in the namespace "team"');
    const named = await call(api.url, alice, "DELETE", "/api/v1/namespaces/team/pods/p1");
    expect(named.body.message).toBe('pods "p1" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "team"');
    const scale = await call(api.url, alice, "PUT", "/apis/apps/v1/namespaces/team/deployments/web/scale", {});
    expect(scale.body.message).toBe('deployments.apps "web" is forbidden: User "alice" cannot update resource "deployments/scale" in API group "apps" in the namespace "team"');
    const nodes = await call(api.url, alice, "GET", "/api/v1/nodes");
    expect(nodes.body.message).toBe('nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
  });

  it("bindings take effect at once and a binding to a missing role explains the denial", async () => {
    const carol = as("carol");
    expect((await call(api.url, carol, "GET", "/api/v1/namespaces/team/pods")).status).toBe(403);
    const b = await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
      metadata: { name: "carol" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "User", name: "carol" }],
    });
    expect(b.status).toBe(201);
    expect((await call(api.url, carol, "GET", "/api/v1/namespaces/team/pods")).status).toBe(200);
    expect((await call(api.url, carol, "GET", "/apis/apps/v1/namespaces/team/deployments")).status).toBe(200);
    expect((await call(api.url, carol, "GET", "/api/v1/namespaces/team/secrets")).status).toBe(403);
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
      metadata: { name: "dangling" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "does-not-exist" },
      subjects: [{ kind: "User", name: "dave" }],
    });
    const d = await call(api.url, as("dave"), "GET", "/api/v1/namespaces/team/pods");
    expect(d.body.message).toBe('pods is forbidden: User "dave" cannot list resource "pods" in API group "" in the namespace "team": RBAC: role.rbac.authorization.k8s.io "does-not-exist" not found');
  });

  it("resourceNames restrict gets to the named objects", async () => {
    await call(api.url, admin, "POST", "/api/v1/namespaces/team/configmaps", { metadata: { name: "allowed" } });
    await call(api.url, admin, "POST", "/api/v1/namespaces/team/configmaps", { metadata: { name: "other" } });
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", { metadata: { name: "one-cm" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["allowed"] }] });
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
      metadata: { name: "erin" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "one-cm" },
      subjects: [{ kind: "User", name: "erin" }],
    });
    const erin = as("erin");
    expect((await call(api.url, erin, "GET", "/api/v1/namespaces/team/configmaps/allowed")).status).toBe(200);
    expect((await call(api.url, erin, "GET", "/api/v1/namespaces/team/configmaps/other")).status).toBe(403);
    expect((await call(api.url, erin, "GET", "/api/v1/namespaces/team/configmaps")).status).toBe(403);
  });

  it("escalation: roles and bindings cannot grant more than the writer holds without escalate / bind", async () => {
    // lead may manage roles and rolebindings in team, and read pods.
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", {
      metadata: { name: "lead" },
      rules: [
        { verbs: ["create", "update", "get"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["roles", "rolebindings"] },
        { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] },
      ],
    });
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
      metadata: { name: "lead" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "lead" },
      subjects: [{ kind: "User", name: "lead" }],
    });
    const lead = as("lead");
    const roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles";
    const bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings";
    const tooMuch = await call(api.url, lead, "POST", roles, { metadata: { name: "deleter" }, rules: [{ verbs: ["get", "delete"], apiGroups: [""], resources: ["pods"] }] });
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.body.message).toBe(
      'roles.rbac.authorization.k8s.io "deleter" is forbidden: user "lead" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    );
    expect((await call(api.url, lead, "POST", roles, { metadata: { name: "reader" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] })).status).toBe(201);
    const bindAdmin = await call(api.url, lead, "POST", bindings, { metadata: { name: "x" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" }, subjects: [{ kind: "User", name: "lead" }] });
    expect(bindAdmin.status).toBe(403);
    expect(bindAdmin.body.message).toMatch(/^rolebindings\.rbac\.authorization\.k8s\.io "x" is forbidden: user "lead" .* is attempting to grant RBAC permissions not currently held:\n/);
    expect((await call(api.url, lead, "POST", bindings, { metadata: { name: "ok" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" }, subjects: [{ kind: "User", name: "frank" }] })).status).toBe(201);

    // With bind on clusterroles/admin and escalate on roles, both succeed.
    await call(api.url, admin, "POST", roles, {
      metadata: { name: "lead-extra" },
      rules: [
        { verbs: ["bind"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], resourceNames: ["admin"] },
        { verbs: ["escalate"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["roles"] },
      ],
    });
    await call(api.url, admin, "POST", bindings, { metadata: { name: "lead-extra" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "lead-extra" }, subjects: [{ kind: "User", name: "lead" }] });
    expect((await call(api.url, lead, "POST", bindings, { metadata: { name: "x" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" }, subjects: [{ kind: "User", name: "lead" }] })).status).toBe(201);
    expect((await call(api.url, lead, "POST", roles, { metadata: { name: "deleter" }, rules: [{ verbs: ["get", "delete"], apiGroups: [""], resources: ["pods"] }] })).status).toBe(201);
  });

  it("ClusterRole aggregation picks up labelled roles into view/edit/admin", async () => {
    const r = await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      metadata: { name: "widgets-view", labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } },
      rules: [{ verbs: ["get", "list"], apiGroups: ["example.com"], resources: ["widgets"] }],
    });
    expect(r.status).toBe(201);
    await api.server.access!.idle();
    for (const name of ["view", "edit", "admin"]) {
      const role = await call(api.url, admin, "GET", `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
      expect(role.body.rules, name).toContainEqual({ verbs: ["get", "list"], apiGroups: ["example.com"], resources: ["widgets"] });
    }
    await call(api.url, admin, "DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterroles/widgets-view");
    await api.server.access!.idle();
    const view = await call(api.url, admin, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/view");
    expect(view.body.rules).not.toContainEqual({ verbs: ["get", "list"], apiGroups: ["example.com"], resources: ["widgets"] });
  });

  it("a non-admin may not create an aggregated ClusterRole", async () => {
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { metadata: { name: "cr-writer" }, rules: [{ verbs: ["create"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"] }] });
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", { metadata: { name: "cr-writer" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cr-writer" }, subjects: [{ kind: "User", name: "gina" }] });
    const r = await call(api.url, as("gina"), "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { metadata: { name: "agg" }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: "b" } }] } });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  });
});

describe("impersonation", () => {
  it("an admin acts as another user with --as semantics", async () => {
    const r = await call(api.url, admin, "GET", "/api/v1/namespaces/team/pods", undefined, { "Impersonate-User": "alice" });
    expect(r.status).toBe(200);
    const f = await call(api.url, admin, "GET", "/api/v1/namespaces/default/pods", undefined, { "Impersonate-User": "alice" });
    expect(f.body.message).toContain('User "alice" cannot list resource "pods"');
    const who = await call(api.url, admin, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {}, { "Impersonate-User": "alice", "Impersonate-Group": ["g1", "g2"] });
    expect(who.body.status.userInfo).toEqual({ username: "alice", groups: ["g1", "g2", "system:authenticated"] });
  });

  it("a user without impersonate rights gets 403", async () => {
    const r = await call(api.url, as("alice"), "GET", "/api/v1/namespaces/team/pods", undefined, { "Impersonate-User": "kubeloop-admin" });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('users "kubeloop-admin" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
  });
});

describe("reviews", () => {
  it("SelfSubjectAccessReview answers allowed with the RBAC reason", async () => {
    const alice = as("alice");
    const yes = await call(api.url, alice, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { namespace: "team", verb: "list", resource: "pods" } },
    });
    expect(yes.status).toBe(201);
    expect(yes.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads-pods/team" of Role "pod-reader" to User "alice"' });
    const no = await call(api.url, alice, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { spec: { resourceAttributes: { namespace: "team", verb: "create", group: "apps", resource: "deployments" } } });
    expect(no.body.status).toEqual({ allowed: false });
    const bad = await call(api.url, alice, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { spec: {} });
    expect(bad.status).toBe(422);
  });

  it("SelfSubjectRulesReview lists the user's rules in a namespace", async () => {
    const r = await call(api.url, as("alice"), "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", { spec: { namespace: "team" } });
    expect(r.status).toBe(201);
    expect(r.body.status.resourceRules).toContainEqual({ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] });
    expect(r.body.status.resourceRules).toContainEqual({ verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] });
    expect(r.body.status.nonResourceRules).toContainEqual({ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] });
    expect(r.body.status.incomplete).toBe(false);
  });

  it("SubjectAccessReview is for those allowed to create it", async () => {
    const body = { spec: { user: "alice", resourceAttributes: { namespace: "team", verb: "get", resource: "pods" } } };
    const r = await call(api.url, admin, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", body);
    expect(r.body.status.allowed).toBe(true);
    expect((await call(api.url, as("alice"), "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", body)).status).toBe(403);
  });

  it("discovery lists the review resources with the create verb", async () => {
    const r = await call(api.url, admin, "GET", "/apis/authorization.k8s.io/v1");
    const names = (r.body.resources as { name: string; verbs: string[] }[]).map((x) => `${x.name}:${x.verbs.join(",")}`);
    expect(names).toContain("selfsubjectaccessreviews:create");
    expect(names).toContain("selfsubjectrulesreviews:create");
    expect((await call(api.url, admin, "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")).status).toBe(405);
    expect((await call(api.url, admin, "GET", "/openapi/v3/apis/authorization.k8s.io/v1")).status).toBe(200);
    expect((await call(api.url, admin, "GET", "/openapi/v3/apis/rbac.authorization.k8s.io/v1")).status).toBe(200);
  });
});

describe("ServiceAccount tokens", () => {
  it("TokenRequest issues a token that authenticates as the ServiceAccount and is limited by its bindings", async () => {
    await call(api.url, admin, "POST", "/api/v1/namespaces/team/serviceaccounts", { metadata: { name: "builder" } });
    const tr = await call(api.url, admin, "POST", "/api/v1/namespaces/team/serviceaccounts/builder/token", { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} });
    expect(tr.status).toBe(201);
    expect(tr.body).toMatchObject({ kind: "TokenRequest", spec: { expirationSeconds: 3600 }, status: { token: expect.any(String) } });
    const sa: Credentials = { ca: admin.ca, token: tr.body.status.token };
    const who = await call(api.url, sa, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {});
    expect(who.body.status.userInfo).toMatchObject({
      username: "system:serviceaccount:team:builder",
      groups: ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
    });
    expect((await call(api.url, sa, "GET", "/api/v1/namespaces/team/pods")).status).toBe(403);
    await call(api.url, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
      metadata: { name: "builder" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" },
      subjects: [{ kind: "ServiceAccount", name: "builder" }],
    });
    expect((await call(api.url, sa, "GET", "/api/v1/namespaces/team/pods")).status).toBe(200);
    const review = await call(api.url, admin, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: sa.token } });
    expect(review.body.status).toMatchObject({ authenticated: true, user: { username: "system:serviceaccount:team:builder" } });
    // Deleting the ServiceAccount invalidates the token.
    await call(api.url, admin, "DELETE", "/api/v1/namespaces/team/serviceaccounts/builder");
    expect((await call(api.url, sa, "GET", "/api/v1/namespaces/team/pods")).status).toBe(401);
  });

  it("a token for a missing ServiceAccount is 404", async () => {
    const r = await call(api.url, admin, "POST", "/api/v1/namespaces/team/serviceaccounts/ghost/token", { spec: {} });
    expect(r.status).toBe(404);
  });
});

describe("insecure http mode", () => {
  it("maps credential-less requests to the admin, honours impersonation and tokens", async () => {
    const s = await startApiServer({ port: 0, insecureHttp: true });
    try {
      expect(s.url).toMatch(/^http:\/\//);
      expect(await readFile(s.kubeconfigPath, "utf8")).toContain("insecure-skip-tls-verify: true");
      expect(s.kubeconfigForUser).toBeUndefined();
      const who = await fetch(`${s.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(((await who.json()) as { status: { userInfo: unknown } }).status.userInfo).toEqual({ username: "kubeloop-admin", groups: ["system:masters", "system:authenticated"] });
      const bob = await fetch(`${s.url}/api/v1/namespaces/default/pods`, { headers: { "Impersonate-User": "bob" } });
      expect(bob.status).toBe(403);
      const bad = await fetch(`${s.url}/api/v1/namespaces/default/pods`, { headers: { authorization: "Bearer nope" } });
      expect(bad.status).toBe(401);
    } finally {
      await s.stop();
    }
  });

  it("a configurable identity", async () => {
    const s = await startApiServer({ port: 0, insecureHttp: true, auth: { insecureUser: { username: "dev", groups: [] } } });
    try {
      expect((await fetch(`${s.url}/api/v1/namespaces/default/pods`)).status).toBe(403);
      expect((await fetch(`${s.url}/version`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});

describe("PKI in the data directory", () => {
  it("keeps the CA and certificates across restarts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeloop-pki-"));
    try {
      const a = await startApiServer({ port: 0, dataDir: dir });
      const caA = credentialsOf(await readFile(a.kubeconfigPath, "utf8")).ca;
      await a.stop();
      for (const f of ["ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key", "sa.key"]) expect(existsSync(join(dir, "pki", f)), f).toBe(true);
      const b = await startApiServer({ port: 0, dataDir: dir });
      try {
        const credsB = credentialsOf(await readFile(b.kubeconfigPath, "utf8"));
        expect(credsB.ca).toBe(caA);
        expect((await call(b.url, credsB, "GET", "/api/v1/namespaces")).status).toBe(200);
      } finally {
        await b.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
