/**
 * The whole control plane: the embedded API server and every controller — Deployment,
 * ReplicaSet, garbage collector, simulated kubelet, Endpoints, Application (with its CRD
 * installed) — built with the builder on one Manager (one informer factory, one event
 * broadcaster, one metrics registry; no leader election, no HTTP endpoints), talking to the server
 * through a real KubeClient over the written kubeconfig (HTTPS with a client certificate, exactly
 * as kubectl does).
 *
 * The API server runs in the controllers' process and event loop by default, or in a worker
 * thread or a child process of its own (`apiServerIsolation`, isolation.ts): the controllers
 * reach it over HTTP(S) either way, so only the number of cores it can use changes.
 *
 * This is what `kubeloop up` runs and what end-to-end tests start.
 */
import { setMaxListeners } from "node:events";
import { Registry } from "prom-client";
import type { Clock } from "../apimachinery/clock.js";
import type { TypedObject } from "../apimachinery/types.js";
import { startApiServer, type RunningApiServer, type StartApiServerOptions } from "../apiserver/index.js";
import { KubeClient } from "../client/kubeclient.js";
import { installApplicationCRD } from "../controllers/application/index.js";
import { installDefaultStorageClass } from "../controllers/persistentvolume/index.js";
import { rootCAFromConfig } from "../controllers/serviceaccount/index.js";
import { apiBinder, simulatedContainerLog, simulatedResourceMetrics } from "../controllers/podlifecycle/index.js";
import { BUILTIN_CONTROLLERS, missingResources, setupController, type BuiltinControllerName, type ControllerSetupOptions } from "../controllers/registry.js";
import { ClientEventSink, EventBroadcaster } from "../events/index.js";
import { dropManagedFields, SharedInformerFactory } from "../informers/index.js";
import { silentLogger, type Logger } from "../runtime/logging.js";
import { Manager } from "../runtime/manager.js";
import { startIsolatedApiServer, type ApiServerIsolation, type IsolatedApiServer } from "./isolation.js";

export { ApiServerIsolationError, isolatedApiServerAvailable, type ApiServerIsolation, type IsolatedApiServer } from "./isolation.js";

export { apiBinder } from "../controllers/podlifecycle/index.js";
export { DEFAULT_WORKERS, type BuiltinControllerName, type ControllerSetupOptions } from "../controllers/registry.js";
export { selectControllers, controllerNamed, ControllerSelectionError } from "../controllers/selection.js";

export type ControllerName = BuiltinControllerName;

export const ALL_CONTROLLERS: readonly ControllerName[] = BUILTIN_CONTROLLERS;

export interface ControlPlaneOptions extends StartApiServerOptions {
  /**
   * Where the API server runs (default `"inline"`): in this process's event loop, in a worker
   * thread (`"thread"`), or in a child Node process (`"process"`) — a core of its own, as a real
   * kube-apiserver beside kube-controller-manager. Isolated, the server's options must be plain
   * data (no `clock`, no custom `server.admissionPlugins`, `server.podLogs` or codecs: an
   * {@link ApiServerIsolationError} says which), `api.server` is not in reach (use the API), and
   * the server runs from the built package (dist/), not from TypeScript sources.
   */
  apiServerIsolation?: ApiServerIsolation;
  /** Which controllers run (default: all). */
  controllers?: readonly ControllerName[];
  /** Simulated kubelet settings (nodes, heartbeat interval, delays, speed factor). */
  kubelet?: ControllerSetupOptions["kubelet"];
  /** Node lifecycle: --node-monitor-grace-period and --node-startup-grace-period (default 50 s and 60 s). */
  nodeLifecycle?: Pick<ControllerSetupOptions, "nodeMonitorGracePeriodMs" | "nodeStartupGracePeriodMs">;
  /** The HPA controller: --horizontal-pod-autoscaler-sync-period (default 15 s). */
  podAutoscaler?: Pick<ControllerSetupOptions, "horizontalPodAutoscalerSyncPeriodMs">;
  /** Workers per controller (upstream's defaults when absent). */
  workers?: Partial<Record<ControllerName, number>>;
  logger?: Logger;
  clock?: Clock;
}

/** The in-process API server of an `"inline"` control plane: the server object is in reach. */
export interface InlineApiServer extends RunningApiServer {
  isolation: "inline";
  /** The server's `startupWarnings`. */
  startupWarnings: readonly string[];
  /** Never resolves: an inline server's failures are the process's own. */
  crashed: Promise<Error>;
}

/** The API server of a control plane, inline or in a thread or process of its own. */
export type ControlPlaneApiServer = InlineApiServer | IsolatedApiServer;

export interface RunningControlPlane<A extends ControlPlaneApiServer = InlineApiServer> {
  /** The API server: URL, kubeconfig, CA, `stop()`; `isolation` tells which kind it is. */
  api: A;
  /** A client with no client-side rate limit, for in-process callers. */
  client: KubeClient;
  /** The manager every controller runs on. */
  manager: Manager;
  informers: SharedInformerFactory;
  /** Resolves once every informer of every controller has synced. */
  ready: Promise<void>;
  /** The controllers that run, in registry order: those enabled, less any skipped (resources not served, no CA, no heartbeats). */
  controllers: readonly ControllerName[];
  registry: Registry;
  stop(): Promise<void>;
}

/** The API server's own options among the control plane's. */
function apiServerOptions(opts: ControlPlaneOptions): StartApiServerOptions {
  const { port, host, dataDir, kubeconfigPath, logger, clock, server, insecureHttp, auth } = opts;
  return { port, host, dataDir, kubeconfigPath, logger, clock, server, insecureHttp, auth };
}

async function startControlPlaneApiServer(opts: ControlPlaneOptions): Promise<ControlPlaneApiServer> {
  // pods/log reads the simulated kubelet's containers' lines (they follow from each pod's status).
  // metrics.k8s.io serves the usage the simulated kubelet's containers report (podlifecycle/usage.ts).
  const kubelet = (opts.controllers ?? ALL_CONTROLLERS).includes("podlifecycle");
  const options = apiServerOptions(opts);
  const isolation = opts.apiServerIsolation ?? "inline";
  if (isolation !== "inline") {
    const simulated = kubelet && !opts.server?.podLogs && !opts.server?.resourceMetrics;
    return startIsolatedApiServer(isolation, { ...options, ...(simulated ? { simulatedKubelet: { speedFactor: opts.kubelet?.speedFactor } } : {}) });
  }
  const podLogs = kubelet ? (opts.server?.podLogs ?? simulatedContainerLog) : opts.server?.podLogs;
  const resourceMetrics = kubelet ? (opts.server?.resourceMetrics ?? simulatedResourceMetrics({ speedFactor: opts.kubelet?.speedFactor })) : opts.server?.resourceMetrics;
  const api = await startApiServer({ ...options, server: { ...options.server, podLogs, resourceMetrics } });
  return Object.assign(api, { isolation: "inline" as const, startupWarnings: api.server.startupWarnings, crashed: new Promise<Error>(() => {}) });
}

/**
 * Starts the API server and the controllers; resolves once the server listens and every
 * controller is set up (`ready` resolves when their caches have synced).
 */
export function startControlPlane(opts?: ControlPlaneOptions & { apiServerIsolation?: "inline" }): Promise<RunningControlPlane<InlineApiServer>>;
export function startControlPlane(opts: ControlPlaneOptions & { apiServerIsolation: "thread" | "process" }): Promise<RunningControlPlane<IsolatedApiServer>>;
export function startControlPlane(opts: ControlPlaneOptions): Promise<RunningControlPlane<ControlPlaneApiServer>>;
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<RunningControlPlane<ControlPlaneApiServer>> {
  const logger: Logger = opts.logger ?? silentLogger();
  const api = await startControlPlaneApiServer(opts);
  try {
    return await startControllers(opts, api, logger);
  } catch (err) {
    await api.stop();
    throw err;
  }
}

async function startControllers(opts: ControlPlaneOptions, api: ControlPlaneApiServer, logger: Logger): Promise<RunningControlPlane<ControlPlaneApiServer>> {
  const client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, kubeconfigEnv: "", rest: { qps: -1, clock: opts.clock } });
  const informers = new SharedInformerFactory(client, {
    clock: opts.clock,
    transform: dropManagedFields as (o: TypedObject) => TypedObject,
    logger,
  });
  const registry = new Registry();
  // Events as kube-controller-manager records them: the controller as source, no host.
  const broadcaster = new EventBroadcaster({ clock: opts.clock, registry });
  const sink = broadcaster.startRecordingToSink(new ClientEventSink(client));
  const manager = new Manager({
    client,
    informers,
    clock: opts.clock,
    logger,
    registry,
    recorderProvider: (component) => broadcaster.newRecorder({ component }),
  });
  const enabled = new Set(opts.controllers ?? ALL_CONTROLLERS);
  // The Application CRD goes in before the garbage collector's first discovery, so Applications are in its graph.
  if (enabled.has("application")) await installApplicationCRD(client);
  // The default StorageClass goes with its provisioner (minikube's storage-provisioner addon does the same).
  if (enabled.has("volumeprovisioner")) await installDefaultStorageClass(client);
  const rootCA = rootCAFromConfig(client.config);
  // Legacy token secrets are signed by the server's own ServiceAccountTokens (the key stays in the server).
  const tokenGenerator = api.isolation === "inline" ? api.server.access?.serviceAccountTokens : api.legacyTokens;
  const running: ControllerName[] = [];
  for (const name of ALL_CONTROLLERS) {
    if (!enabled.has(name)) continue;
    if (name === "serviceaccounttoken" && tokenGenerator === undefined) {
      logger.warn({ controller: name, reason: "the API server has no service-account signing key" }, "Skipping controller");
      continue;
    }
    if (name === "rootcacertpublisher" && rootCA === undefined) {
      logger.warn({ controller: name, reason: "the API server serves plain HTTP: there is no CA to publish" }, "Skipping controller");
      continue;
    }
    const missing = await missingResources(name, client.discoveryClient);
    if (missing) {
      logger.warn({ controller: name, reason: missing }, "Skipping controller: the resources it needs are not served");
      continue;
    }
    if (setupController(manager, name, { ...opts.nodeLifecycle, ...opts.podAutoscaler, workers: opts.workers?.[name], discovery: client.discoveryClient, kubelet: opts.kubelet, binder: apiBinder(client), rootCA, tokenGenerator })) {
      running.push(name);
    }
  }

  const ac = new AbortController();
  // Every informer, controller and watch listens on this one signal (through the manager's).
  setMaxListeners(0, ac.signal);
  const managerDone = manager.start(ac.signal).catch((err: unknown) => {
    if (!ac.signal.aborted) logger.error({ err }, "the control plane's controllers stopped with an error");
  });
  const ready = manager.waitForCacheSync(ac.signal).then(() => undefined);
  let stopped: Promise<void> | undefined;
  return {
    api,
    client,
    manager,
    informers,
    ready,
    registry,
    controllers: running,
    stop: () =>
      (stopped ??= (async () => {
        ac.abort();
        await managerDone;
        await sink.stop();
        await broadcaster.shutdown();
        await client.close();
        await api.stop();
      })()),
  };
}
