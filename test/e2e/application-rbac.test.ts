/**
 * The shipped RBAC (deploy/rbac.yaml) is sufficient and minimal: the Application controller runs
 * against the embedded server (HTTPS + RBAC) as the kubeloop-application ServiceAccount, with a
 * token from the TokenRequest API (`kubectl create token`), and converges; then each rule is
 * removed in turn and the controller, started afresh, visibly fails at the job that rule allows.
 */
import { readFileSync } from "node:fs";
import type { Deployment } from "../../src/apimachinery/api/apps/v1.js";
import type { Event, Service } from "../../src/apimachinery/api/core/v1.js";
import type { ClusterRole } from "../../src/apimachinery/api/rbac/v1.js";
import { Registry } from "prom-client";
import { parse, parseAllDocuments, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runApplicationController, type Application } from "../../src/controllers/application/index.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { eventually, startApplicationEnv, type ApplicationEnv } from "./application-env.js";
import { Kubectl } from "./kubectl.js";

const root = new URL("../../", import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), "utf8");

let env: ApplicationEnv;
let kubectl: Kubectl;
let saKubeconfig: string;
let counter = 0;

const rbacDocs = parseAllDocuments(read("deploy/rbac.yaml")).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
const clusterRole = rbacDocs.find((d) => d.kind === "ClusterRole") as unknown as ClusterRole;

beforeAll(async () => {
  env = await startApplicationEnv();
  kubectl = new Kubectl(env.cp.api.kubeconfigPath);
  for (const f of ["deploy/namespace.yaml", "deploy/serviceaccount.yaml", "deploy/rbac.yaml"]) await kubectl.ok(["apply", "-f", "-"], read(f));
  const token = (await kubectl.ok(["create", "token", "kubeloop-application", "-n", "kubeloop-system", "--duration=1h"])).trim();
  // The admin kubeconfig's cluster (server URL and CA), with the ServiceAccount's bearer token.
  const admin = parse(readFileSync(env.cp.api.kubeconfigPath, "utf8")) as {
    clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
  };
  const cluster = admin.clusters[0];
  saKubeconfig = await kubectl.manifest(
    "sa-kubeconfig",
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [cluster],
      users: [{ name: "kubeloop-application", user: { token } }],
      contexts: [{ name: "sa", context: { cluster: cluster.name, user: "kubeloop-application", namespace: "kubeloop-system" } }],
      "current-context": "sa",
    }),
  );
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

async function getJSON<T>(args: string[]): Promise<T | undefined> {
  const r = await kubectl.run([...args, "-o", "json"]);
  return r.code === 0 ? (JSON.parse(r.stdout) as T) : undefined;
}

/** Applies an Application, runs the controller as the ServiceAccount while `body` runs, then stops it. */
async function withController(body: (app: string) => Promise<void>): Promise<void> {
  const app = `rbac-${++counter}`;
  await kubectl.ok(["apply", "-f", "-"], `apiVersion: kubeloop.dev/v1alpha1\nkind: Application\nmetadata:\n  name: ${app}\n  namespace: default\nspec:\n  image: nginx:1.27\n  service:\n    port: 80\n`);
  const stop = new AbortController();
  const running = runApplicationController({
    kubeconfig: saKubeconfig,
    leaderElect: true,
    leaderElectionNamespace: "kubeloop-system",
    leaderElection: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200, releaseOnCancel: true },
    metricsBindAddress: "0",
    healthProbeBindAddress: "0",
    gracefulShutdownTimeoutMs: 5000,
    signal: stop.signal,
    logger: silentLogger(),
    registry: new Registry(),
  }).catch((err: unknown) => err);
  try {
    await body(app);
  } finally {
    stop.abort();
    await running;
  }
}

async function converged(app: string): Promise<void> {
  await eventually(`Deployment ${app}`, () => getJSON<Deployment>(["get", "deployment", app]), 15_000);
  await eventually(`Service ${app}`, () => getJSON<Service>(["get", "service", app]), 15_000);
  await eventually(`status of ${app}`, async () => (await getJSON<Application>(["get", "app", app]))?.status?.conditions?.some((c) => c.type === "ReconcileError" && c.status === "False"), 15_000);
  await eventually(`Synced event of ${app}`, async () => {
    const list = await getJSON<{ items: Event[] }>(["get", "events", "--field-selector", `involvedObject.name=${app}`]);
    return list?.items.some((e) => e.reason === "Synced");
  }, 15_000);
}

/** Holds for `ms` (the controller had time to act, with the full role it converges in far less). */
const QUIET_MS = 3000;
async function stillAbsent(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + QUIET_MS;
  while (Date.now() < deadline) {
    expect(await check(), what).toBe(false);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function setClusterRoleRules(rules: ClusterRole["rules"]): Promise<void> {
  const role: ClusterRole = { ...clusterRole, rules };
  await kubectl.ok(["apply", "-f", "-"], stringify(role));
}

describe("deploy/rbac.yaml", () => {
  it("is sufficient: the controller converges as the ServiceAccount with leader election", async () => {
    expect((await kubectl.run(["auth", "can-i", "delete", "deployments", "--as=system:serviceaccount:kubeloop-system:kubeloop-application"])).stdout.trim()).toBe("no");
    await withController(converged);
  }, 60_000);

  const rules = clusterRole.rules ?? [];
  const effects: Record<string, { what: string; check: (app: string) => Promise<boolean> }> = {
    applications: { what: "a Deployment (the Application informer cannot list)", check: async (app) => (await kubectl.run(["get", "deployment", app])).code === 0 },
    "applications/status": {
      what: "a status",
      check: async (app) => (await getJSON<Application>(["get", "app", app]))?.status !== undefined,
    },
    deployments: { what: "a Deployment", check: async (app) => (await kubectl.run(["get", "deployment", app])).code === 0 },
    services: { what: "a Service", check: async (app) => (await kubectl.run(["get", "service", app])).code === 0 },
    events: {
      what: "a Synced event",
      check: async (app) => (await getJSON<{ items: Event[] }>(["get", "events", "--field-selector", `involvedObject.name=${app}`]))?.items.some((e) => e.reason === "Synced") ?? false,
    },
  };

  for (let i = 0; i < rules.length; i++) {
    const resource = (rules[i].resources ?? []).join(",");
    it(`is minimal: without the rule for ${resource} the controller fails`, async () => {
      await setClusterRoleRules(rules.filter((_, j) => j !== i));
      try {
        const effect = effects[resource];
        expect(effect, `an expected effect for ${resource}`).toBeDefined();
        await withController(async (app) => {
          if (resource === "applications/status" || resource === "events") {
            // These rules guard the last steps: the children still appear.
            await eventually(`Deployment ${app}`, () => getJSON<Deployment>(["get", "deployment", app]), 15_000);
          }
          await stillAbsent(`${effect.what} for ${app}`, () => effect.check(app));
        });
      } finally {
        await setClusterRoleRules(rules);
      }
    }, 60_000);
  }

  it("is minimal: without the leader-election Role the controller never leads and does nothing", async () => {
    const role = read("deploy/rbac.yaml").split("---").find((d) => d.includes("kind: Role\n"))!;
    await kubectl.ok(["delete", "role", "kubeloop-application-leader-election", "-n", "kubeloop-system"]);
    try {
      await withController(async (app) => {
        await stillAbsent(`a Deployment for ${app}`, async () => (await kubectl.run(["get", "deployment", app])).code === 0);
      });
    } finally {
      await kubectl.ok(["apply", "-f", "-"], role);
    }
    // And with the Role back, it converges again.
    await withController(converged);
  }, 60_000);
});
