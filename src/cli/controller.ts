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
import { apiBinder } from "../controllers/podlifecycle/index.js";
import { ControllerSetupError, DEFAULT_WORKERS, isBuiltinControllerName, missingResources, setupController, type BuiltinControllerName } from "../controllers/registry.js";
import { createLogger, type Logger } from "../runtime/logging.js";
import { Manager } from "../runtime/manager.js";
import { dropManagedFields, SharedInformerFactory } from "../informers/index.js";

/** The workers each controller runs by default (the controllers' table). */
export const CONTROLLER_DEFAULT_WORKERS = DEFAULT_WORKERS;

export type RunnableControllerName = BuiltinControllerName;

export function isControllerName(n: string): n is RunnableControllerName {
  return isBuiltinControllerName(n);
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
  const missing = await missingResources(name, client.discoveryClient);
  if (missing) {
    await client.close();
    throw new ControllerSetupError(`controller ${name} cannot run against this server: ${missing}`);
  }
  setupController(manager, name, { workers: opts.workers, discovery: client.discoveryClient, binder: apiBinder(client) });
  try {
    await manager.start(stop);
  } finally {
    await client.close();
  }
}
