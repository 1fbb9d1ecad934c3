/**
 * The example of examples/application-webhook end to end, with its real files and the real
 * kubectl 1.35: the overlay of examples/application-webhook/deploy as `kubectl kustomize` builds
 * it (namespace, CRD, ServiceAccount, RBAC, webhook Service) applied to the embedded control plane,
 * the webhook Service replaced by local-service.yaml (the documented way to reach a process on the
 * host), and the example's process run in-process with the overlay Deployment's own container args
 * (plus the host-only overrides the README lists). Then app.yaml comes back defaulted with the
 * validator's warning, app-invalid.yaml is refused and not stored, an immutable field cannot
 * change, and the controller builds the Deployment from the defaulted Application.
 *
 * The API server's admission chain comes from test/webhook/testchain.ts (TEST-ONLY, until the
 * chain is wired into the store by the admit branch).
 */
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { Registry } from "prom-client";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { webhookAdmissionPlugins } from "../../src/apiserver/admission/webhook/index.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { parseFlags, runApplicationWithWebhooks, WEBHOOK_CONFIGURATION_NAME } from "../../examples/application-webhook/main.js";
import { installTestAdmission } from "../webhook/testchain.js";
import { eventually, FAST_KUBELET } from "./application-env.js";
import { Kubectl } from "./kubectl.js";

const example = (p: string) => fileURLToPath(new URL(`../../examples/application-webhook/${p}`, import.meta.url));

type Rec = Record<string, unknown>;

let cp: RunningControlPlane;
let k: Kubectl;
let built: KubeObject[];
let args: string[];
let registry: Registry;
const stop = new AbortController();
let running: Promise<void> | undefined;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const containerOf = (d: KubeObject) => (((d.spec as Rec).template as Rec).spec as { containers: { name: string; args?: string[]; command?: string[]; ports?: Rec[] }[] }).containers[0];

beforeAll(async () => {
  cp = await startControlPlane({ port: 0, logger: silentLogger(), kubelet: FAST_KUBELET, controllers: ["deployment", "replicaset", "podlifecycle", "endpoints"] });
  const { mutating, validating } = webhookAdmissionPlugins({ webhooks: cp.api.server.webhooks, objects: cp.api.server.objectInterfaces });
  installTestAdmission(cp.api.server, { mutating: [mutating], validating: [validating] });
  k = new Kubectl(cp.api.kubeconfigPath);

  // The overlay as shipped, built by kubectl's kustomize.
  const yaml = await k.ok(["kustomize", example("deploy")]);
  built = parseAllDocuments(yaml).map((d) => d.toJSON() as KubeObject);
  const deployment = built.find((o) => o.kind === "Deployment")!;
  args = containerOf(deployment).args ?? [];
  // Everything but the Deployment (its process runs on this host instead), then the Service for a host process.
  const toApply = built.filter((o) => o.kind !== "Deployment");
  await k.ok(["apply", "-f", "-"], toApply.map((o) => JSON.stringify(o)).join("\n"));
  await k.ok(["wait", "--for=condition=Established", "crd/applications.kubeloop.dev", "--timeout=30s"]);
  await k.ok(["replace", "--force", "-f", example("deploy/local-service.yaml")]);

  const port = await freePort();
  const flags = parseFlags([...args, `--kubeconfig=${cp.api.kubeconfigPath}`, "--metrics-bind-address=0", "--health-probe-bind-address=0", `--webhook-port=${port}`, `--webhook-service-port=${port}`]);
  registry = new Registry();
  running = runApplicationWithWebhooks(flags, stop.signal, { logger: silentLogger(), registry });
  running.catch(() => undefined);
  await eventually("the webhook configurations installed", async () => (await k.run(["get", "validatingwebhookconfiguration", `${WEBHOOK_CONFIGURATION_NAME}-validating`])).code === 0);
  await cp.api.server.webhooks.cache.synced();
}, 90_000);

afterAll(async () => {
  stop.abort();
  await running?.catch(() => undefined);
  await cp?.stop();
});

describe("examples/application-webhook", () => {
  it("the overlay runs the example with the webhook flags and serves 9443 behind the Service", () => {
    const deployment = built.find((o) => o.kind === "Deployment")!;
    const c = containerOf(deployment);
    expect(c.command).toEqual(["node", "examples/application-webhook/main.js"]);
    expect(args).toEqual(expect.arrayContaining(["--webhook-generate-certificate", "--webhook-service=kubeloop-system/kubeloop-application-webhook", "--webhook-port=9443", "--webhook-service-port=443"]));
    expect(c.ports).toEqual(expect.arrayContaining([{ name: "webhook", containerPort: 9443, protocol: "TCP" }]));
    const svc = built.find((o) => o.kind === "Service" && o.metadata?.name === "kubeloop-application-webhook")!;
    expect((svc.spec as Rec).ports).toEqual([{ name: "webhook", port: 443, targetPort: "webhook", protocol: "TCP" }]);
    expect(built.some((o) => o.kind === "ClusterRole" && o.metadata?.name === "kubeloop-application-webhook")).toBe(true);
  });

  it("the installed configurations point at the Service with the generated CA", async () => {
    const v = JSON.parse(await k.ok(["get", "validatingwebhookconfiguration", `${WEBHOOK_CONFIGURATION_NAME}-validating`, "-o", "json"])) as KubeObject;
    const hook = (v.webhooks as Rec[])[0];
    expect(hook.name).toBe("vapplication-v1alpha1.kubeloop.dev");
    const cc = hook.clientConfig as Rec;
    expect(cc.service).toMatchObject({ namespace: "kubeloop-system", name: "kubeloop-application-webhook", path: "/validate-kubeloop-dev-v1alpha1-application" });
    expect(Buffer.from(String(cc.caBundle), "base64").toString()).toContain("-----BEGIN CERTIFICATE-----");
  });

  it("app.yaml is defaulted by the mutating webhook, with the validating webhook's warning", async () => {
    const r = await k.run(["apply", "-f", example("app.yaml")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("application.kubeloop.dev/shop created");
    expect(r.stderr.trim()).toBe("Warning: spec.replicas is 1: the application is not highly available");
    const app = JSON.parse(await k.ok(["get", "application", "shop", "-o", "json"])) as KubeObject;
    expect(app.metadata?.labels).toEqual({ "app.kubernetes.io/name": "shop" });
    expect((app.spec as Rec).resources).toEqual({ requests: { cpu: "100m", memory: "128Mi" } });
    expect((app.spec as Rec).service).toEqual({ type: "ClusterIP", port: 80, targetPort: "http" });
  });

  it("the controller builds the Deployment from the defaulted Application", async () => {
    const cpu = await eventually("the Deployment", async () => {
      const r = await k.run(["get", "deployment", "shop", "-o", "jsonpath={.spec.template.spec.containers[0].resources.requests.cpu}"]);
      return r.code === 0 && r.stdout !== "" ? r.stdout : undefined;
    });
    expect(cpu).toBe("100m");
  });

  it("app-invalid.yaml is refused with every problem, and not stored", async () => {
    const file = example("app-invalid.yaml");
    const r = await k.run(["apply", "-f", file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "${file}": admission webhook "vapplication-v1alpha1.kubeloop.dev" denied the request: [spec.image: Invalid value: "nginx:latest": must name a tag other than latest, or a digest, spec.service.targetPort: Invalid value: "web": must be the name of one of spec.ports]`,
    );
    expect((await k.run(["get", "application", "unpinned"])).stderr.trim()).toBe('Error from server (NotFound): applications.kubeloop.dev "unpinned" not found');
  });

  it("an update: deploymentName may be set once, never changed", async () => {
    await k.ok(["patch", "application", "shop", "--type=merge", "-p", JSON.stringify({ spec: { deploymentName: "shop" } })]);
    const r = await k.run(["patch", "application", "shop", "--type=merge", "-p", JSON.stringify({ spec: { deploymentName: "other" } })]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('Error from server (Forbidden): admission webhook "vapplication-v1alpha1.kubeloop.dev" denied the request: spec.deploymentName: Invalid value: "other": field is immutable');
    expect(await k.ok(["get", "application", "shop", "-o", "jsonpath={.spec.deploymentName}"])).toBe("shop");
  });

  it("the webhook server counts its requests with controller-runtime's metric", async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/mutate-kubeloop-dev-v1alpha1-application",code="200"\} [1-9]/);
    expect(text).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/validate-kubeloop-dev-v1alpha1-application",code="200"\} [1-9]/);
  });
});
