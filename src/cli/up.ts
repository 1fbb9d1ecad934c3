/**
 * `kubeloop up`: the API server and every controller in one process, the demo Application of
 * examples/application.yaml, and a live view of its object tree (Application → Deployment →
 * ReplicaSets → Pods, plus its Service and endpoints) until it converges — then what to try next.
 * The view also shows the namespace's other Deployments, CronJobs → Jobs, Jobs, StatefulSets and
 * DaemonSets with their pods. The view stays live, so changing the Application's image shows the rolling update as it
 * happens. Without a TTY the view prints one line per change.
 *
 * Like kind and k3d, it merges a "kubeloop" context into the user's kubeconfig (KUBECONFIG's first
 * file, else ~/.kube/config) and makes it current, so plain `kubectl` works in any terminal
 * (`--kubeconfig-update-default=false` opts out). It listens on a stable port (6443) when that is
 * free, so the context stays valid across restarts. On exit the context is removed (and the
 * previous current-context restored) — unless `--data-dir` keeps the cluster, in which case the
 * context is kept too and is valid again as soon as `kubeloop up` runs with the same data directory.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parse } from "yaml";
import { isAlreadyExists } from "../apimachinery/errors.js";
import type { ApiServerIsolation, ControlPlaneApiServer, RunningControlPlane } from "../controlplane/index.js";
import { builtin } from "../client/typed.js";
import { applications, type Application } from "../controllers/application/index.js";
import { createLogger } from "../runtime/logging.js";
import { choosePort } from "./upport.js";
import { defaultKubeconfigFile, mergeKubeconfig, removeFromKubeconfig } from "./userkubeconfig.js";
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
  /** Log level of the control plane's components, written to stderr (default "silent": the live view is the output). */
  logLevel?: string;
  /** Merge the kubeloop context into the user's kubeconfig (default true). */
  kubeconfigUpdateDefault?: boolean;
  /** Make it the current context (default true). */
  kubeconfigSwitchContext?: boolean;
  /** Environment and home directory used to find the user's kubeconfig (tests). */
  env?: Record<string, string | undefined>;
  homeDir?: string;
  acceptDataLoss?: boolean;
  /** kube-controller-manager's --controllers list ("*", "foo", "-foo"; default "*"). */
  controllers?: string;
  /** Where the API server runs (--apiserver-isolation; default: {@link defaultUpIsolation}). */
  apiServerIsolation?: ApiServerIsolation;
}

/**
 * `kubeloop up`'s default: the API server in a process of its own when there is more than one
 * CPU to give it (and the package is built: TypeScript sources run by a test runner keep it
 * inline), else in the controllers' process.
 */
export function defaultUpIsolation(cpus = availableParallelism(), built?: boolean): ApiServerIsolation {
  return cpus > 1 && (built ?? true) ? "process" : "inline";
}

function describeIsolation(api: ControlPlaneApiServer): string {
  if (api.isolation === "process") return ` (own process, pid ${api.pid})`;
  if (api.isolation === "thread") return ` (own thread)`;
  return "";
}

export interface UpIO {
  out(line: string): void;
  /** Where log lines and warnings go (stderr). */
  err?(line: string): void;
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

/**
 * What to try next. Every command acts on the Application (the Deployment is its child: the
 * controller reverts changes made to the Deployment directly), or only reads.
 */
export function hints(kubeconfig: string | undefined): string[] {
  return [
    "",
    "The demo converged. Try, in another terminal:",
    ...(kubeconfig ? [`  export KUBECONFIG=${kubeconfig}`] : []),
    "  kubectl get app,deploy,rs,pods,svc,endpoints -o wide",
    `  kubectl patch app ${DEMO_NAME} --type=merge -p '{"spec":{"image":"nginx:1.28"}}'   # watch it roll here`,
    `  kubectl rollout status deployment/${DEMO_NAME}; kubectl rollout history deployment/${DEMO_NAME}`,
    `  kubectl scale app ${DEMO_NAME} --replicas=5`,
    `  kubectl patch app ${DEMO_NAME} --type=merge -p '{"spec":{"paused":true}}'   # pause rollouts (kubectl rollout pause would be reverted)`,
    `  kubectl annotate app ${DEMO_NAME} kubeloop.dev/paused=true   # stop reconciling it; hand edits then stick`,
    `  kubectl delete app ${DEMO_NAME}      # the garbage collector removes its children`,
    "Stop with Ctrl-C.",
  ];
}

/** Draws the demo namespace's tree whenever one of its objects changes (at most every 100 ms). */
function startView(cp: RunningControlPlane<ControlPlaneApiServer>, io: UpIO, hintKubeconfig: string | undefined, onConverged: () => void): () => Promise<void> {
  const apps = cp.informers.forResource(applications);
  const deployments = cp.informers.forResource(builtin.deployments);
  const replicaSets = cp.informers.forResource(builtin.replicaSets);
  const pods = cp.informers.forResource(builtin.pods);
  const services = cp.informers.forResource(builtin.services);
  const endpoints = cp.informers.forResource(builtin.endpoints);
  // Jobs, CronJobs, StatefulSets and DaemonSets through the informers their controllers already
  // run (none is started for the view; a kind whose controller --controllers leaves out is not shown).
  const workloads = {
    jobs: cp.informers.existing(builtin.jobs),
    cronJobs: cp.informers.existing(builtin.cronJobs),
    statefulSets: cp.informers.existing(builtin.statefulSets),
    daemonSets: cp.informers.existing(builtin.daemonSets),
  };
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
      jobs: workloads.jobs?.lister().namespace(ns).list(),
      cronJobs: workloads.cronJobs?.lister().namespace(ns).list(),
      statefulSets: workloads.statefulSets?.lister().namespace(ns).list(),
      daemonSets: workloads.daemonSets?.lister().namespace(ns).list(),
    };
    const demo = input.applications.find((a) => a.metadata?.name === DEMO_NAME);
    const justConverged = !converged && demo !== undefined && applicationSummary(demo).complete;
    if (justConverged) {
      converged = true;
      footer = hints(hintKubeconfig);
    }
    view.draw(input, footer);
    if (justConverged) onConverged();
  };
  const schedule = () => {
    pending ??= setTimeout(draw, 100);
  };
  const handler = { onAdd: schedule, onUpdate: schedule, onDelete: schedule };
  const regs = [apps, deployments, replicaSets, pods, services, endpoints, ...Object.values(workloads).filter((i) => i !== undefined)].map((i) => i.addEventHandler(handler));
  return async () => {
    if (pending) clearTimeout(pending);
    await Promise.all(regs.map((r) => r.remove()));
  };
}

export async function runUp(io: UpIO, opts: UpOptions): Promise<void> {
  const started = Date.now();
  const { startControlPlane, selectControllers, isolatedApiServerAvailable } = await import("../controlplane/index.js");
  const controllers = selectControllers(opts.controllers ?? "*");
  const logger = createLogger({ level: opts.logLevel ?? "silent", name: "kubeloop", pretty: true, destination: { write: (l) => (io.err ?? io.out)(l.replace(/\n$/, "")) } });
  const cp = await startControlPlane({
    port: await choosePort(opts.host, opts.port),
    host: opts.host,
    logger,
    kubeconfigPath: opts.kubeconfigOut,
    dataDir: opts.dataDir,
    insecureHttp: opts.insecureHttp,
    auth: opts.tokenAuthFile ? { tokenAuthFile: opts.tokenAuthFile } : undefined,
    kubelet: { nodes: opts.nodes, heartbeatIntervalMs: opts.heartbeatIntervalMs },
    controllers,
    apiServerIsolation: opts.apiServerIsolation ?? defaultUpIsolation(undefined, isolatedApiServerAvailable()),
    server: opts.acceptDataLoss ? { persistence: { acceptDataLoss: true } } : undefined,
  });
  let userKubeconfig: string | undefined;
  let context: string | undefined;
  try {
    for (const w of cp.api.startupWarnings) io.err?.(`warning: ${w}`);
    await cp.ready;
    if (opts.kubeconfigUpdateDefault !== false) {
      userKubeconfig = defaultKubeconfigFile(opts.env, opts.homeDir);
      context = mergeKubeconfig({ from: cp.api.kubeconfigPath, into: userKubeconfig, switchContext: opts.kubeconfigSwitchContext !== false });
    }
    io.out(`kubeloop control plane ready in ${Date.now() - started} ms`);
    io.out(`  API server   ${cp.api.url}${describeIsolation(cp.api)}`);
    io.out(`  controllers  ${cp.controllers.join(", ")}`);
    io.out(`  kubeconfig   ${cp.api.kubeconfigPath}`);
    if (userKubeconfig) {
      const keep = opts.dataDir ? "kept on exit (the data directory keeps the cluster)" : "removed on exit";
      io.out(`  context      ${context} in ${userKubeconfig} (${opts.kubeconfigSwitchContext !== false ? "current; " : ""}${keep})`);
    }
    const kubectlPrefix = userKubeconfig && opts.kubeconfigSwitchContext !== false ? "kubectl" : userKubeconfig ? `kubectl --context ${context}` : `kubectl --kubeconfig ${cp.api.kubeconfigPath}`;
    io.out(`  try          ${kubectlPrefix} get nodes`);
    const hintKubeconfig = userKubeconfig ? undefined : cp.api.kubeconfigPath;
    let stopView: (() => Promise<void>) | undefined;
    if (opts.demo !== false && !cp.controllers.includes("application")) {
      io.out("");
      io.out("No demo: it needs the application controller, which --controllers leaves out");
    } else if (opts.demo !== false) {
      const app = demoApplication();
      io.out("");
      io.out(`Applying the demo: application/${DEMO_NAME} (${app.spec?.replicas} × ${app.spec?.image}, a ClusterIP service) from examples/application.yaml`);
      io.out("");
      stopView = startView(cp, io, hintKubeconfig, () => {
        if (!io.view.isTTY) for (const l of hints(hintKubeconfig)) io.out(l);
      });
      try {
        await cp.client.resource(applications, DEMO_NAMESPACE).create(app);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        io.out(`application/${DEMO_NAME} already exists (kept from the data directory)`);
      }
    }
    // Until asked to stop — or until an API server of its own process or thread ends on its own.
    const ended = await Promise.race([io.stopSignal().then((signal) => ({ signal })), cp.api.crashed.then((crash) => ({ crash }))]);
    if ("crash" in ended) throw ended.crash;
    io.out(`received ${ended.signal}, stopping`);
    await stopView?.();
  } finally {
    if (userKubeconfig && context && !opts.dataDir) {
      try {
        removeFromKubeconfig(userKubeconfig, context);
      } catch (err) {
        io.out(`could not remove context ${context} from ${userKubeconfig}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    await cp.stop();
  }
}
