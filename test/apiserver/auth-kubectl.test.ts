/**
 * The real kubectl 1.35 against the embedded API server over HTTPS: auth can-i (protobuf
 * SelfSubjectAccessReview), can-i --list (SelfSubjectRulesReview), whoami (SelfSubjectReview),
 * --as impersonation, Forbidden output for a user with only a pod Role, and `kubectl create
 * token` whose token is limited by the ServiceAccount's bindings. Skipped when kubectl cannot be
 * extracted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeconfigFor, startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { credentialsOf, kubectl, kubectlPath } from "./auth-helpers.js";

const bin = kubectlPath();

describe.skipIf(!bin)("kubectl 1.35: authentication and RBAC over HTTPS", () => {
  let api: RunningApiServer;
  let dir: string;
  const k = (...args: string[]) => kubectl(bin!, api.kubeconfigPath, args);
  const kAs = (kubeconfig: string, ...args: string[]) => kubectl(bin!, kubeconfig, args);

  beforeAll(async () => {
    api = await startApiServer({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), "kubeloop-auth-kubectl-"));
    expect((await k("create", "namespace", "team")).code).toBe(0);
    expect((await k("create", "role", "pod-reader", "-n", "team", "--verb=get,list,watch", "--resource=pods")).code).toBe(0);
    expect((await k("create", "rolebinding", "alice-pods", "-n", "team", "--role=pod-reader", "--user=alice")).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await api?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("auth can-i / whoami / can-i --list as the admin", async () => {
    const yes = await k("auth", "can-i", "create", "deployments");
    expect([yes.code, yes.stdout.trim()]).toEqual([0, "yes"]);
    const who = await k("auth", "whoami");
    expect(who.code).toBe(0);
    expect(who.stdout).toMatch(/Username\s+kubeloop-admin/);
    expect(who.stdout).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
    const list = await k("auth", "can-i", "--list");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/m);
    expect(list.stdout).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/m);
  }, 60_000);

  it("--as=bob: an admin impersonates a user with no permissions", async () => {
    const who = await k("auth", "whoami", "--as=bob");
    expect(who.stdout).toMatch(/Username\s+bob/);
    const no = await k("auth", "can-i", "create", "deployments", "--as=bob");
    expect([no.code, no.stdout.trim()]).toEqual([1, "no"]);
    const get = await k("get", "pods", "-n", "team", "--as=bob");
    expect(get.code).toBe(1);
    expect(get.stderr).toContain('Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "team"');
  }, 60_000);

  it("a user with only a Role for pods: pods yes, deployments Forbidden", async () => {
    const kc = join(dir, "alice");
    writeFileSync(kc, api.kubeconfigForUser!("alice", ["devs"], "team"));
    expect((await kAs(kc, "auth", "whoami")).stdout).toMatch(/Groups\s+\[devs system:authenticated\]/);
    expect((await kAs(kc, "get", "pods")).code).toBe(0);
    const dep = await kAs(kc, "get", "deployments");
    expect(dep.code).toBe(1);
    expect(dep.stderr).toContain('Error from server (Forbidden): deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" in the namespace "team"');
    const create = await kAs(kc, "create", "deployment", "web", "--image=nginx");
    expect(create.stderr).toContain('deployments.apps is forbidden: User "alice" cannot create resource "deployments" in API group "apps" in the namespace "team"');
    expect((await kAs(kc, "auth", "can-i", "list", "pods")).stdout.trim()).toBe("yes");
    expect((await kAs(kc, "auth", "can-i", "list", "pods", "-n", "default")).stdout.trim()).toBe("no");
    const list = await kAs(kc, "auth", "can-i", "--list");
    expect(list.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]/m);
  }, 60_000);

  it("kubectl create token: the token works and is limited by the ServiceAccount's bindings", async () => {
    await api.server.controllers.idle(); // the default ServiceAccount of "team"
    const tok = await k("create", "token", "default", "-n", "team");
    expect(tok.code, tok.stderr).toBe(0);
    const token = tok.stdout.trim();
    expect(token.split(".")).toHaveLength(3);
    const kc = join(dir, "sa");
    const { ca } = credentialsOf(readFileSync(api.kubeconfigPath, "utf8"));
    writeFileSync(kc, kubeconfigFor(api.url, "team", { caPem: ca, token }));
    expect((await kAs(kc, "auth", "whoami")).stdout).toMatch(/Username\s+system:serviceaccount:team:default/);
    const denied = await kAs(kc, "get", "pods");
    expect(denied.stderr).toContain('pods is forbidden: User "system:serviceaccount:team:default" cannot list resource "pods" in API group "" in the namespace "team"');
    expect((await k("create", "rolebinding", "sa-pods", "-n", "team", "--role=pod-reader", "--serviceaccount=team:default")).code).toBe(0);
    expect((await kAs(kc, "get", "pods")).code).toBe(0);
    expect((await kAs(kc, "get", "pods", "-n", "default")).code).toBe(1);
    expect((await kAs(kc, "auth", "can-i", "delete", "pods")).stdout.trim()).toBe("no");
  }, 60_000);
});
