/**
 * `kubeloop up`: the API server and every controller in one process, a demo Deployment, and a
 * live view of its object tree until it converges — then what to try next. The view stays live,
 * so a `kubectl set image` shows the rolling update as it happens. Without a TTY the view prints
 * one line per change.
 */
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { isAlreadyExists } from "../apimachinery/errors.js";
import type { RunningControlPlane } from "../controlplane/index.js";
import { builtin } from "../client/typed.js";
import { LiveView, deploymentSummary, type ViewSink } from "./view.js";

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

export function demoDeployment(): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: DEMO_NAME, namespace: DEMO_NAMESPACE, labels: { app: DEMO_NAME } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: DEMO_NAME } },
      template: {
        metadata: { labels: { app: DEMO_NAME } },
        spec: { containers: [{ name: DEMO_NAME, image: "nginx:1.27", ports: [{ containerPort: 80 }] }] },
      },
    },
  };
}

export function hints(kubeconfig: string): string[] {
  return [
    "",
    "The demo converged. Try, in another terminal:",
    `  export KUBECONFIG=${kubeconfig}`,
    "  kubectl get deploy,rs,pods -o wide",
    `  kubectl set image deployment/${DEMO_NAME} ${DEMO_NAME}=nginx:1.28    # watch the rolling update here`,
    `  kubectl scale deployment/${DEMO_NAME} --replicas=6`,
    `  kubectl rollout undo deployment/${DEMO_NAME}`,
    `  kubectl delete deployment ${DEMO_NAME} --cascade=foreground`,
    "Stop with Ctrl-C.",
  ];
}

/** Draws the demo namespace's tree whenever deployments, replica sets or pods change (at most every 100 ms). */
function startView(cp: RunningControlPlane, io: UpIO, onConverged: () => void): () => Promise<void> {
  const deployments = cp.informers.forResource<Deployment>(builtin.deployments);
  const replicaSets = cp.informers.forResource<ReplicaSet>(builtin.replicaSets);
  const pods = cp.informers.forResource<Pod>(builtin.pods);
  const view = new LiveView(io.view);
  let converged = false;
  let pending: NodeJS.Timeout | undefined;
  let footer: string[] = [];
  const draw = () => {
    pending = undefined;
    const input = {
      deployments: deployments.lister().namespace(DEMO_NAMESPACE).list(),
      replicaSets: replicaSets.lister().namespace(DEMO_NAMESPACE).list(),
      pods: pods.lister().namespace(DEMO_NAMESPACE).list(),
    };
    const demo = input.deployments.find((d) => d.metadata?.name === DEMO_NAME);
    const justConverged = !converged && demo !== undefined && deploymentSummary(demo).complete;
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
  const regs = [deployments.addEventHandler(handler), replicaSets.addEventHandler(handler), pods.addEventHandler(handler)];
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
    io.out("  controllers  deployment, replicaset, garbage collector, endpoints, simulated kubelet");
    io.out(`  kubeconfig   ${cp.api.kubeconfigPath}`);
    io.out(`  try          kubectl --kubeconfig ${cp.api.kubeconfigPath} get nodes`);
    let stopView: (() => Promise<void>) | undefined;
    if (opts.demo !== false) {
      io.out("");
      io.out(`Creating the demo: deployment/${DEMO_NAME} (3 × nginx:1.27) in namespace ${DEMO_NAMESPACE}`);
      io.out("");
      stopView = startView(cp, io, () => {
        if (!io.view.isTTY) for (const l of hints(cp.api.kubeconfigPath)) io.out(l);
      });
      try {
        await cp.client.apps.v1.deployments(DEMO_NAMESPACE).create(demoDeployment());
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        io.out(`deployment/${DEMO_NAME} already exists (kept from the data directory)`);
      }
    }
    const signal = await io.stopSignal();
    io.out(`received ${signal}, stopping`);
    await stopView?.();
  } finally {
    await cp.stop();
  }
}
