/**
 * The built-in controllers, in one table: name, upstream's default worker count, and how each is
 * built on a Manager. `startControlPlane` builds all of them on one manager, `kubeloop controller
 * <name>` one of them on its own; both go through `setupController`, so a controller is composed
 * the same way wherever it runs.
 */
import type { PodBinder, PodLifecycleSimulatorOptions } from "./podlifecycle/index.js";
import type { DiscoverySource } from "./garbagecollector/index.js";
import { setupApplicationController } from "./application/index.js";
import { DeploymentController } from "./deployment/index.js";
import { EndpointsController } from "./endpoints/index.js";
import { EndpointSliceController } from "./endpointslice/index.js";
import { DisruptionController } from "./disruption/index.js";
import { GarbageCollector } from "./garbagecollector/index.js";
import { NamespaceController, namespaceDiscoveryFrom } from "./namespace/index.js";
import { PodLifecycleSimulator } from "./podlifecycle/index.js";
import { ReplicaSetController } from "./replicaset/index.js";
import type { Manager } from "../runtime/manager.js";

/** What the controllers may need beyond the manager. */
export interface ControllerSetupOptions {
  /** Workers; default the controller's own (DEFAULT_WORKERS). */
  workers?: number;
  /** garbagecollector and namespace: where they discover the deletable resources. */
  discovery?: DiscoverySource;
  /** garbagecollector: how often discovery is re-read (default 30 s). */
  resyncDiscoveryMs?: number;
  /** podlifecycle: the simulated kubelet's settings and how it binds pods. */
  kubelet?: Pick<PodLifecycleSimulatorOptions, "nodes" | "heartbeatIntervalMs" | "delays" | "speedFactor" | "capacity">;
  binder?: PodBinder;
  /** application: reconcile only Applications matching this label selector. */
  labelSelector?: string;
}

/** Upstream's --concurrent-*-syncs defaults (the simulator's and sample-controller's for the others). */
export const DEFAULT_WORKERS = Object.freeze({
  deployment: 5,
  replicaset: 5,
  garbagecollector: 20,
  endpoints: 5,
  podlifecycle: 4,
  application: 2,
  // --concurrent-namespace-syncs
  namespace: 10,
  // --concurrent-service-endpoint-syncs
  endpointslice: 5,
  // upstream runs it with one worker
  disruption: 1,
});

export type BuiltinControllerName = keyof typeof DEFAULT_WORKERS;

/** Every built-in controller, in the order startControlPlane builds them. */
export const BUILTIN_CONTROLLERS: readonly BuiltinControllerName[] = Object.freeze([
  "deployment",
  "replicaset",
  "garbagecollector",
  "podlifecycle",
  "endpoints",
  "application",
  "namespace",
  "endpointslice",
  "disruption",
]);

export function isBuiltinControllerName(n: string): n is BuiltinControllerName {
  return Object.hasOwn(DEFAULT_WORKERS, n);
}

export class ControllerSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ControllerSetupError";
  }
}

/** Builds controller `name` on `mgr` (it runs when the manager starts, while it leads). */
export function setupController(mgr: Manager, name: BuiltinControllerName, opts: ControllerSetupOptions = {}): void {
  const workers = opts.workers ?? DEFAULT_WORKERS[name];
  switch (name) {
    case "deployment":
      new DeploymentController(mgr, { workers });
      return;
    case "replicaset":
      new ReplicaSetController(mgr, { workers });
      return;
    case "garbagecollector":
      if (!opts.discovery) throw new ControllerSetupError("the garbage collector needs a discovery source");
      new GarbageCollector(mgr, { discovery: opts.discovery, workers, resyncDiscoveryMs: opts.resyncDiscoveryMs });
      return;
    case "podlifecycle":
      new PodLifecycleSimulator(mgr, { ...opts.kubelet, workers, ...(opts.binder ? { binder: opts.binder, placement: "bind" as const } : {}) });
      return;
    case "endpoints":
      new EndpointsController(mgr, { workers });
      return;
    case "application":
      setupApplicationController(mgr, { workers, labelSelector: opts.labelSelector });
      return;
    case "namespace":
      if (!opts.discovery) throw new ControllerSetupError("the namespace controller needs a discovery source");
      new NamespaceController(mgr, { discovery: namespaceDiscoveryFrom(opts.discovery), workers });
      return;
    case "endpointslice":
      new EndpointSliceController(mgr, { workers });
      return;
    case "disruption":
      new DisruptionController(mgr, { workers });
      return;
  }
}
