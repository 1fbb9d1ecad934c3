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
import { EndpointSliceMirroringController } from "./endpointslicemirroring/index.js";
import { DisruptionController } from "./disruption/index.js";
import { DaemonSetsController } from "./daemonset/index.js";
import { PersistentVolumeController, SimulatedProvisioner } from "./persistentvolume/index.js";
import { RootCACertPublisher, ServiceAccountController, TokensController, type LegacyTokenGenerator } from "./serviceaccount/index.js";
import { ResourceQuotaController } from "./resourcequota/index.js";
import { GarbageCollector } from "./garbagecollector/index.js";
import { JobController } from "./job/index.js";
import { CronJobController } from "./cronjob/index.js";
import { TTLAfterFinishedController } from "./ttlafterfinished/index.js";
import { NamespaceController, namespaceDiscoveryFrom } from "./namespace/index.js";
import { NodeLifecycleController } from "./nodelifecycle/index.js";
import { PodGCController } from "./podgc/index.js";
import { TaintEvictionController } from "./tainteviction/index.js";
import { PodLifecycleSimulator } from "./podlifecycle/index.js";
import { ReplicaSetController } from "./replicaset/index.js";
import { StatefulSetController } from "./statefulset/index.js";
import { HorizontalController } from "./podautoscaler/index.js";
import { CachedDiscoveryClient, DiscoveryClient } from "../client/discovery.js";
import { DiscoveryRESTMapper } from "../client/restmapper.js";
import { PVCProtectionController, PVProtectionController } from "./volumeprotection/index.js";
import type { Manager } from "../runtime/manager.js";
import type { GroupVersionResource } from "../apimachinery/gvk.js";

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
  /** rootcacertpublisher: the CA bundle to publish as kube-root-ca.crt (the client's certificate-authority); serviceaccounttoken: the ca.crt of token secrets. */
  rootCA?: string;
  /** serviceaccounttoken: signs legacy tokens with the API server's service-account key (the embedded server's; the key itself stays there). */
  tokenGenerator?: LegacyTokenGenerator;
  /** podgc: --terminated-pod-gc-threshold (default 12 500; 0 turns terminated-pod collection off). */
  terminatedPodGCThreshold?: number;
  /** nodelifecycle: --node-monitor-grace-period and --node-startup-grace-period (default 50 s and 60 s). */
  nodeMonitorGracePeriodMs?: number;
  nodeStartupGracePeriodMs?: number;
  /** podautoscaler: --horizontal-pod-autoscaler-sync-period (default 15 s). */
  horizontalPodAutoscalerSyncPeriodMs?: number;
  /** application: reconcile only Applications matching this label selector. */
  labelSelector?: string;
}

/** Upstream's --concurrent-*-syncs defaults (the simulator's and sample-controller's for the others). */
export const DEFAULT_WORKERS = Object.freeze({
  deployment: 5,
  replicaset: 5,
  // batch: --concurrent-job-syncs
  job: 5,
  // --concurrent-cron-job-syncs
  cronjob: 5,
  // --concurrent-ttl-after-finished-syncs
  ttlafterfinished: 5,
  garbagecollector: 20,
  endpoints: 5,
  podlifecycle: 4,
  application: 2,
  // --concurrent-namespace-syncs
  namespace: 10,
  // --concurrent-service-endpoint-syncs
  endpointslice: 5,
  // --mirroring-concurrent-service-endpoint-syncs
  endpointslicemirroring: 5,
  // upstream runs it with one worker
  disruption: 1,
  // --concurrent-statefulset-syncs
  statefulset: 5,
  // --concurrent-daemonset-syncs
  daemonset: 2,
  // the binder: one claim worker and one volume worker upstream
  persistentvolume: 1,
  // the simulated external provisioner (sig-storage-lib's default is 4 workers; one is plenty here)
  volumeprovisioner: 1,
  // kube-controller-manager runs both protection controllers with one worker
  pvcprotection: 1,
  pvprotection: 1,
  // kube-controller-manager runs both with one worker
  serviceaccount: 1,
  // --concurrent-serviceaccount-token-syncs
  serviceaccounttoken: 5,
  rootcacertpublisher: 1,
  // --concurrent-resource-quota-syncs
  resourcequota: 5,
  // one periodic pass, as upstream's wait.Until loop
  podgc: 1,
  // one worker: upstream's monitorNodeHealth pass is single-threaded
  nodelifecycle: 1,
  // upstream UpdateWorkerSize
  tainteviction: 8,
  // --concurrent-horizontal-pod-autoscaler-syncs
  podautoscaler: 5,
});

export type BuiltinControllerName = keyof typeof DEFAULT_WORKERS;

/** Every built-in controller, in the order startControlPlane builds them. */
export const BUILTIN_CONTROLLERS: readonly BuiltinControllerName[] = Object.freeze([
  "deployment",
  "replicaset",
  "job",
  "cronjob",
  "ttlafterfinished",
  "garbagecollector",
  "podlifecycle",
  "endpoints",
  "application",
  "namespace",
  "endpointslice",
  "endpointslicemirroring",
  "disruption",
  "statefulset",
  "daemonset",
  "persistentvolume",
  "volumeprovisioner",
  "pvcprotection",
  "pvprotection",
  "serviceaccount",
  "serviceaccounttoken",
  "rootcacertpublisher",
  "resourcequota",
  "podgc",
  "nodelifecycle",
  "tainteviction",
  "podautoscaler",
]);

/**
 * The resources a controller cannot run without. As kube-controller-manager (which starts a
 * controller only when its resources are in ctx.AvailableResources), a controller whose resources
 * the server does not serve is skipped — its informers would never sync.
 */
export const REQUIRED_RESOURCES: Readonly<Partial<Record<BuiltinControllerName, readonly GroupVersionResource[]>>> = Object.freeze({
  job: [{ group: "batch", version: "v1", resource: "jobs" }],
  cronjob: [
    { group: "batch", version: "v1", resource: "cronjobs" },
    { group: "batch", version: "v1", resource: "jobs" },
  ],
  ttlafterfinished: [{ group: "batch", version: "v1", resource: "jobs" }],
  statefulset: [
    { group: "apps", version: "v1", resource: "statefulsets" },
    { group: "apps", version: "v1", resource: "controllerrevisions" },
  ],
  daemonset: [
    { group: "apps", version: "v1", resource: "daemonsets" },
    { group: "apps", version: "v1", resource: "controllerrevisions" },
  ],
  endpointslicemirroring: [{ group: "discovery.k8s.io", version: "v1", resource: "endpointslices" }],
  persistentvolume: [{ group: "storage.k8s.io", version: "v1", resource: "storageclasses" }],
  volumeprovisioner: [{ group: "storage.k8s.io", version: "v1", resource: "storageclasses" }],
  podautoscaler: [{ group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers" }],
});

/** What discovery the check needs (the DiscoveryClient and CachedDiscoveryClient have it). */
export interface ResourceDiscovery {
  serverGroupsAndResources(signal?: AbortSignal): Promise<{ resources: ReadonlyArray<{ group: string; version: string; resource: string }> }>;
}

/** Why `name` cannot run against this server ("batch/v1 jobs is not served"), or undefined when it can. */
export async function missingResources(name: BuiltinControllerName, discovery: ResourceDiscovery, signal?: AbortSignal): Promise<string | undefined> {
  const needed = REQUIRED_RESOURCES[name] ?? [];
  if (needed.length === 0) return undefined;
  const { resources } = await discovery.serverGroupsAndResources(signal);
  for (const r of needed) {
    if (!resources.some((s) => s.group === r.group && s.version === r.version && s.resource === r.resource)) {
      return `${r.group ? `${r.group}/` : ""}${r.version} ${r.resource} is not served`;
    }
  }
  return undefined;
}

export function isBuiltinControllerName(n: string): n is BuiltinControllerName {
  return Object.hasOwn(DEFAULT_WORKERS, n);
}

export class ControllerSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ControllerSetupError";
  }
}

/**
 * Builds controller `name` on `mgr` (it runs when the manager starts, while it leads). Returns
 * false when the controller cannot do its job with these options and was left out (the reason is
 * logged), true when it was built.
 */
export function setupController(mgr: Manager, name: BuiltinControllerName, opts: ControllerSetupOptions = {}): boolean {
  const workers = opts.workers ?? DEFAULT_WORKERS[name];
  switch (name) {
    case "deployment":
      new DeploymentController(mgr, { workers });
      return true;
    case "replicaset":
      new ReplicaSetController(mgr, { workers });
      return true;
    case "job":
      new JobController(mgr, { workers });
      return true;
    case "cronjob":
      new CronJobController(mgr, { workers });
      return true;
    case "ttlafterfinished":
      new TTLAfterFinishedController(mgr, { workers });
      return true;
    case "garbagecollector":
      if (!opts.discovery) throw new ControllerSetupError("the garbage collector needs a discovery source");
      new GarbageCollector(mgr, { discovery: opts.discovery, workers, resyncDiscoveryMs: opts.resyncDiscoveryMs });
      return true;
    case "podlifecycle":
      new PodLifecycleSimulator(mgr, { ...opts.kubelet, workers, ...(opts.binder ? { binder: opts.binder, placement: "bind" as const } : {}) });
      return true;
    case "endpoints":
      new EndpointsController(mgr, { workers });
      return true;
    case "application":
      setupApplicationController(mgr, { workers, labelSelector: opts.labelSelector });
      return true;
    case "namespace":
      if (!opts.discovery) throw new ControllerSetupError("the namespace controller needs a discovery source");
      new NamespaceController(mgr, { discovery: namespaceDiscoveryFrom(opts.discovery), workers });
      return true;
    case "endpointslice":
      new EndpointSliceController(mgr, { workers });
      return true;
    case "endpointslicemirroring":
      new EndpointSliceMirroringController(mgr, { workers });
      return true;
    case "disruption":
      new DisruptionController(mgr, { workers });
      return true;
    case "statefulset":
      new StatefulSetController(mgr, { workers });
      return true;
    case "daemonset":
      new DaemonSetsController(mgr, { workers });
      return true;
    case "persistentvolume":
      new PersistentVolumeController(mgr, { workers });
      return true;
    case "volumeprovisioner":
      new SimulatedProvisioner(mgr, { workers });
      return true;
    case "pvcprotection":
      new PVCProtectionController(mgr, { workers });
      return true;
    case "pvprotection":
      new PVProtectionController(mgr, { workers });
      return true;
    case "serviceaccount":
      new ServiceAccountController(mgr, { workers });
      return true;
    case "serviceaccounttoken":
      if (!opts.tokenGenerator) throw new ControllerSetupError("the token controller needs the API server's service-account signing key (it runs in the embedded control plane)");
      new TokensController(mgr, { workers, tokenGenerator: opts.tokenGenerator, rootCA: opts.rootCA });
      return true;
    case "rootcacertpublisher":
      if (opts.rootCA === undefined) throw new ControllerSetupError("the root CA publisher needs the cluster's CA bundle (a kubeconfig with certificate-authority)");
      new RootCACertPublisher(mgr, { workers, rootCA: opts.rootCA });
      return true;
    case "resourcequota":
      new ResourceQuotaController(mgr, { workers });
      return true;
    case "podgc":
      new PodGCController(mgr, { terminatedPodThreshold: opts.terminatedPodGCThreshold });
      return true;
    case "nodelifecycle":
      // Simulated kubelets with heartbeats off (interval 0) never renew: every node would turn
      // Unknown and flap back at the simulator's next repair. Node health needs heartbeats.
      if (opts.kubelet?.heartbeatIntervalMs === 0) {
        mgr.logger.info({ controller: name }, "Not starting the node lifecycle controller: the simulated kubelet's heartbeats are off (interval 0)");
        return false;
      }
      new NodeLifecycleController(mgr, { nodeMonitorGracePeriodMs: opts.nodeMonitorGracePeriodMs, nodeStartupGracePeriodMs: opts.nodeStartupGracePeriodMs });
      return true;
    case "tainteviction":
      new TaintEvictionController(mgr, { workers });
      return true;
    case "podautoscaler": {
      // The scale target's kind is mapped to its resource through discovery (a REST mapper).
      const d = opts.discovery;
      const cached = d instanceof CachedDiscoveryClient ? d : d instanceof DiscoveryClient ? new CachedDiscoveryClient(d) : undefined;
      if (!cached) throw new ControllerSetupError("the horizontal pod autoscaler needs a discovery client (to map scale targets to resources)");
      new HorizontalController(mgr, { workers, mapper: new DiscoveryRESTMapper(cached), syncPeriodMs: opts.horizontalPodAutoscalerSyncPeriodMs });
      return true;
    }
  }
}
