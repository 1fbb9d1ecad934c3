/**
 * kubectl 1.35's typed clients ask for protobuf first
 * (`Accept: application/vnd.kubernetes.protobuf,application/json`, visible with -v=8) and now get
 * it: creates, describes, reviews, tokens, rollout history, and NotFound errors as protobuf Status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { Kubectl } from "./kubectl.js";

let api: RunningApiServer;
let k: Kubectl;

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  k = new Kubectl(api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

/** The response Content-Types kubectl logged at -v=8, in order. */
function responseTypes(stderr: string): string[] {
  const out: string[] = [];
  const blocks = stderr.split(/\n(?=I\d{4} )/);
  for (const b of blocks) {
    if (!b.includes('"Response"')) continue;
    const m = /Content-Type: (\S+)/.exec(b);
    if (m) out.push(m[1]);
  }
  return out;
}

describe("kubectl 1.35 with protobuf responses", () => {
  it("create configmap: the request Accept lists protobuf first and the answer is protobuf", async () => {
    const r = await k.run(["create", "configmap", "pbcm", "--from-literal=a=b", "-v=8"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("configmap/pbcm created\n");
    expect(r.stderr).toContain("Accept: application/vnd.kubernetes.protobuf,application/json");
    expect(responseTypes(r.stderr)).toContain("application/vnd.kubernetes.protobuf");
    expect(await k.ok(["get", "configmap", "pbcm", "-o", "jsonpath={.data.a}"])).toBe("b");
  });

  it("create deployment, describe it and its rollout history from protobuf answers", async () => {
    await k.ok(["create", "deployment", "pbweb", "--image=nginx:1.27", "--replicas=2"]);
    const d = await k.run(["describe", "deployment", "pbweb", "-v=8"]);
    expect(d.code).toBe(0);
    expect(responseTypes(d.stderr)).toContain("application/vnd.kubernetes.protobuf");
    expect(d.stdout).toMatch(/^Name:\s+pbweb$/m);
    expect(d.stdout).toMatch(/^Replicas:\s+2 desired/m);
    expect(d.stdout).toMatch(/^StrategyType:\s+RollingUpdate$/m);
    expect(d.stdout).toMatch(/Image:\s+nginx:1\.27/);
    const h = await k.ok(["rollout", "history", "deployment/pbweb"]);
    expect(h).toContain("deployment.apps/pbweb");
  });

  it("auth can-i and create token read protobuf review answers", async () => {
    const r = await k.run(["auth", "can-i", "create", "pods", "-v=8"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("yes");
    expect(responseTypes(r.stderr)).toContain("application/vnd.kubernetes.protobuf");
    const token = await k.ok(["create", "token", "default"]);
    expect(token.trim().split(".")).toHaveLength(3);
  });

  it("a conflicting create is a protobuf Status that kubectl prints as upstream's AlreadyExists", async () => {
    await k.ok(["create", "configmap", "pbdup"]);
    const r = await k.run(["create", "configmap", "pbdup", "-v=8"]);
    expect(r.code).toBe(1);
    expect(responseTypes(r.stderr)).toEqual(["application/vnd.kubernetes.protobuf"]);
    expect(r.stderr).toContain('error: failed to create configmap: configmaps "pbdup" already exists');
  });
});
