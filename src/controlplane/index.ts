/**
 * The whole control plane in one process: the embedded API server and every controller —
 * Deployment, ReplicaSet, garbage collector, simulated kubelet, Endpoints, Application (with
 * its CRD installed) — sharing one informer
 * factory and one event broadcaster, talking to the server through a real KubeClient over the
 * written kubeconfig (HTTPS with a client certificate, exactly as kubectl does).
 *
 * This is what `kubeloop up` runs and what end-to-end tests start.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { setMaxListeners } from "node:events";
import { Registry } from "prom-client";
import type { Clock } from "../apimachinery/clock.js";
import { startApiServer, type RunningApiServer, type StartApiServerOptions } from "../apiserver/index.js";
import { KubeClient } from "../client/kubeclient.js";
import { DeploymentController } from "../controllers/deployment/index.js";
import { EndpointsController } from "../controllers/endpoints/index.js";
import { GarbageCollector } from "../controllers/garbagecollector/index.js";
import { installApplicationCRD, setupApplicationController } from "../controllers/application/index.js";
import { PodLifecycleSimulator, type PodBinder, type PodLifecycleSimulatorOptions } from "../controllers/podlifecycle/index.js";
import { ReplicaSetController } from "../controllers/replicaset/index.js";
import { ClientEventSink, EventBroadcaster } from "../events/index.js";
import { dropManagedFields, SharedInformerFactory } from "../informers/index.js";
import type { TypedObject } from "../apimachinery/types.js";
import { silentLogger, type Logger } from "../runtime/logging.js";
import { Manager } from "../runtime/manager.js";

export type ControllerName = "deployment" | "replicaset" | "garbagecollector" | "podlifecycle" | "endpoints" | "application";

export const ALL_CONTROLLERS: readonly ControllerName[] = ["deployment", "replicaset", "garbagecollector", "podlifecycle", "endpoints", "application"];

export interface ControlPlaneOptions extends StartApiServerOptions {
  /** Which controllers run (default: all). */
  controllers?: readonly ControllerName[];
  /** Simulated kubelet settings (nodes, heartbeat interval, delays, speed factor). */
  kubelet?: Pick<PodLifecycleSimulatorOptions, "nodes" | "heartbeatIntervalMs" | "delays" | "speedFactor" | "capacity">;
  /** Workers per controller (upstream's defaults when absent). */
  workers?: Partial<Record<ControllerName, number>>;
  logger?: Logger;
  clock?: Clock;
}

export interface RunningControlPlane {
  api: RunningApiServer;
  /** A client with no client-side rate limit, for in-process callers. */
  client: KubeClient;
  informers: SharedInformerFactory;
  /** Resolves once every informer of every controller has synced. */
  ready: Promise<void>;
  registry: Registry;
  stop(): Promise<void>;
}

/** Binds pods through the pods/binding subresource, as a scheduler does. */
export function apiBinder(client: KubeClient): PodBinder {
  return async (pod: Pod, nodeName: string, signal?: AbortSignal) => {
    const ns = pod.metadata?.namespace ?? "default";
    const name = pod.metadata?.name ?? "";
    await client.transport.requestJSON({
      method: "POST",
      path: `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}/binding`,
      body: JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name, namespace: ns }, target: { apiVersion: "v1", kind: "Node", name: nodeName } }),
      contentType: "application/json",
      signal,
      target: { group: "", resource: "pods", name },
    });
  };
}

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<RunningControlPlane> {
  const logger: Logger = opts.logger ?? silentLogger();
  const api = await startApiServer(opts);
  const client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, kubeconfigEnv: "", rest: { qps: -1, clock: opts.clock } });
  const informers = new SharedInformerFactory(client, {
    clock: opts.clock,
    transform: dropManagedFields as (o: TypedObject) => TypedObject,
    onError: (message, err) => logger.warn({ err: err instanceof Error ? err.message : err }, message),
  });
  const registry = new Registry();
  const broadcaster = new EventBroadcaster({ clock: opts.clock, registry });
  const sink = broadcaster.startRecordingToSink(new ClientEventSink(client));
  const enabled = new Set(opts.controllers ?? ALL_CONTROLLERS);
  // Controllers built with the builder run on this manager (no leader election, no HTTP servers).
  const manager = new Manager({ client, informers, clock: opts.clock, logger, registry, recorderProvider: (component) => broadcaster.newRecorder({ component }) });
  const common = { client, informers, clock: opts.clock };
  const runners: Array<(signal: AbortSignal) => Promise<void>> = [];

  if (enabled.has("deployment")) {
    new DeploymentController(manager, { workers: opts.workers?.deployment ?? 5 });
  }
  if (enabled.has("replicaset")) {
    new ReplicaSetController(manager, { workers: opts.workers?.replicaset ?? 5 });
  }
  if (enabled.has("podlifecycle")) {
    new PodLifecycleSimulator(manager, { ...opts.kubelet, workers: opts.workers?.podlifecycle ?? 4, binder: apiBinder(client), placement: "bind" });
  }
  if (enabled.has("endpoints")) {
    new EndpointsController(manager, { workers: opts.workers?.endpoints ?? 5 });
  }
  if (enabled.has("application")) {
    // Installed before the garbage collector's first discovery, so Applications are in its graph.
    await installApplicationCRD(client);
    setupApplicationController(manager, { workers: opts.workers?.application ?? 2 });
  }
  if (enabled.has("garbagecollector")) {
    new GarbageCollector(manager, { discovery: client.discoveryClient, workers: opts.workers?.garbagecollector ?? 20 });
  }

  runners.push((s) => manager.start(s));
  const ac = new AbortController();
  // Every informer, controller and watch listens on this one signal.
  setMaxListeners(0, ac.signal);
  informers.start(ac.signal);
  const running = runners.map((run) =>
    run(ac.signal).catch((err: unknown) => {
      if (!ac.signal.aborted) logger.error({ err: err instanceof Error ? err.message : String(err) }, "controller stopped with an error");
    }),
  );
  const ready = informers.waitForCacheSync(ac.signal).then(() => undefined);
  let stopped: Promise<void> | undefined;
  return {
    api,
    client,
    informers,
    ready,
    registry,
    stop: () =>
      (stopped ??= (async () => {
        ac.abort();
        await Promise.all(running);
        await informers.shutdown();
        await sink.stop();
        await broadcaster.shutdown();
        await client.close();
        await api.stop();
      })()),
  };
}
