/**
 * What kubeloop ships, used as a user uses it, against the embedded control plane:
 * - every manifest under deploy/ and examples/ is applied with the real kubectl (deploy/ with
 *   `kubectl apply -k`, first try), and the sample controller of the tutorial converges a Foo;
 * - the controller of deploy/deployment.yaml runs as its pod would — the built CLI with exactly
 *   the container's args, the image's ENV, the in-cluster service variables and the
 *   ServiceAccount's token — becomes leader in its own namespace, serves its probes and metrics on
 *   the manifest's ports, converges an Application, and gives the Lease up on SIGTERM;
 * - the Helm chart, with the real helm 4 binary: install (--create-namespace), the same controller
 *   run from the chart's rendered args, upgrade, rollback, uninstall, and nothing left behind.
 *
 * One file, so the fixed ports of the manifests (:8080, :8081) are used by one process at a time.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Deployment } from "../../src/apimachinery/api/apps/v1.js";
import type { Lease } from "../../src/apimachinery/api/coordination/v1.js";
import { parse, parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../scripts/build.mjs";
import { ensureBinary } from "../../scripts/kubectl.mjs";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { KubeClient, SharedInformerFactory, silentLogger, FakeRecorder } from "../../src/index.js";
import { FooController } from "../../examples/sample-controller/controller.js";
import { eventually } from "./application-env.js";
import { Kubectl } from "./kubectl.js";
import { canUnshare, containerOf, root, runAsPod, type PodProcess } from "./pod.js";

const unshareable = canUnshare();
let cp: RunningControlPlane;
let kubectl: Kubectl;
let apiPort: number;
let caPem: string;

beforeAll(async () => {
  ensureBuilt({ log: () => {} });
  cp = await startControlPlane({
    port: 0,
    logger: silentLogger(),
    controllers: ["deployment", "replicaset", "podlifecycle", "endpoints"],
    kubelet: { nodes: 2, delays: { schedule: 5, containerCreating: 10, running: 20 } },
  });
  kubectl = new Kubectl(cp.api.kubeconfigPath);
  apiPort = Number(new URL(cp.api.url).port);
  const admin = parse(readFileSync(cp.api.kubeconfigPath, "utf8")) as { clusters: Array<{ cluster: { "certificate-authority-data": string } }> };
  caPem = Buffer.from(admin.clusters[0].cluster["certificate-authority-data"], "base64").toString("utf8");
}, 120_000);

afterAll(async () => {
  await cp?.stop();
});

/** The manifests under `dir`, not counting kustomize overlays below it (see `overlays`). */
function yamlFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return p === "deploy/helm" || existsSync(join(root, p, "kustomization.yaml")) ? [] : yamlFiles(p);
    return e.name.endsWith(".yaml") ? [p] : [];
  });
}

/** The directories below `dir` holding a kustomization.yaml (applied with -k, not file by file). */
function overlays(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    if (!e.isDirectory()) return [];
    const p = join(dir, e.name);
    return existsSync(join(root, p, "kustomization.yaml")) ? [p] : overlays(p);
  });
}

async function getJSON<T>(args: string[]): Promise<T | undefined> {
  const r = await kubectl.run([...args, "-o", "json"]);
  return r.code === 0 ? (JSON.parse(r.stdout) as T) : undefined;
}

async function serviceAccountToken(name: string, namespace: string): Promise<string> {
  return (await kubectl.ok(["create", "token", name, "-n", namespace, "--duration=1h"])).trim();
}

async function httpStatus(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

/** The kubelet's view: the probe paths and ports the manifest names answer 200. */
async function probesPass(pod: PodProcess, container: ReturnType<typeof containerOf>): Promise<void> {
  const portOf = (p: string | number) => (typeof p === "number" ? p : container.ports.find((x) => x.name === p)!.containerPort);
  for (const probe of [container.livenessProbe, container.readinessProbe]) {
    const url = `http://127.0.0.1:${portOf(probe!.httpGet.port)}${probe!.httpGet.path}`;
    await eventually(`${url} → 200 (output: ${pod.output()})`, async () => (await httpStatus(url)) === 200, 30_000);
  }
}

async function applicationConverges(name: string): Promise<void> {
  await kubectl.ok(["apply", "-f", "-"], `apiVersion: kubeloop.dev/v1alpha1\nkind: Application\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  image: nginx:1.27\n  replicas: 2\n  service:\n    port: 80\n`);
  await eventually(
    `Application ${name} converged`,
    async () => {
      const d = await getJSON<Deployment>(["get", "deployment", name]);
      return (d?.status?.readyReplicas ?? 0) === 2;
    },
    30_000,
  );
  await eventually(`status of ${name}`, async () => (await getJSON<{ status?: { readyReplicas?: number } }>(["get", "app", name]))?.status?.readyReplicas === 2, 30_000);
}

describe("the manifests of deploy/ and examples/", () => {
  it("kustomization.yaml lists every manifest of deploy/", () => {
    const k = parse(readFileSync(join(root, "deploy/kustomization.yaml"), "utf8")) as { resources: string[] };
    const files = yamlFiles("deploy")
      .map((f) => relative("deploy", f))
      .filter((f) => f !== "kustomization.yaml");
    expect([...k.resources].sort()).toEqual(files.sort());
  });

  it("kubectl apply -k deploy/ works on the first try", async () => {
    const out = await kubectl.ok(["apply", "-k", join(root, "deploy")]);
    expect(out).toContain("namespace/kubeloop-system created");
    expect(out).toContain("customresourcedefinition.apiextensions.k8s.io/applications.kubeloop.dev created");
    expect(out).toContain("deployment.apps/kubeloop-application-controller created");
    await kubectl.ok(["wait", "--for=condition=Established", "crd/applications.kubeloop.dev", "--timeout=30s"]);
  });

  it("every manifest under examples/ applies (CRDs first), and the tutorial's sample controller converges its Foo", async () => {
    const files = yamlFiles("examples");
    const isCrd = (f: string) => parseAllDocuments(readFileSync(join(root, f), "utf8")).some((d) => (d.toJS() as { kind?: string } | null)?.kind === "CustomResourceDefinition");
    for (const f of files.filter(isCrd)) {
      const r = await kubectl.run(["apply", "-f", join(root, f)]);
      expect(r.stderr, f).toBe("");
      expect(r.code, f).toBe(0);
      for (const d of parseAllDocuments(readFileSync(join(root, f), "utf8"))) {
        const name = (d.toJS() as { metadata: { name: string } }).metadata.name;
        await kubectl.ok(["wait", "--for=condition=Established", `crd/${name}`, "--timeout=30s"]);
      }
    }
    for (const f of files.filter((f) => !isCrd(f))) {
      const r = await kubectl.run(["apply", "-f", join(root, f)]);
      expect(r.stderr, f).toBe("");
      expect(r.code, f).toBe(0);
    }
    // Overlays (examples/application-webhook/deploy) build and are accepted by the server; a dry
    // run, so that deploy/'s Deployment stays as deploy/ has it for the tests below.
    const dirs = overlays("examples");
    expect(dirs).toContain("examples/application-webhook/deploy");
    for (const d of dirs) {
      const r = await kubectl.run(["apply", "--dry-run=server", "-k", join(root, d)]);
      expect(r.stderr, d).toBe("");
      expect(r.code, d).toBe(0);
    }
    // docs/tutorial.md §8: the sample controller, through the one config entry point.
    const client = KubeClient.fromConfig({ kubeconfig: cp.api.kubeconfigPath });
    const informers = new SharedInformerFactory(client, { logger: silentLogger() });
    const controller = new FooController({ client, informers, recorder: new FakeRecorder(), logger: silentLogger() });
    const stop = new AbortController();
    informers.start(stop.signal);
    const running = controller.run(stop.signal, 2);
    try {
      await eventually("Deployment example-foo", async () => (await getJSON<Deployment>(["get", "deployment", "example-foo"])) !== undefined, 20_000);
      await eventually("Foo status", async () => (await getJSON<{ status?: { availableReplicas?: number } }>(["get", "foo", "example-foo"]))?.status?.availableReplicas === 1, 20_000);
    } finally {
      stop.abort();
      await running;
      await informers.shutdown();
      await client.close();
    }
  }, 60_000);
});

describe.skipIf(!unshareable)("the controller of deploy/deployment.yaml, run as its pod", () => {
  it("leads in its own namespace, serves its probes and metrics, converges an Application, and releases the Lease on SIGTERM", async () => {
    // The old default Lease namespace (kube-system) is one the shipped RBAC does not open.
    const sa = "--as=system:serviceaccount:kubeloop-system:kubeloop-application";
    expect((await kubectl.run(["auth", "can-i", "create", "leases", "-n", "kube-system", sa])).stdout.trim()).toBe("no");
    expect((await kubectl.run(["auth", "can-i", "create", "leases", "-n", "kubeloop-system", sa])).stdout.trim()).toBe("yes");
    const container = containerOf(readFileSync(join(root, "deploy/deployment.yaml"), "utf8"));
    const pod = runAsPod({
      container,
      apiPort,
      token: await serviceAccountToken("kubeloop-application", "kubeloop-system"),
      caPem,
      namespace: "kubeloop-system",
      podName: "kubeloop-application-controller-7d9f8-abcde",
    });
    try {
      await probesPass(pod, container);
      const lease = await eventually(
        `Lease kubeloop-system/kubeloop-application-controller held (output: ${pod.output()})`,
        async () => {
          const l = await getJSON<Lease>(["get", "lease", "kubeloop-application-controller", "-n", "kubeloop-system"]);
          return l?.spec?.holderIdentity ? l : undefined;
        },
        30_000,
      );
      expect(lease.spec?.holderIdentity).toMatch(/^kubeloop-application-controller-7d9f8-abcde_/);
      await applicationConverges("shipped");
      const metricsPort = container.ports.find((p) => p.name === "metrics")!.containerPort;
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      for (const line of [
        'leader_election_master_status{name="kubeloop-application-controller"} 1',
        'controller_runtime_reconcile_panics_total{controller="application"} 0',
        'controller_runtime_terminal_reconcile_errors_total{controller="application"} 0',
      ]) {
        expect(metrics).toContain(line);
      }
      for (const re of [
        /^rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} \d+/m,
        /^rest_client_request_duration_seconds_bucket\{le="[^"]+",verb="GET",host="127\.0\.0\.1:\d+"\} \d+/m,
        /^rest_client_rate_limiter_duration_seconds_count\{verb="[A-Z]+",host="127\.0\.0\.1:\d+"\} \d+/m,
        /^workqueue_adds_total\{name="application",controller="application"\} \d+/m,
        /^process_cpu_seconds_total \d/m,
        /^nodejs_eventloop_lag_seconds \d/m,
      ]) {
        expect(metrics).toMatch(re);
      }
      expect(pod.output()).not.toMatch(/forbidden/i);
    } finally {
      const code = await pod.stop();
      expect(code, pod.output()).toBe(0);
    }
    // --leader-elect-release-on-cancel (on by default): the next replica need not wait the lease out.
    const released = await getJSON<Lease>(["get", "lease", "kubeloop-application-controller", "-n", "kubeloop-system"]);
    expect(released?.spec?.holderIdentity ?? "").toBe("");
  }, 120_000);
});

function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ensureBinary("helm"), args, {
      env: {
        ...process.env,
        KUBECONFIG: cp.api.kubeconfigPath,
        HELM_CACHE_HOME: join(root, ".cache/helm/cache"),
        HELM_CONFIG_HOME: join(root, ".cache/helm/config"),
        HELM_DATA_HOME: join(root, ".cache/helm/data"),
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function helmOk(args: string[]): Promise<string> {
  const r = await helm(args);
  if (r.code !== 0) throw new Error(`helm ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

describe("the Helm chart with helm 4", () => {
  const chart = join(root, "deploy/helm/kubeloop-application");
  const ns = "helm-ship";
  const release = "ship";
  const fullname = "ship-kubeloop-application";

  it("is helm 4", async () => {
    expect(await helmOk(["version", "--short"])).toMatch(/^v4\./);
  });

  it("installs beside deploy/'s objects, runs, upgrades, rolls back and uninstalls leaving nothing behind", async () => {
    await helmOk(["install", release, chart, "-n", ns, "--create-namespace"]);
    const manifest = await helmOk(["get", "manifest", release, "-n", ns]);
    const deploymentYaml = manifest.split(/^---$/m).find((d) => /kind: Deployment/.test(d))!;
    expect(await kubectl.ok(["get", "clusterrole", fullname, "-o", "name"])).toContain(fullname);

    if (unshareable) {
      const container = containerOf(deploymentYaml);
      const pod = runAsPod({ container, apiPort, token: await serviceAccountToken(fullname, ns), caPem, namespace: ns, podName: `${fullname}-controller-5c6d7-fghij` });
      try {
        await probesPass(pod, container);
        await eventually(`Lease ${ns}/kubeloop-application-controller held (output: ${pod.output()})`, async () => (await getJSON<Lease>(["get", "lease", "kubeloop-application-controller", "-n", ns]))?.spec?.holderIdentity, 30_000);
        await applicationConverges("from-chart");
        expect(pod.output()).not.toMatch(/forbidden/i);
      } finally {
        expect(await pod.stop(), pod.output()).toBe(0);
      }
    }

    await helmOk(["upgrade", release, chart, "-n", ns, "--set", "replicas=2"]);
    expect((await getJSON<Deployment>(["get", "deployment", `${fullname}-controller`, "-n", ns]))?.spec?.replicas).toBe(2);
    await helmOk(["rollback", release, "1", "-n", ns]);
    expect((await getJSON<Deployment>(["get", "deployment", `${fullname}-controller`, "-n", ns]))?.spec?.replicas).toBe(1);
    expect(await helmOk(["history", release, "-n", ns])).toMatch(/Rollback to 1/);

    const uninstall = await helm(["uninstall", release, "-n", ns]);
    expect(uninstall.stderr).toBe("");
    expect(uninstall.code).toBe(0);
    expect(uninstall.stdout).toContain(`release "${release}" uninstalled`);
    // Nothing of the release is left: its namespaced objects, its cluster-scoped ones, its records.
    await eventually("the release's objects gone", async () => {
      const left = await kubectl.ok(["get", "deployments,serviceaccounts,roles,rolebindings,secrets", "-n", ns, "-o", "name"]);
      return left.split("\n").filter((l) => l.includes(fullname) || l.includes("sh.helm.release")).length === 0;
    });
    for (const kind of ["clusterrole", "clusterrolebinding"]) {
      expect((await kubectl.run(["get", kind, fullname])).code).not.toBe(0);
    }
    // deploy/'s objects of the same chart, installed earlier, were never touched.
    expect(await kubectl.ok(["get", "clusterrole", "kubeloop-application", "-o", "name"])).toContain("kubeloop-application");
    expect((await helm(["status", release, "-n", ns])).code).not.toBe(0);
  }, 180_000);
});
