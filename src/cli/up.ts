/**
 * `kubeloop up`: the API server and every controller in one process, the demo Application of
 * examples/application.yaml, and a live view of its object tree (Application → Deployment →
 * ReplicaSets → Pods, plus its Service and endpoints) until it converges — then what to try next.
 * The view stays live, so changing the Application's image shows the rolling update as it
 * happens. Without a TTY the view prints one line per change.
 */
import { readFileSync } from "node:fs";
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Endpoints, Pod, Service } from "kubernetes-types/core/v1.js";
import { parse } from "yaml";
import { isAlreadyExists } from "../apimachinery/errors.js";
import type { RunningControlPlane } from "../controlplane/index.js";
import { builtin } from "../client/typed.js";
import { applications, type Application } from "../controllers/application/index.js";
import { LiveView, applicationSummary, type ViewSink } from "./view.js";

export interface UpOptions {
  port: number;
  host: string;
  kubeconfigOut?: string;
  dataDir?: string;
  demo?: boolean;
  insecureHttp?: boolean;
  tokenAuthFile?: string;
  nodes?: number;
  heartbeatIntervalMs?: number;
}

export interface UpIO {
  out(line: string): void;
  stopSignal(): Promise<string>;
  /** Where the live view draws (stdout). */
  view: ViewSink;
}

export const DEMO_NAMESPACE = "default";
export const DEMO_NAME = "web";

/** The demo: examples/application.yaml, the same file the README and tutorial use. */
export function demoApplication(): Application {
  const path = new URL("../../examples/application.yaml", import.meta.url);
  return parse(readFileSync(path, "utf8")) as Application;
}

export function hints(kubeconfig: string): string[] {
  return [
    "",
    "The demo converged. Try, in another terminal:",
    `  export KUBECONFIG=${kubeconfig}`,
    "  kubectl get app,deploy,rs,pods,svc,endpoints -o wide",
    `  kubectl patch app ${DEMO_NAME} --type=merge -p '{"spec":{"image":"nginx:1.28"}}'   # watch it roll here`,
    `  kubectl scale app ${DEMO_NAME} --replicas=5`,
    `  kubectl rollout history deployment/${DEMO_NAME}`,
    `  kubectl delete app ${DEMO_NAME}      # the garbage collector removes its children`,
    "Stop with Ctrl-C.",
  ];
}

/** Draws the demo namespace's tree whenever one of its objects changes (at most every 100 ms). */
function startView(cp: RunningControlPlane, io: UpIO, onConverged: () => void): () => Promise<void> {
  const apps = cp.informers.forResource<Application>(applications);
  const deployments = cp.informers.forResource<Deployment>(builtin.deployments);
  const replicaSets = cp.informers.forResource<ReplicaSet>(builtin.replicaSets);
  const pods = cp.informers.forResource<Pod>(builtin.pods);
  const services = cp.informers.forResource<Service>(builtin.services);
  const endpoints = cp.informers.forResource<Endpoints>(builtin.endpoints);
  const view = new LiveView(io.view);
  let converged = false;
  let pending: NodeJS.Timeout | undefined;
  let footer: string[] = [];
  const draw = () => {
    pending = undefined;
    const ns = DEMO_NAMESPACE;
    const input = {
      applications: apps.lister().namespace(ns).list(),
      deployments: deployments.lister().namespace(ns).list(),
      replicaSets: replicaSets.lister().namespace(ns).list(),
      pods: pods.lister().namespace(ns).list(),
      services: services.lister().namespace(ns).list(),
      endpoints: endpoints.lister().namespace(ns).list(),
    };
    const demo = input.applications.find((a) => a.metadata?.name === DEMO_NAME);
    const justConverged = !converged && demo !== undefined && applicationSummary(demo).complete;
    if (justConverged) {
      converged = true;
      footer = hints(cp.api.kubeconfigPath);
    }
    view.draw(input, footer);
    if (justConverged) onConverged();
  };
  const schedule = () => {
    pending ??= setTimeout(draw, 100);
  };
  const handler = { onAdd: schedule, onUpdate: schedule, onDelete: schedule };
  const regs = [apps, deployments, replicaSets, pods, services, endpoints].map((i) => i.addEventHandler(handler));
  return async () => {
    if (pending) clearTimeout(pending);
    await Promise.all(regs.map((r) => r.remove()));
  };
}

export async function runUp(io: UpIO, opts: UpOptions): Promise<void> {
  const started = Date.now();
  const { startControlPlane } = await import("../controlplane/index.js");
  const cp = await startControlPlane({
    port: opts.port,
    host: opts.host,
    kubeconfigPath: opts.kubeconfigOut,
    dataDir: opts.dataDir,
    insecureHttp: opts.insecureHttp,
    auth: opts.tokenAuthFile ? { tokenAuthFile: opts.tokenAuthFile } : undefined,
    kubelet: { nodes: opts.nodes, heartbeatIntervalMs: opts.heartbeatIntervalMs },
  });
  try {
    await cp.ready;
    io.out(`kubeloop control plane ready in ${Date.now() - started} ms`);
    io.out(`  API server   ${cp.api.url}`);
    io.out("  controllers  application, deployment, replicaset, garbage collector, endpoints, simulated kubelet, namespace");
    io.out(`  kubeconfig   ${cp.api.kubeconfigPath}`);
    io.out(`  try          kubectl --kubeconfig ${cp.api.kubeconfigPath} get nodes`);
    let stopView: (() => Promise<void>) | undefined;
    if (opts.demo !== false) {
      const app = demoApplication();
      io.out("");
      io.out(`Applying the demo: application/${DEMO_NAME} (${app.spec?.replicas} × ${app.spec?.image}, a ClusterIP service) from examples/application.yaml`);
      io.out("");
      stopView = startView(cp, io, () => {
        if (!io.view.isTTY) for (const l of hints(cp.api.kubeconfigPath)) io.out(l);
      });
      try {
        await cp.client.resource<Application>(applications, DEMO_NAMESPACE).create(app);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        io.out(`application/${DEMO_NAME} already exists (kept from the data directory)`);
      }
    }
    const signal = await io.stopSignal();
    io.out(`received ${signal}, stopping`);
    await stopView?.();
  } finally {
    await cp.stop();
  }
}
