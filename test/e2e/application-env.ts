/**
 * The environment of the Application end-to-end tests and benchmark: the embedded control plane
 * (API server over HTTPS, Deployment, ReplicaSet, Endpoints controllers and the simulated
 * kubelet, sharing one informer factory), the Application CRD installed from deploy/crds, and a
 * garbage collector that re-reads discovery every half second (upstream: 30 s) so that it learns
 * about the freshly installed CRD within the test's patience.
 */
import { Registry } from "prom-client";
import { startControlPlane, type ControlPlaneOptions, type RunningControlPlane } from "../../src/controlplane/index.js";
import { installApplicationCRD } from "../../src/controllers/application/index.js";
import { GarbageCollector } from "../../src/controllers/garbagecollector/index.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { Manager } from "../../src/runtime/manager.js";
import { eventually as eventuallyIn } from "../../src/testing/eventually.js";

export interface ApplicationEnv {
  cp: RunningControlPlane;
  stop(): Promise<void>;
}

/** Fast simulated pods: scheduled, created and running within a few tens of milliseconds. */
export const FAST_KUBELET: ControlPlaneOptions["kubelet"] = {
  nodes: 3,
  delays: { schedule: 5, containerCreating: 10, running: 20 },
};

export async function startApplicationEnv(opts: Omit<ControlPlaneOptions, "apiServerIsolation"> = {}): Promise<ApplicationEnv> {
  const logger = silentLogger();
  const cp = await startControlPlane({
    port: 0,
    logger,
    kubelet: FAST_KUBELET,
    ...opts,
    controllers: ["deployment", "replicaset", "podlifecycle", "endpoints"],
  });
  try {
    await installApplicationCRD(cp.client);
  } catch (err) {
    await cp.stop();
    throw err;
  }
  // A garbage collector on a manager of its own, re-reading discovery every half second.
  const manager = new Manager({ client: cp.client, logger, registry: new Registry() });
  new GarbageCollector(manager, { discovery: cp.client.discoveryClient, resyncDiscoveryMs: 500, workers: 5 });
  const ac = new AbortController();
  const gcDone = manager.start(ac.signal).catch(() => undefined);
  let stopped: Promise<void> | undefined;
  return {
    cp,
    stop: () =>
      (stopped ??= (async () => {
        ac.abort();
        await gcDone;
        await cp.stop();
      })()),
  };
}

/** kubeloop/testing's eventually in real time: polls `fn` until it returns something other than undefined/false. */
export function eventually<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  return eventuallyIn(fn, { what, timeoutMs, intervalMs: 50 });
}

export function newRegistry(): Registry {
  return new Registry();
}
