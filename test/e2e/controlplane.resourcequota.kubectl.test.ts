/**
 * Issue 16, end to end with the real kubectl 1.35: `kubectl describe quota` shows the usage the
 * ResourceQuota controller counts — objects that existed before the quota, admission's charge of
 * a new pod, and the usage a deleted pod gives back — and the admission plugin refuses the pod
 * over the limit with upstream's message.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

const used = async (ns: string) => {
  const q = JSON.parse(await k.ok(["-n", ns, "get", "quota", "q", "-o", "json"])) as { status?: { used?: Record<string, string> } };
  return q.status?.used ?? {};
};

it("status.used follows creates and deletes; describe quota shows it", async () => {
  const ns = "e2e-quota";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["-n", ns, "create", "configmap", "before", "--from-literal=a=b"]);
  await k.ok(["-n", ns, "run", "one", "--image=nginx:1.27", "--restart=Never"]);
  await k.ok(["-n", ns, "create", "quota", "q", "--hard=pods=2,configmaps=5,services=1"]);
  // kube-root-ca.crt is a ConfigMap too.
  await eventually("the controller's first count", async () => {
    const u = await used(ns);
    return u.pods === "1" && u.configmaps === "2" && u.services === "0" ? u : undefined;
  });
  await k.ok(["-n", ns, "run", "two", "--image=nginx:1.27", "--restart=Never"]);
  const over = await k.run(["-n", ns, "run", "three", "--image=nginx:1.27", "--restart=Never"]);
  expect(over.code).not.toBe(0);
  expect(over.stderr).toContain('pods "three" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');

  await k.ok(["-n", ns, "delete", "pod", "one", "--wait=true", "--timeout=60s"]);
  await eventually("the deleted pod given back", async () => ((await used(ns)).pods === "1" ? true : undefined), 30_000);
  const d = await k.ok(["-n", ns, "describe", "quota", "q"]);
  expect(d).toMatch(/Resource\s+Used\s+Hard/);
  expect(d).toMatch(/pods\s+1\s+2/);
  expect(d).toMatch(/configmaps\s+2\s+5/);
  expect(d).toMatch(/services\s+0\s+1/);
}, 120_000);
