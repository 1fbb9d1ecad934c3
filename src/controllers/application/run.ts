/**
 * `kubeloop controller application`: the Application controller as a process, on the runtime
 * Manager (shared informers, one Lease-based leader election, /metrics, /healthz, /readyz,
 * graceful shutdown on SIGINT/SIGTERM). `runApplicationController` takes the CLI's flags as
 * options; `createApplicationManager` builds the same thing without starting it.
 */
import type { Registry } from "prom-client";
import type { Clock } from "../../apimachinery/clock.js";
import type { TypedObject } from "../../apimachinery/types.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { KubeClient } from "../../client/kubeclient.js";
import { SharedInformerFactory } from "../../informers/factory.js";
import { dropManagedFields } from "../../informers/sharedinformer.js";
import { Manager, runUntilSignal, type LeaderElectionOptions } from "../../runtime/manager.js";
import { createLogger, type Logger } from "../../runtime/logging.js";
import type { Controller } from "../../runtime/controller.js";
import { DEFAULT_APPLICATION_WORKERS, setupApplicationController } from "./controller.js";
import { installApplicationCRD } from "./crd.js";
import { CONTROLLER_NAME } from "./types.js";

/** The Lease the controller's replicas compete for. */
export const LEADER_ELECTION_ID = "kubeloop-application-controller";
export const DEFAULT_METRICS_BIND_ADDRESS = ":8080";
export const DEFAULT_HEALTH_PROBE_BIND_ADDRESS = ":8081";

export interface RunApplicationControllerOptions {
  /** --kubeconfig: a kubeconfig file; absent: $KUBECONFIG, in-cluster, then ~/.kube/config (KubeClient.fromConfig). */
  kubeconfig?: string;
  /** --kube-api-qps / --kube-api-burst (default 20 / 30, as controller-runtime). */
  kubeApiQps?: number;
  kubeApiBurst?: number;
  /** --namespace: watch one namespace; "" or absent: all namespaces. */
  namespace?: string;
  /** --workers (default 2). */
  workers?: number;
  /** --leader-elect: run only while holding the Lease `leaderElectionId`. */
  leaderElect?: boolean;
  /** --leader-elect-resource-namespace: default the client's namespace (in-cluster: the pod's). */
  leaderElectionNamespace?: string;
  /** --leader-elect-resource-name (default kubeloop-application-controller). */
  leaderElectionId?: string;
  /** Lease timings (tests shorten them). */
  leaderElection?: Pick<LeaderElectionOptions, "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs" | "releaseOnCancel" | "id">;
  /** --metrics-bind-address (default ":8080"; "0" disables). */
  metricsBindAddress?: string;
  /** --health-probe-bind-address (default ":8081"; "0" disables). */
  healthProbeBindAddress?: string;
  /** --log-level: a level name or a klog verbosity (default info). */
  logLevel?: string;
  /** --selector: reconcile only Applications with matching labels. */
  labelSelector?: string;
  /** --install-crd: create/update the Application CRD first (needs CRD write permission). */
  installCRD?: boolean;
  /** Stops the controller; absent: SIGINT/SIGTERM (a second signal exits at once). */
  signal?: AbortSignal;
  /** How long shutdown waits for workers (default 30 000 ms). */
  gracefulShutdownTimeoutMs?: number;
  /** Use this client instead of loading a kubeconfig (embedding, tests). */
  client?: ResourceClientFactory;
  logger?: Logger;
  registry?: Registry;
  clock?: Clock;
}

export interface ApplicationManager {
  manager: Manager;
  controller: Controller;
  client: ResourceClientFactory;
  /** Closes the client when this module created it. */
  close(): Promise<void>;
}

/** Builds the manager and the controller from the options, without starting anything. */
export function createApplicationManager(opts: RunApplicationControllerOptions = {}): ApplicationManager {
  const logger: Logger = opts.logger ?? createLogger({ level: opts.logLevel, name: CONTROLLER_NAME });
  const workers = opts.workers ?? DEFAULT_APPLICATION_WORKERS;
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers must be a positive integer, got ${workers}`);
  let owned: KubeClient | undefined;
  let client = opts.client;
  if (!client) {
    owned = KubeClient.fromConfig({ kubeconfig: opts.kubeconfig, argv: [], rest: { qps: opts.kubeApiQps, burst: opts.kubeApiBurst, clock: opts.clock } });
    client = owned;
  }
  const clientNamespace = owned?.namespace ?? (client instanceof KubeClient ? client.namespace : "default");
  const informers = new SharedInformerFactory(client, {
    namespace: opts.namespace ?? "",
    clock: opts.clock,
    transform: dropManagedFields as (o: TypedObject) => TypedObject,
    logger,
  });
  const manager = new Manager({
    client,
    informers,
    leaderElection: opts.leaderElect
      ? {
          ...opts.leaderElection,
          namespace: opts.leaderElectionNamespace || clientNamespace,
          name: opts.leaderElectionId || LEADER_ELECTION_ID,
        }
      : false,
    metricsBindAddress: opts.metricsBindAddress ?? DEFAULT_METRICS_BIND_ADDRESS,
    healthProbeBindAddress: opts.healthProbeBindAddress ?? DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
    gracefulShutdownTimeoutMs: opts.gracefulShutdownTimeoutMs,
    clock: opts.clock,
    logger,
    registry: opts.registry,
  });
  const controller = setupApplicationController(manager, { labelSelector: opts.labelSelector, workers });
  return { manager, controller, client, close: async () => void (await owned?.close()) };
}

/**
 * Runs the Application controller until the signal aborts (or SIGINT/SIGTERM), then shuts down
 * gracefully. Rejects when the manager fails (lost leadership, cache sync timeout, bind errors).
 */
export async function runApplicationController(opts: RunApplicationControllerOptions = {}): Promise<void> {
  const am = createApplicationManager(opts);
  try {
    if (opts.installCRD) await installApplicationCRD(am.client, { signal: opts.signal, clock: opts.clock });
    if (opts.signal) await am.manager.start(opts.signal);
    else await runUntilSignal(am.manager);
  } finally {
    await am.close();
  }
}
