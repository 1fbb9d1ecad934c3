/**
 * PodLifecycleSimulator: a kwok-style simulated kubelet (and a tiny scheduler) for clusters
 * without real nodes — the embedded API server above all.
 *
 * It keeps `nodes` fake nodes registered and healthy, binds pending pods to the least loaded node
 * that fits, walks each pod through ContainerCreating to Running/Ready (or a requested fault) —
 * or, for pods whose containers finish (programs.ts: `sh -c "exit 1"`, `sleep N`, the
 * `sim.kubeloop.dev/exit-code` and `run-seconds` annotations) and pods with probes (probes.ts)
 * or postStart hooks (hooks.ts),
 * sidecars or an active deadline, through the container state machine (workload.ts): init
 * containers and sidecars, runs, probes, kills, exits, restarts with the kubelet's back-off and a
 * Succeeded/Failed phase — and
 * finishes graceful deletions the way a kubelet does (preStop hooks first, then delete with grace
 * 0 once the grace period has passed, scaled by `speedFactor`).
 *
 * A node annotated `sim.kubeloop.dev/heartbeat: "stopped"` (nodes.ts) has its kubelet stopped:
 * no Lease renewals or node status, and its pods are left as they are, so the node lifecycle and
 * taint eviction controllers see a node that went away. What containers write (pods/log) follows
 * from their programs and the times recorded in the status (logs.ts).
 *
 * Level-triggered: every decision is made from the pod as the informer shows it; the only private
 * state is (a) when the pod was first seen in its current stage (for delays), (b) scheduling and
 * pod-IP choices not yet visible in the cache (so two pods never take the same last slot or IP),
 * and (c) the resourceVersion a write was based on, so a reconcile that runs before the informer
 * has delivered our own write does not act on the stale copy. All timing uses the injected Clock.
 *
 * Per-node usage (pod count, requests) and pod IPs in use are not recounted from the cache for
 * each decision: a NodeAccounting (accounting.ts) follows the pod informer's notifications and
 * holds (b), so scheduling and IP allocation cost O(nodes), not O(pods).
 *
 * Binding: upstream binds through the `pods/binding` subresource. The client contract has no way
 * to POST to a subresource, and an update of spec.nodeName is refused by pod update validation
 * (kube-apiserver and the embedded server alike). So, with `placement: "auto"` (the default) the
 * simulator tries the update (which a FakeClient or a permissive server accepts) and, when the
 * server refuses it (422/405), switches to *status placement*: the node goes into
 * status.nominatedNodeName with PodScheduled=True and the pod runs there with that node's hostIP,
 * while spec.nodeName stays empty. A `binder` function can be given to bind another way (e.g. a
 * real pods/binding POST).
 *
 * Composed with the builder: watches(pods) (each change keeps the accounting current and enqueues
 * the pod), watches(nodes) (a simulated node's change enqueues it, pods placed there, and pods
 * that did not fit anywhere), and a raw source that enqueues every node name at start, so the
 * nodes get registered; the heartbeat loop is a runnable of the same manager. Requests are pod
 * keys ("ns/name") and node names ("name"). Every write goes through the reconcile's
 * signal-bound client.
 */
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import type { Node, ObjectReference, Pod, PodStatus } from "../../apimachinery/api/core/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isAlreadyExists, isConflict, isInvalid, isMethodNotSupported, isNotFound } from "../../apimachinery/errors.js";
import { metaNamespaceKey, ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClient, ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import { objectFromDeletion, type ResourceEventHandler } from "../../informers/handlers.js";
import type { Lister } from "../../informers/lister.js";
import type { SharedIndexInformer } from "../../informers/sharedinformer.js";
import type { Controller } from "../../runtime/controller.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { formatMicroTime } from "../../apimachinery/time.js";
import { NodeAccounting } from "./accounting.js";
import { detectFault, type Fault } from "./faults.js";
import {
  buildLease,
  buildNode,
  DEFAULT_NODE_CAPACITY,
  DEFAULT_NODE_PREFIX,
  heartbeatStopped,
  isSimulatedNode,
  NODE_LEASE_NAMESPACE,
  nodeInternalIP,
  nodeNeedsRepair,
  nodeStatus,
  type NodeCapacity,
} from "./nodes.js";
import {
  assignedNode,
  containerCreatingStatus,
  crashLoopStatus,
  failedStatus,
  observeStage,
  placedStatus,
  killedStatus,
  readySince,
  runningStatus,
  unschedulableStatus,
} from "./podstatus.js";
import { podHasProbes } from "./probes.js";
import { FAILED_PRE_STOP_HOOK, hookOutcome, killTimeline, podHasPostStart, PRE_STOP_HOOK_FAILED_MESSAGE } from "./hooks.js";
import { podPrograms, type PodPrograms } from "./programs.js";
import { pickNode, podRequests, type NodeUsage } from "./scheduler.js";
import { claimNames, podVolumes, selectNode } from "./volumebinding.js";

/** How often a pod waiting for its WaitForFirstConsumer claims to be bound is looked at again. */
const VOLUME_BINDING_RECHECK_MS = 1000;
import { stepWorkload, workloadCreatingStatus, workloadNotStarted, type ContainerTimes } from "./workload.js";

/** Delays between stages, in milliseconds. */
export interface PodLifecycleDelays {
  /** Pending and unscheduled → bound to a node. */
  schedule: number;
  /** Bound → ContainerCreating. */
  containerCreating: number;
  /** ContainerCreating → Running (and Ready, unless a fault says otherwise). */
  running: number;
  /** crash-loop: how long a (re)started container runs before it exits. */
  crashRunning: number;
  /** crash-loop: the first back-off; doubles with each restart up to crashBackOffMax. */
  crashBackOff: number;
  crashBackOffMax: number;
}

export const DEFAULT_DELAYS: Readonly<PodLifecycleDelays> = Object.freeze({
  schedule: 50,
  containerCreating: 100,
  running: 300,
  crashRunning: 1000,
  crashBackOff: 2000,
  crashBackOffMax: 30_000,
});

/** The kubelet's lease renew interval (seconds 10). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;
/** Graceful deletions take terminationGracePeriodSeconds × this (default 0.1: 30 s → 3 s). */
export const DEFAULT_SPEED_FACTOR = 0.1;

export type PodBinder = (pod: Pod, nodeName: string, signal?: AbortSignal) => Promise<void>;

/** kube-controller-manager has no such controller; the simulator's own default. */
export const DEFAULT_PODLIFECYCLE_WORKERS = 4;

export interface PodLifecycleSimulatorOptions {
  /** Workers (default 4). */
  workers?: number;
  /** How many nodes to simulate (default 3), named `${nodeNamePrefix}1` … */
  nodes?: number;
  nodeNamePrefix?: string;
  capacity?: Partial<NodeCapacity>;
  /** Lease renewal and node status heartbeat interval; 0 turns heartbeats off (default 10 000). */
  heartbeatIntervalMs?: number;
  delays?: Partial<PodLifecycleDelays>;
  /** Scales graceful-deletion grace periods (default 0.1). */
  speedFactor?: number;
  /** Schedule pending pods (default true). Turn off where a real scheduler runs. */
  schedule?: boolean;
  /** How pods get their node: try an update of spec.nodeName, then status ("auto", default). */
  placement?: "auto" | "bind" | "status";
  /** Binds a pod some other way (replaces the spec.nodeName update). */
  binder?: PodBinder;
}

interface StageRecord {
  uid: string;
  /** A Stage, "Terminating", or a workload pod's "Workload:Scheduled" / "Workload:Creating". */
  stage: string;
  since: number;
}

const DEFAULT_SCHEDULER = "default-scheduler";

export class PodLifecycleSimulator {
  readonly controller: Controller;
  readonly nodeNames: readonly string[];
  readonly podInformer: SharedIndexInformer<Pod>;
  readonly nodeInformer: SharedIndexInformer<Node>;
  readonly delays: Readonly<PodLifecycleDelays>;
  readonly speedFactor: number;
  readonly heartbeatIntervalMs: number;
  /**
   * What the simulator registers on the pod informer. Exposed so that tests that drive the cache
   * by hand can deliver the notifications a running informer would.
   */
  readonly podEvents: ResourceEventHandler<Pod>;

  private readonly client: ResourceClientFactory;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly capacity: NodeCapacity;
  private readonly scheduleEnabled: boolean;
  private readonly binder?: PodBinder;
  private readonly placementOption: "auto" | "bind" | "status";
  private placementMode: "bind" | "status";
  private readonly podLister: Lister<Pod>;
  private readonly nodeLister: Lister<Node>;
  private readonly nodeIndex = new Map<string, number>();

  /** Per pod key: the stage it was first seen in, and when. */
  private readonly stages = new Map<string, StageRecord>();
  /** Per pod key: the resourceVersion our in-flight or unobserved write was based on. */
  private readonly pendingRV = new Map<string, string>();
  /** Per pod key: exact start and finish times of workload pods' containers (the status has seconds). */
  private readonly containerTimes = new Map<string, ContainerTimes>();
  /**
   * Per-node usage and pod IPs in use, from the pod informer's notifications, with the nodes
   * chosen whose binding the cache does not show yet (assumptions) and the pod IPs handed out
   * (reservations, released when the pod goes away), both per pod key.
   */
  private readonly accounting = new NodeAccounting();
  private readonly ipCursor = new Map<string, number>();
  /** Pods that did not fit anywhere: retried when pods go away or nodes change. */
  private readonly unschedulable = new Set<string>();
  private readonly leases = new Map<string, Lease>();
  private leaseNamespaceReady = false;
  private warnedForeignNode = new Set<string>();

  constructor(mgr: Manager, opts: PodLifecycleSimulatorOptions = {}) {
    this.client = mgr.client;
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: "podlifecycle" });
    // Scheduled, FailedScheduling, Started, BackOff and Killing, as the kubelet and the scheduler record them.
    this.recorder = mgr.eventRecorder("kubelet");
    this.capacity = { ...DEFAULT_NODE_CAPACITY, ...opts.capacity };
    this.delays = Object.freeze({ ...DEFAULT_DELAYS, ...opts.delays });
    this.speedFactor = opts.speedFactor ?? DEFAULT_SPEED_FACTOR;
    this.heartbeatIntervalMs = opts.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
    this.scheduleEnabled = opts.schedule ?? true;
    this.binder = opts.binder;
    this.placementOption = opts.placement ?? "auto";
    this.placementMode = this.placementOption === "status" ? "status" : "bind";
    const count = opts.nodes ?? 3;
    const prefix = opts.nodeNamePrefix ?? DEFAULT_NODE_PREFIX;
    this.nodeNames = Object.freeze(Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`));
    this.nodeNames.forEach((n, i) => this.nodeIndex.set(n, i));

    this.podInformer = mgr.informers.forResource(builtin.pods);
    this.nodeInformer = mgr.informers.forResource(builtin.nodes);
    this.podLister = this.podInformer.lister();
    this.nodeLister = this.nodeInformer.lister();

    this.podEvents = {
      onAdd: (pod) => {
        this.accounting.observe(pod);
        this.controller.enqueue(pod);
      },
      onUpdate: (_old, pod) => {
        this.accounting.observe(pod);
        this.controller.enqueue(pod);
      },
      onDelete: (obj) => {
        const pod = objectFromDeletion(obj);
        if (!pod) return;
        const key = metaNamespaceKey(pod);
        this.accounting.observeDeleted(key);
        this.forget(key);
        this.retryUnschedulable();
      },
    };
    const pods = this.podEvents;
    this.controller = mgr
      .controller("podlifecycle")
      .watches(builtin.pods, {
        create: (e) => pods.onAdd?.(e.object, e.isInInitialList),
        update: (e) => pods.onUpdate?.(e.objectOld, e.objectNew),
        delete: (e) => pods.onDelete?.(e.object),
      })
      .watches(builtin.nodes, {
        create: (e) => this.onNodeEvent(e.object, true),
        update: (e) =>
          this.onNodeEvent(e.objectNew, isSimulatedNode(e.objectOld) !== isSimulatedNode(e.objectNew) || heartbeatStopped(e.objectOld) !== heartbeatStopped(e.objectNew)),
        delete: (e) => this.onNodeEvent(e.object, true),
      })
      // Every simulated node gets registered (and repaired) once the controller starts.
      .watchesRawSource({ start: (q) => this.nodeNames.forEach((n) => q.add(new ObjectName("", n))) })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_PODLIFECYCLE_WORKERS, eventSource: "kubelet" })
      .reconcile((req, ctx) => this.reconcile(req.toString(), ctx.client, ctx.signal));
    mgr.add({ name: "podlifecycle-heartbeat", run: (signal) => this.heartbeatLoop(signal) });
  }

  /** Whether status placement is in use (the server refused spec.nodeName updates). */
  get placement(): "bind" | "status" {
    return this.placementMode;
  }

  /**
   * One reconcile: a node name ("kubeloop-node-1") or a pod key ("ns/name"), writing through
   * `client` (the reconcile's, bound to its signal; the manager's by default).
   */
  async reconcile(key: string, client: ResourceClientFactory = this.client, signal?: AbortSignal): Promise<ReconcileResult> {
    const name = ObjectName.parse(key);
    if (name.namespace === "") return this.reconcileNode(name.name, client);
    return this.reconcilePod(key, name, client, signal);
  }

  // ---------------------------------------------------------------------------------------------
  // Nodes

  /**
   * A node changed: repair it if it is ours, retry pods that did not fit, and — when the node
   * appeared, went away or changed hands — look again at the pods placed on it.
   */
  private onNodeEvent(node: Node, podsToo: boolean): void {
    const name = node.metadata?.name ?? "";
    if (!this.nodeIndex.has(name)) return;
    this.controller.enqueue(name);
    this.retryUnschedulable();
    if (podsToo) for (const p of this.podLister.list()) if (assignedNode(p) === name) this.controller.enqueue(p);
  }

  private nodesClient(client: ResourceClientFactory = this.client): ResourceClient<Node> {
    return client.resource(builtin.nodes);
  }

  private getNode(name: string): Node | undefined {
    try {
      return this.nodeLister.get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private isOurNode(name: string | undefined): boolean {
    if (!name || !this.nodeIndex.has(name)) return false;
    return isSimulatedNode(this.getNode(name));
  }

  private async reconcileNode(name: string, client: ResourceClientFactory): Promise<ReconcileResult> {
    const index = this.nodeIndex.get(name);
    if (index === undefined) return {};
    const node = this.getNode(name);
    const now = this.clock.now();
    if (!node) {
      try {
        await this.nodesClient(client).create(buildNode(name, index, this.capacity, now));
        this.logger.info({ node: name }, "Registered simulated node");
      } catch (err) {
        // Someone registered it meanwhile: look again once the informer shows it.
        if (isAlreadyExists(err)) return { requeue: true };
        throw err;
      }
      return {};
    }
    if (!isSimulatedNode(node)) {
      if (!this.warnedForeignNode.has(name)) {
        this.warnedForeignNode.add(name);
        this.logger.warn({ node: name }, "A node of this name exists and is not simulated; leaving it alone");
      }
      return {};
    }
    // A stopped kubelet posts no status.
    if (heartbeatStopped(node)) return {};
    if (nodeNeedsRepair(node, this.capacity)) {
      await this.nodesClient(client).updateStatus({ ...deepCopy(node), status: nodeStatus(name, index, this.capacity, now, node.status) });
    }
    return {};
  }

  private async heartbeatLoop(signal: AbortSignal): Promise<void> {
    if (this.heartbeatIntervalMs <= 0) return;
    if (!(await this.nodeInformer.waitForSync(signal))) return;
    while (!signal.aborted) {
      try {
        await this.clock.sleep(this.heartbeatIntervalMs, signal);
      } catch {
        return;
      }
      await this.heartbeat();
    }
  }

  /** Renews every simulated node's Lease and Ready heartbeat once. Errors are logged, not thrown. */
  async heartbeat(): Promise<void> {
    for (const name of this.nodeNames) {
      const node = this.getNode(name);
      if (!node || !isSimulatedNode(node) || heartbeatStopped(node)) continue;
      try {
        await this.renewLease(node);
      } catch (err) {
        this.logger.warn({ node: name, err }, "Failed to renew node lease");
      }
      try {
        const index = this.nodeIndex.get(name) ?? 0;
        await this.nodesClient().updateStatus({ ...deepCopy(node), status: nodeStatus(name, index, this.capacity, this.clock.now(), node.status) });
      } catch (err) {
        this.logger.warn({ node: name, err }, "Failed to update node status heartbeat");
      }
    }
  }

  private async ensureLeaseNamespace(): Promise<void> {
    if (this.leaseNamespaceReady) return;
    const ns = this.client.resource(builtin.namespaces);
    try {
      await ns.get(NODE_LEASE_NAMESPACE);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await ns.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NODE_LEASE_NAMESPACE } });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
    this.leaseNamespaceReady = true;
  }

  private async renewLease(node: Node): Promise<void> {
    const name = node.metadata?.name ?? "";
    const leases = this.client.resource<Lease>(builtin.leases, NODE_LEASE_NAMESPACE);
    await this.ensureLeaseNamespace();
    let lease = this.leases.get(name);
    if (!lease) {
      try {
        lease = await leases.get(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        this.leases.set(name, await leases.create(buildLease(node, this.clock.now())));
        return;
      }
    }
    const next = deepCopy(lease);
    next.spec = { ...next.spec, holderIdentity: name, leaseDurationSeconds: next.spec?.leaseDurationSeconds ?? 40, renewTime: formatMicroTime(this.clock.now()) };
    try {
      this.leases.set(name, await leases.update(next));
    } catch (err) {
      // Read it again next time.
      this.leases.delete(name);
      if (!isConflict(err)) throw err;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Pods

  private podsClient(namespace: string, client: ResourceClientFactory): ResourceClient<Pod> {
    return client.resource(builtin.pods, namespace);
  }

  private forget(key: string): void {
    this.stages.delete(key);
    this.pendingRV.delete(key);
    this.containerTimes.delete(key);
    this.accounting.forget(key);
    this.unschedulable.delete(key);
  }

  private retryUnschedulable(): void {
    for (const key of this.unschedulable) this.controller.enqueue(key);
  }

  /** When the pod entered `stage` (now, if it just did); resets when the stage or the pod changes. */
  private since(key: string, uid: string, stage: StageRecord["stage"]): number {
    const rec = this.stages.get(key);
    if (rec && rec.uid === uid && rec.stage === stage) return rec.since;
    const now = this.clock.now();
    this.stages.set(key, { uid, stage, since: now });
    return now;
  }

  private async reconcilePod(key: string, name: ObjectName, client: ResourceClientFactory, signal: AbortSignal | undefined): Promise<ReconcileResult> {
    let pod: Pod;
    try {
      pod = this.podLister.namespace(name.namespace).get(name.name);
    } catch (err) {
      if (isNotFound(err)) {
        this.forget(key);
        return {};
      }
      throw err;
    }
    const uid = pod.metadata?.uid ?? "";
    if (this.stages.get(key)?.uid !== uid) this.stages.delete(key);
    if (this.accounting.assumption(key)?.uid !== uid) this.accounting.unassume(key);
    if (this.accounting.reservation(key)?.uid !== uid) this.accounting.releaseIP(key);
    // Our last write is not in the cache yet: the informer will bring it (and enqueue the pod).
    const pending = this.pendingRV.get(key);
    if (pending !== undefined) {
      if (pending === pod.metadata?.resourceVersion) return {};
      this.pendingRV.delete(key);
    }

    const node = assignedNode(pod);
    if (node !== undefined && !this.isOurNode(node)) {
      this.forget(key);
      return {};
    }
    // The node's kubelet is stopped: its pods stay as they are until it comes back.
    if (node !== undefined && heartbeatStopped(this.getNode(node))) return {};
    if (pod.metadata?.deletionTimestamp) return this.terminate(key, pod, node, client);

    const stage = observeStage(pod);
    const fault = detectFault(pod, (err) => this.logger.warn({ pod: key, err }, "Ignoring invalid fault annotation"));
    if (stage === "Terminal") return {};
    if (stage !== "Unscheduled" && fault.kind === "none") {
      // Probes, postStart hooks, sidecars and active deadlines live in the container state machine (workload.ts).
      const modelled = podHasProbes(pod) || podHasPostStart(pod) || pod.spec?.activeDeadlineSeconds !== undefined;
      const programs = podPrograms(pod, (err) => this.logger.warn({ pod: key, err }, "Ignoring invalid program annotation"), modelled);
      if (programs) return this.runWorkload(client, key, pod, node!, programs);
    }
    const since = this.since(key, uid, stage);
    const now = this.clock.now();
    const wait = (delay: number): ReconcileResult | undefined => (now < since + delay ? { requeueAfterMs: since + delay - now } : undefined);

    switch (stage) {
      case "Unscheduled":
        if (!this.wantsScheduling(pod)) return {};
        return wait(this.delays.schedule) ?? this.schedulePod(key, pod, client, signal);
      case "Scheduled":
        return wait(this.delays.containerCreating) ?? this.writeStatus(client, key, pod, containerCreatingStatus(pod, this.placementOf(pod, node!, now)));
      case "Creating": {
        const w = wait(this.delays.running);
        if (w) return w;
        const ready = fault.kind === "none" || fault.kind === "fail-after";
        const r = await this.writeStatus(client, key, pod, runningStatus(pod, { ...this.placementOf(pod, node!, now, true), ready }));
        this.event(pod, "Normal", "Started", `Started container ${(pod.spec?.containers ?? []).map((c) => c.name).join(", ")}`);
        return r;
      }
      case "Ready":
      case "RunningNotReady":
        return this.whileRunning(client, key, pod, node!, stage, since, fault);
      case "CrashBackOff": {
        if (fault.kind === "crash-loop") {
          const w = wait(this.backOff(pod));
          if (w) return w;
        }
        return this.writeStatus(client, key, pod, runningStatus(pod, { ...this.placementOf(pod, node!, now, true), ready: fault.kind !== "crash-loop" && fault.kind !== "never-ready" }));
      }
    }
  }

  private async whileRunning(client: ResourceClientFactory, key: string, pod: Pod, node: string, stage: "Ready" | "RunningNotReady", since: number, fault: Fault): Promise<ReconcileResult> {
    const now = this.clock.now();
    switch (fault.kind) {
      case "never-ready":
        if (stage === "Ready") return this.writeStatus(client, key, pod, runningStatus(pod, { ...this.placementOf(pod, node, now, true), ready: false }));
        return {};
      case "crash-loop": {
        const due = since + this.delays.crashRunning;
        if (now < due) return { requeueAfterMs: due - now };
        const backOffMs = this.backOff(pod, 1);
        const r = await this.writeStatus(client, key, pod, crashLoopStatus(pod, { ...this.placementOf(pod, node, now, true), backOffMs }));
        this.event(pod, "Warning", "BackOff", "Back-off restarting failed container");
        return r;
      }
      case "fail-after": {
        if (stage === "RunningNotReady") return this.writeStatus(client, key, pod, runningStatus(pod, { ...this.placementOf(pod, node, now, true), ready: true }));
        const due = (readySince(pod) ?? since) + fault.seconds * 1000;
        if (now < due) return { requeueAfterMs: due - now };
        return this.writeStatus(client, key, pod, failedStatus(pod, this.placementOf(pod, node, now, true)));
      }
      case "none":
        if (stage === "RunningNotReady") return this.writeStatus(client, key, pod, runningStatus(pod, { ...this.placementOf(pod, node, now, true), ready: true }));
        return {};
    }
  }

  /**
   * A pod whose containers finish (programs.ts, workload.ts): ContainerCreating after the
   * containerCreating delay, the first container started after the running delay, then each
   * container moves on when due.
   */
  private async runWorkload(client: ResourceClientFactory, key: string, pod: Pod, node: string, programs: PodPrograms): Promise<ReconcileResult> {
    const uid = pod.metadata?.uid ?? "";
    const now = this.clock.now();
    const after = (since: number, delay: number): ReconcileResult | undefined => (now < since + delay ? { requeueAfterMs: since + delay - now } : undefined);
    if ((pod.status?.containerStatuses ?? []).length === 0) {
      const w = after(this.since(key, uid, "Workload:Scheduled"), this.delays.containerCreating);
      return w ?? this.writeStatus(client, key, pod, workloadCreatingStatus(pod, this.placementOf(pod, node, now)));
    }
    if (workloadNotStarted(pod)) {
      const w = after(this.since(key, uid, "Workload:Creating"), this.delays.running);
      if (w) return w;
    }
    let times = this.containerTimes.get(key);
    if (!times) this.containerTimes.set(key, (times = new Map()));
    const step = stepWorkload(pod, programs, this.placementOf(pod, node, now, true), times, {
      speedFactor: this.speedFactor,
      onInvalidProbe: (err) => this.logger.warn({ pod: key, err }, "Ignoring invalid probe annotation"),
      onInvalidHook: (err) => this.logger.warn({ pod: key, err }, "Ignoring invalid hook annotation"),
    });
    const r = await this.writeStatus(client, key, pod, step.status);
    // writeStatus marks the pod pending exactly when it wrote.
    const wrote = this.pendingRV.has(key);
    for (const e of step.events) if (wrote || e.always) this.event(pod, e.type, e.reason, e.message);
    if (step.dueMs !== undefined && !this.pendingRV.has(key)) return { requeueAfterMs: Math.max(0, step.dueMs - now) };
    return r;
  }

  /** The crash-loop back-off before restart number restartCount+extra (kubelet: doubling, capped). */
  private backOff(pod: Pod, extra = 0): number {
    const restarts = Math.max(...(pod.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0), 0) + extra;
    return Math.min(this.delays.crashBackOff * 2 ** Math.max(0, restarts - 1), this.delays.crashBackOffMax);
  }

  private wantsScheduling(pod: Pod): boolean {
    if (!this.scheduleEnabled) return false;
    if ((pod.spec?.schedulingGates ?? []).length > 0) return false;
    const scheduler = pod.spec?.schedulerName;
    return scheduler === undefined || scheduler === "" || scheduler === DEFAULT_SCHEDULER;
  }

  /** Host IP and (when `withPodIP`) a pod IP on `node`: 10.244.<node>.<n>, unique among its pods. */
  private placementOf(pod: Pod, node: string, nowMs: number, withPodIP = false): { hostIP: string; podIP?: string; nowMs: number } {
    const index = this.nodeIndex.get(node) ?? 0;
    const hostIP = nodeInternalIP(index);
    if (!withPodIP) return { hostIP, nowMs };
    return { hostIP, podIP: pod.status?.podIP ?? this.allocateIP(pod, node, index), nowMs };
  }

  private allocateIP(pod: Pod, node: string, index: number): string {
    const key = metaNamespaceKey(pod);
    const uid = pod.metadata?.uid ?? "";
    const have = this.accounting.reservation(key);
    if (have && have.uid === uid) return have.ip;
    const base = `10.244.${index + 1}.`;
    let n = this.ipCursor.get(node) ?? 2;
    for (let tries = 0; tries < 253; tries++) {
      const ip = `${base}${n}`;
      n = n >= 254 ? 2 : n + 1;
      if (!this.accounting.ipInUse(node, ip)) {
        this.ipCursor.set(node, n);
        this.accounting.reserveIP(key, { uid, node, ip });
        return ip;
      }
    }
    throw new Error(`node ${node} has no free pod IP in ${base}0/24`);
  }

  /** Usage of every simulated node: pods placed there (as the informer shows them) plus pods assumed there. */
  private nodeUsage(): NodeUsage[] {
    const usage: NodeUsage[] = [];
    for (const name of this.nodeNames) {
      const node = this.getNode(name);
      if (node && isSimulatedNode(node)) usage.push({ node, ...this.accounting.usage(name) });
    }
    return usage;
  }

  private async schedulePod(key: string, pod: Pod, client: ResourceClientFactory, signal: AbortSignal | undefined): Promise<ReconcileResult> {
    // Pods with claims: volumebinding.ts (unbound Immediate claims wait, WaitForFirstConsumer ones get the node).
    const volumes = claimNames(pod).length > 0 ? await podVolumes(pod, client, signal) : undefined;
    let usage = this.nodeUsage();
    if (volumes?.pinnedNode) usage = usage.filter((u) => u.node.metadata?.name === volumes.pinnedNode);
    const result: ReturnType<typeof pickNode> = volumes?.unschedulable ? { message: `0/${usage.length} nodes are available: ${volumes.unschedulable}.` } : pickNode(pod, usage);
    const now = this.clock.now();
    if (result.node !== undefined && volumes && volumes.delayed.length > 0) {
      // PreBind: the claims learn the node; the pod is bound once they are (looked at again shortly).
      await selectNode(volumes.delayed, result.node, client, signal);
      return { requeueAfterMs: VOLUME_BINDING_RECHECK_MS };
    }
    if (result.node === undefined) {
      this.unschedulable.add(key);
      // Claims are not watched here: a pod waiting for one is looked at again.
      const again = volumes ? { requeueAfterMs: VOLUME_BINDING_RECHECK_MS } : {};
      const next = unschedulableStatus(pod, result.message, now);
      if (semanticEqual(next, pod.status ?? {})) return again;
      this.event(pod, "Warning", "FailedScheduling", result.message);
      await this.writeStatus(client, key, pod, next);
      return again;
    }
    this.unschedulable.delete(key);
    const node = result.node;
    // Decided synchronously, before any await: concurrent decisions see this one.
    this.accounting.assume(key, { uid: pod.metadata?.uid ?? "", node, requests: podRequests(pod) });
    try {
      await this.bind(key, pod, node, client, signal);
    } catch (err) {
      this.accounting.unassume(key);
      throw err;
    }
    this.event(pod, "Normal", "Scheduled", `Successfully assigned ${key} to ${node}`);
    return {};
  }

  private async bind(key: string, pod: Pod, node: string, client: ResourceClientFactory, signal: AbortSignal | undefined): Promise<void> {
    if (this.placementMode === "status") {
      await this.writeStatus(client, key, pod, placedStatus(pod, node, this.clock.now()));
      return;
    }
    // Until the informer shows the binding, this pod's cached copy is stale.
    this.pendingRV.set(key, pod.metadata?.resourceVersion ?? "");
    try {
      if (this.binder) {
        await this.binder(pod, node, signal);
      } else {
        const next = deepCopy(pod);
        next.spec = { ...(next.spec ?? { containers: [] }), nodeName: node };
        await this.podsClient(pod.metadata?.namespace ?? "", client).update(next);
      }
    } catch (err) {
      this.pendingRV.delete(key);
      if (this.placementOption === "auto" && !this.binder && (isInvalid(err) || isMethodNotSupported(err))) {
        this.placementMode = "status";
        this.logger.warn(
          { pod: key, err },
          "The API server refuses to set spec.nodeName on an existing pod and pods/binding is not reachable through the client: placing pods by status (status.nominatedNodeName, PodScheduled=True) from now on",
        );
        await this.writeStatus(client, key, pod, placedStatus(pod, node, this.clock.now()));
        return;
      }
      throw err;
    }
  }

  private async writeStatus(client: ResourceClientFactory, key: string, pod: Pod, status: PodStatus): Promise<ReconcileResult> {
    if (semanticEqual(status, pod.status ?? {})) return {};
    this.pendingRV.set(key, pod.metadata?.resourceVersion ?? "");
    try {
      await this.podsClient(pod.metadata?.namespace ?? "", client).updateStatus({ ...deepCopy(pod), status });
    } catch (err) {
      this.pendingRV.delete(key);
      // Gone meanwhile: the delete event cleans up.
      if (isNotFound(err)) return {};
      throw err;
    }
    return {};
  }

  /**
   * Graceful deletion: once deletionGracePeriodSeconds (else spec.terminationGracePeriodSeconds,
   * else 30) × speedFactor has passed since the kubelet first saw the deletionTimestamp — or
   * sooner, once every container has stopped by itself (stopPlan: finished pods at once) — the
   * pod is deleted with grace 0 and a UID precondition. A container with a preStop hook runs it
   * first, within the grace period (hooks.ts killTimeline: what is left afterwards, at least 2 s,
   * goes to the container; a failure records FailedPreStopHook). Pods never placed anywhere go
   * at once. A placed pod first gets its terminal phase (killedStatus), as a kubelet writes
   * before the delete: a pod kept by a finalizer (a Job's tracking finalizer) then shows how it
   * ended — which a Job with podReplacementPolicy Failed or a podFailurePolicy waits for.
   */
  private async terminate(key: string, pod: Pod, node: string | undefined, client: ResourceClientFactory): Promise<ReconcileResult> {
    if (node === undefined && !this.scheduleEnabled) return {};
    const uid = pod.metadata?.uid ?? "";
    const since = this.since(key, uid, "Terminating");
    const grace = node === undefined ? 0 : (pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30);
    const now = this.clock.now();
    const finished = pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
    let times = this.containerTimes.get(key);
    if (!times) this.containerTimes.set(key, (times = new Map()));
    // The kubelet's killContainer records Killing before it runs the preStop hook.
    if (node !== undefined && !finished && !times.has("killing")) {
      times.set("killing", now);
      this.event(pod, "Normal", "Killing", `Stopping container ${(pod.spec?.containers ?? []).map((c) => c.name).join(", ")}`);
    }
    const plan = node === undefined ? { dueMs: since, hookFailures: [] } : this.stopPlan(key, pod, since, grace);
    let next = plan.dueMs;
    for (const f of plan.hookFailures) {
      if (times.has(f.key)) continue;
      if (now < f.atMs) {
        next = Math.min(next, f.atMs);
        continue;
      }
      times.set(f.key, now);
      this.event(pod, "Warning", FAILED_PRE_STOP_HOOK, PRE_STOP_HOOK_FAILED_MESSAGE);
    }
    if (now < next) return { requeueAfterMs: next - now };
    if (node !== undefined && observeStage(pod) !== "Terminal") {
      try {
        await this.podsClient(pod.metadata?.namespace ?? "", client).updateStatus({ ...deepCopy(pod), status: killedStatus(pod, now) });
      } catch (err) {
        if (isNotFound(err)) return {};
        // Changed meanwhile: its update event brings the pod here again.
        if (isConflict(err)) return {};
        throw err;
      }
    }
    try {
      await this.podsClient(pod.metadata?.namespace ?? "", client).delete(pod.metadata?.name ?? "", { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (err) {
      // Already gone, or replaced by a new pod of the same name (UID precondition): done either way.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    return {};
  }

  /**
   * When a deleted pod's containers will all have stopped, killed from `since` with `grace`
   * seconds, and when their preStop hooks fail. The containers get SIGTERM (after their preStop
   * hook), which simulated programs ignore: each stops when its share of the grace period is
   * over, or sooner when its program ends by itself — but not before its hook returned, which
   * the kubelet waits for. Containers not running have nothing to stop; a pod that finished
   * goes at once; a pod whose containers were never created waits out the grace period.
   */
  private stopPlan(key: string, pod: Pod, since: number, grace: number): { dueMs: number; hookFailures: Array<{ atMs: number; key: string }> } {
    const hookFailures: Array<{ atMs: number; key: string }> = [];
    const phase = pod.status?.phase;
    if (phase === "Succeeded" || phase === "Failed") return { dueMs: since, hookFailures };
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    if (statuses.length === 0) return { dueMs: since + grace * 1000 * this.speedFactor, hookFailures };
    const programs = podPrograms(pod, undefined, true);
    const specs = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, c]));
    const times = this.containerTimes.get(key);
    let due = since;
    for (const cs of statuses) {
      const running = cs.state?.running;
      if (!running) continue;
      const container = specs.get(cs.name);
      const preStop = container ? hookOutcome(pod, container, "preStop", (err) => this.logger.warn({ pod: key, err }, "Ignoring invalid hook annotation")) : undefined;
      const kill = killTimeline(grace, preStop, this.speedFactor);
      let stop = since + kill.killMs;
      const program = programs?.containers.get(cs.name) ?? programs?.sidecars.get(cs.name) ?? programs?.initContainers.get(cs.name);
      if (program?.kind === "finite") {
        const started = (cs.containerID ? times?.get(`${cs.containerID}/start`) : undefined) ?? Date.parse(running.startedAt ?? "");
        if (!Number.isNaN(started)) stop = Math.min(stop, started + program.runMs);
      }
      if (kill.hookEndMs !== undefined) stop = Math.max(stop, since + kill.hookEndMs);
      if (kill.hookFailedMs !== undefined) hookFailures.push({ atMs: since + kill.hookFailedMs, key: `${cs.containerID ?? cs.name}/preStopFailed` });
      due = Math.max(due, stop);
    }
    return { dueMs: due, hookFailures };
  }

  private event(pod: Pod, type: string, reason: string, message: string): void {
    const ref: ObjectReference = {
      apiVersion: "v1",
      kind: "Pod",
      namespace: pod.metadata?.namespace,
      name: pod.metadata?.name,
      uid: pod.metadata?.uid,
      resourceVersion: pod.metadata?.resourceVersion,
    };
    this.recorder.event(ref, type, reason, message);
  }
}
