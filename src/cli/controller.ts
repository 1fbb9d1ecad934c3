/**
 * `kubeloop controller <name>`: one controller against any cluster through a kubeconfig (or
 * in-cluster config), built on a Manager exactly as startControlPlane builds it — shared
 * informers, optional Lease leader election, /metrics and /healthz + /readyz, graceful shutdown —
 * as a kube-controller-manager controller would run.
 */
import type { Clock } from "../apimachinery/clock.js";
import type { TypedObject } from "../apimachinery/types.js";
import { KubeClient } from "../client/kubeclient.js";
import { ConfigError } from "../client/errors.js";
import { rootCAFromConfig } from "../controllers/serviceaccount/index.js";
import { apiBinder } from "../controllers/podlifecycle/index.js";
import { ControllerSetupError, DEFAULT_WORKERS, isBuiltinControllerName, missingResources, setupController, type BuiltinControllerName } from "../controllers/registry.js";
import { createLogger, type Logger } from "../runtime/logging.js";
import { Manager } from "../runtime/manager.js";
import { dropManagedFields, SharedInformerFactory } from "../informers/index.js";
import { LEADER_ELECTION_ID } from "../controllers/application/run.js";
import { FlagError, leaderElectionOf, type LeaderElectionFlags } from "./flags.js";

/** The workers each controller runs by default (the controllers' table). */
export const CONTROLLER_DEFAULT_WORKERS = DEFAULT_WORKERS;

export type RunnableControllerName = BuiltinControllerName;

export function isControllerName(n: string): n is RunnableControllerName {
  return isBuiltinControllerName(n);
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
  const logger: Logger = opts.logger ?? createLogger({ level: opts.logLevel, name: `kubeloop-${name}` });
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
  const missing = await missingResources(name, client.discoveryClient);
  if (missing) {
    await client.close();
    throw new ControllerSetupError(`controller ${name} cannot run against this server: ${missing}`);
  }
  setupController(manager, name, { workers: opts.workers, discovery: client.discoveryClient, binder: apiBinder(client), rootCA: rootCAFromConfig(client.config) });
  try {
    await manager.start(stop);
  } finally {
    await client.close();
  }
}
