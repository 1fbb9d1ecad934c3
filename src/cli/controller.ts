/**
 * `kubeloop controller <name>`: one controller against any cluster through a kubeconfig (or
 * in-cluster config), run by the runtime Manager — shared informers, optional Lease leader
 * election, /metrics and /healthz + /readyz, graceful shutdown — as a kube-controller-manager
 * controller would run.
 */
import { setMaxListeners } from "node:events";
import type { Clock } from "../apimachinery/clock.js";
import { KubeClient } from "../client/kubeclient.js";
import { ConfigError } from "../client/errors.js";
import { DeploymentController } from "../controllers/deployment/index.js";
import { EndpointsController } from "../controllers/endpoints/index.js";
import { GarbageCollector } from "../controllers/garbagecollector/index.js";
import { PodLifecycleSimulator } from "../controllers/podlifecycle/index.js";
import { ReplicaSetController } from "../controllers/replicaset/index.js";
import { createLogger, type Logger } from "../runtime/logging.js";
import { Manager } from "../runtime/manager.js";
import { dropManagedFields, SharedInformerFactory } from "../informers/index.js";
import type { TypedObject } from "../apimachinery/types.js";
import { apiBinder } from "../controlplane/index.js";

export const CONTROLLER_DEFAULT_WORKERS = {
  deployment: 5,
  replicaset: 5,
  garbagecollector: 20,
  endpoints: 5,
  podlifecycle: 4,
  application: 2,
} as const;

export type RunnableControllerName = keyof typeof CONTROLLER_DEFAULT_WORKERS;

export function isControllerName(n: string): n is RunnableControllerName {
  return Object.hasOwn(CONTROLLER_DEFAULT_WORKERS, n);
}

export interface ControllerCommandOptions {
  kubeconfig?: string;
  /** Watch one namespace; all when absent. */
  namespace?: string;
  workers?: number;
  leaderElect?: boolean;
  leaderElectNamespace?: string;
  metricsBindAddress?: string;
  healthProbeBindAddress?: string;
  logLevel?: string;
  logger?: Logger;
  clock?: Clock;
}

export class ControllerCommandError extends Error {}

/** Builds the client the way kubectl and client-go controllers do: --kubeconfig, else KUBECONFIG / ~/.kube/config, else in-cluster. */
export function clientFor(kubeconfig: string | undefined): KubeClient {
  try {
    if (kubeconfig) return KubeClient.fromKubeconfig({ kubeconfigPath: kubeconfig, rest: { qps: 50, burst: 100 } });
    return KubeClient.fromEnvironment({ rest: { qps: 50, burst: 100 } });
  } catch (err) {
    if (err instanceof ConfigError) throw new ControllerCommandError(err.message);
    throw err;
  }
}

/** Runs controller `name` until `stop` aborts; rejects on a fatal error (e.g. lost leadership). */
export async function runController(name: RunnableControllerName, opts: ControllerCommandOptions, stop: AbortSignal): Promise<void> {
  if (name === "application") {
    // The Application controller has its own runner (CRD install, selector flag, defaults as sample-controller).
    const { runApplicationController } = await import("../controllers/application/index.js");
    await runApplicationController({
      kubeconfig: opts.kubeconfig,
      namespace: opts.namespace,
      workers: opts.workers,
      leaderElect: opts.leaderElect,
      leaderElectionNamespace: opts.leaderElectNamespace,
      metricsBindAddress: opts.metricsBindAddress,
      healthProbeBindAddress: opts.healthProbeBindAddress,
      logLevel: opts.logLevel,
      signal: stop,
    });
    return;
  }
  const logger: Logger = opts.logger ?? createLogger({ level: opts.logLevel, name: `kubeloop-${name}` });
  const client = clientFor(opts.kubeconfig);
  const informers = new SharedInformerFactory(client, {
    namespace: opts.namespace ?? "",
    clock: opts.clock,
    transform: dropManagedFields as (o: TypedObject) => TypedObject,
    onError: (message, err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, message),
  });
  const manager = new Manager({
    client,
    informers,
    leaderElection: opts.leaderElect ? { namespace: opts.leaderElectNamespace ?? "kube-system", name: `kubeloop-${name}-controller` } : false,
    metricsBindAddress: opts.metricsBindAddress,
    healthProbeBindAddress: opts.healthProbeBindAddress,
    logger,
    clock: opts.clock,
  });
  const workers = opts.workers ?? CONTROLLER_DEFAULT_WORKERS[name];
  const common = { client, informers, logger, clock: opts.clock };
  let run: (s: AbortSignal) => Promise<void>;
  switch (name) {
    case "deployment": {
      // Built on the manager: it runs as one of the manager's controllers.
      new DeploymentController(manager, { workers });
      run = async () => {};
      break;
    }
    case "replicaset": {
      new ReplicaSetController(manager, { workers });
      run = async () => {};
      break;
    }
    case "garbagecollector": {
      new GarbageCollector(manager, { discovery: client.discoveryClient, workers });
      run = async () => {};
      break;
    }
    case "endpoints": {
      new EndpointsController(manager, { workers });
      run = async () => {};
      break;
    }
    case "podlifecycle": {
      new PodLifecycleSimulator(manager, { workers, binder: apiBinder(client), placement: "bind" });
      run = async () => {};
      break;
    }
  }
  manager.add({ name, run });
  // Every informer and watch listens on this one signal.
  setMaxListeners(0, stop);
  try {
    await manager.start(stop);
  } finally {
    await client.close();
  }
}
