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
import { LEADER_ELECTION_ID } from "../controllers/application/run.js";
import { FlagError, leaderElectionOf, type LeaderElectionFlags } from "./flags.js";

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

export interface ControllerCommandOptions extends Partial<LeaderElectionFlags> {
  kubeconfig?: string;
  kubeApiQps?: number;
  kubeApiBurst?: number;
  /** Watch one namespace; all when absent. */
  namespace?: string;
  workers?: number;
  metricsBindAddress?: string;
  healthProbeBindAddress?: string;
  logLevel?: string;
  logger?: Logger;
  clock?: Clock;
}

/** The Lease `kubeloop controller <name>` competes for (--leader-elect-resource-name's default). */
export function defaultLeaseName(name: RunnableControllerName): string {
  return name === "application" ? LEADER_ELECTION_ID : `kubeloop-${name}-controller`;
}

export class ControllerCommandError extends Error {}

/** The client of the flags: KubeClient.fromConfig (--kubeconfig, KUBECONFIG, in-cluster, ~/.kube/config). */
export function clientFor(opts: Pick<ControllerCommandOptions, "kubeconfig" | "kubeApiQps" | "kubeApiBurst" | "clock">): KubeClient {
  try {
    return KubeClient.fromConfig({ kubeconfig: opts.kubeconfig, argv: [], rest: { qps: opts.kubeApiQps, burst: opts.kubeApiBurst, clock: opts.clock } });
  } catch (err) {
    if (err instanceof ConfigError) throw new ControllerCommandError(err.message);
    throw err;
  }
}

/** Runs controller `name` until `stop` aborts; rejects on a fatal error (e.g. lost leadership). */
export async function runController(name: RunnableControllerName, opts: ControllerCommandOptions, stop: AbortSignal): Promise<void> {
  let election: ReturnType<typeof leaderElectionOf>;
  try {
    election = leaderElectionOf(opts, defaultLeaseName(name));
  } catch (err) {
    if (err instanceof FlagError) throw new ControllerCommandError(err.message);
    throw err;
  }
  if (name === "application") {
    // The Application controller has its own runner (CRD install, selector flag, defaults as sample-controller).
    const { runApplicationController } = await import("../controllers/application/index.js");
    await runApplicationController({
      kubeconfig: opts.kubeconfig,
      namespace: opts.namespace,
      kubeApiQps: opts.kubeApiQps,
      kubeApiBurst: opts.kubeApiBurst,
      workers: opts.workers,
      leaderElect: election !== undefined,
      leaderElectionNamespace: election?.namespace,
      leaderElectionId: election?.name,
      leaderElection: election && {
        leaseDurationMs: election.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs,
        releaseOnCancel: election.releaseOnCancel,
      },
      metricsBindAddress: opts.metricsBindAddress,
      healthProbeBindAddress: opts.healthProbeBindAddress,
      logLevel: opts.logLevel,
      signal: stop,
    });
    return;
  }
  const logger = opts.logger ?? createLogger({ level: opts.logLevel, name: `kubeloop-${name}` });
  const client = clientFor(opts);
  const informers = new SharedInformerFactory(client, {
    namespace: opts.namespace ?? "",
    clock: opts.clock,
    transform: dropManagedFields as (o: TypedObject) => TypedObject,
    logger,
  });
  const manager = new Manager({
    client,
    informers,
    // The Lease lives where this process runs (the pod's namespace, else the kubeconfig context's).
    leaderElection: election ? { ...election, namespace: election.namespace ?? client.namespace } : false,
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
      const c = new DeploymentController({ ...common, recorder: manager.eventRecorder("deployment-controller") });
      run = (s) => c.run(s, workers);
      break;
    }
    case "replicaset": {
      const c = new ReplicaSetController({ ...common, recorder: manager.eventRecorder("replicaset-controller"), registry: manager.registry });
      run = (s) => c.run(s, workers);
      break;
    }
    case "garbagecollector": {
      const c = new GarbageCollector({ ...common, discovery: client.discoveryClient, recorder: manager.eventRecorder("garbage-collector-controller") });
      run = (s) => c.run(s, workers);
      break;
    }
    case "endpoints": {
      const c = new EndpointsController({ ...common, registry: manager.registry });
      run = (s) => c.run(s, workers);
      break;
    }
    case "podlifecycle": {
      const c = new PodLifecycleSimulator({ ...common, recorder: manager.eventRecorder("kubelet"), registry: manager.registry, binder: apiBinder(client), placement: "bind" });
      run = (s) => c.run(s, workers);
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
