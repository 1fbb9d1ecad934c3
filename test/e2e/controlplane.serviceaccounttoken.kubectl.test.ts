/**
 * The token controller end to end with the real kubectl 1.35: a `kubernetes.io/service-account-token`
 * Secret naming a ServiceAccount gets `token`, `ca.crt` and `namespace`; `kubectl --token` with
 * that token (and no client certificate) is the ServiceAccount, with its RBAC; once the secret is
 * deleted the API server refuses the token (the legacy token validator looks the secret up), as it
 * does while the secret carries `kubernetes.io/legacy-token-invalid-since`; each use labels the
 * secret `kubernetes.io/legacy-token-last-used` with the day; and a token secret whose
 * ServiceAccount is deleted goes with it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";
import { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

/** A kubeconfig with the cluster's server and CA and only a bearer token as credentials. */
async function kubectlWithToken(token: string): Promise<Kubectl> {
  const admin = parse(readFileSync(cp.api.kubeconfigPath, "utf8")) as { clusters: Array<{ cluster: Record<string, string> }> };
  const path = join(await k.manifest("unused", ""), "..", `token-${Date.now()}.kubeconfig`);
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: admin.clusters[0].cluster }],
      users: [{ name: "sa", user: { token } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "sa", namespace: "e2e-token" } }],
      "current-context": "c",
    }),
  );
  return new Kubectl(path);
}

it("a token secret gets a legacy token that kubectl --token can use until the secret is deleted", async () => {
  const ns = "e2e-token";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["-n", ns, "create", "serviceaccount", "robot"]);
  await k.ok(["-n", ns, "create", "rolebinding", "robot-view", "--clusterrole=view", `--serviceaccount=${ns}:robot`]);
  await k.ok(
    ["-n", ns, "apply", "-f", "-"],
    `apiVersion: v1
kind: Secret
metadata:
  name: robot-token
  annotations: {kubernetes.io/service-account.name: robot}
type: kubernetes.io/service-account-token
`,
  );
  const secret = await eventually("the token written", async () => {
    const s = JSON.parse(await k.ok(["-n", ns, "get", "secret", "robot-token", "-o", "json"])) as { data?: Record<string, string>; metadata: { annotations: Record<string, string> } };
    return s.data?.token ? s : undefined;
  });
  expect(Object.keys(secret.data ?? {}).sort()).toEqual(["ca.crt", "namespace", "token"]);
  expect(Buffer.from(secret.data!.namespace, "base64").toString()).toBe(ns);
  const saUID = (await k.ok(["-n", ns, "get", "serviceaccount", "robot", "-o", "jsonpath={.metadata.uid}"])).trim();
  expect(secret.metadata.annotations["kubernetes.io/service-account.uid"]).toBe(saUID);
  const token = Buffer.from(secret.data!.token, "base64").toString();
  const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()) as Record<string, string>;
  expect(claims).toMatchObject({
    iss: "kubernetes/serviceaccount",
    sub: `system:serviceaccount:${ns}:robot`,
    "kubernetes.io/serviceaccount/namespace": ns,
    "kubernetes.io/serviceaccount/secret.name": "robot-token",
    "kubernetes.io/serviceaccount/service-account.name": "robot",
    "kubernetes.io/serviceaccount/service-account.uid": saUID,
  });
  expect(claims.exp).toBeUndefined();

  const robot = await kubectlWithToken(token);
  expect(await robot.ok(["get", "pods"])).toBe("");
  expect((await robot.ok(["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"])).trim()).toBe(`system:serviceaccount:${ns}:robot`);
  const denied = await robot.run(["get", "secrets"]);
  expect(denied.code).not.toBe(0);
  expect(denied.stderr).toContain(`User "system:serviceaccount:${ns}:robot" cannot list resource "secrets"`);

  // The API server records the use: the secret is labelled with the UTC day (as 2006-01-02).
  const labelled = await eventually("the last-used label", async () => {
    const v = (await k.ok(["-n", ns, "get", "secret", "robot-token", "-o", "jsonpath={.metadata.labels.kubernetes\\.io/legacy-token-last-used}"])).trim();
    return v || undefined;
  });
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  expect([day(Date.now()), day(Date.now() - 86_400_000)]).toContain(labelled);
  // A secret marked invalid (what the legacy token cleaner does) refuses its token until the label goes.
  await k.ok(["-n", ns, "label", "secret", "robot-token", "kubernetes.io/legacy-token-invalid-since=2025-01-01"]);
  const invalid = await robot.run(["get", "pods"]);
  expect(invalid.code).not.toBe(0);
  expect(invalid.stderr).toMatch(/Unauthorized|must be logged in/);
  await k.ok(["-n", ns, "label", "secret", "robot-token", "kubernetes.io/legacy-token-invalid-since-"]);
  expect(await robot.ok(["get", "pods"])).toBe("");

  await k.ok(["-n", ns, "delete", "secret", "robot-token"]);
  const refused = await robot.run(["get", "pods"]);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/Unauthorized|must be logged in/);
}, 120_000);

it("a token secret goes when its ServiceAccount is deleted", async () => {
  const ns = "e2e-token2";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["-n", ns, "create", "serviceaccount", "temp"]);
  await k.ok(
    ["-n", ns, "apply", "-f", "-"],
    `apiVersion: v1
kind: Secret
metadata:
  name: temp-token
  annotations: {kubernetes.io/service-account.name: temp}
type: kubernetes.io/service-account-token
`,
  );
  await eventually("the token written", async () => ((await k.ok(["-n", ns, "get", "secret", "temp-token", "-o", "jsonpath={.data.token}"])).trim() ? true : undefined));
  await k.ok(["-n", ns, "delete", "serviceaccount", "temp"]);
  await eventually("the secret deleted", async () => {
    const r = await k.run(["-n", ns, "get", "secret", "temp-token"]);
    return r.code !== 0 && r.stderr.includes("NotFound") ? true : undefined;
  });
}, 120_000);
