/**
 * The node lifecycle controller (upstream pkg/controller/nodelifecycle), the parts a single-zone
 * cluster needs: node health from heartbeats, the NotReady/Unreachable taints, and pods marked
 * not ready on a node that stopped reporting. Pod eviction itself is the taint eviction
 * controller's (../tainteviction), as upstream since 1.29 (SeparateTaintEvictionController).
 *
 * Health (tryUpdateNodeHealth). A node's heartbeat is its Ready condition's lastHeartbeatTime
 * and its Lease in kube-node-lease (spec.renewTime). The controller keeps, per node, the last
 * heartbeat values it saw and *when it saw them change* (probeTimestamp, on the injected Clock —
 * never the kubelet's own clock). Once the clock is strictly past probeTimestamp + the grace
 * period (nodeMonitorGracePeriod, upstream's default 50 s since 1.29; nodeStartupGracePeriod,
 * 60 s, for a node that never posted a Ready condition), every one of Ready, MemoryPressure,
 * DiskPressure and PIDPressure not already Unknown becomes Unknown — reason NodeStatusUnknown,
 * "Kubelet stopped posting node status." (NodeStatusNeverUpdated, "Kubelet never posted node
 * status." for one that was never there) — with lastTransitionTime now and lastHeartbeatTime
 * kept. Upstream polls every nodeMonitorPeriod (5 s); this controller instead requeues each node
 * for the instant its grace period ends, so it notices no later than upstream does.
 *
 * Taints. NoSchedule (doNoScheduleTaintingPass, TaintNodesByCondition) follow the node at once;
 * NoExecute (processTaintBaseEviction, doNoExecuteTaintingPass) go through the node's zone:
 *
 * | Ready   | NoSchedule taint                 | NoExecute taint                                 |
 * |---------|----------------------------------|-------------------------------------------------|
 * | False   | node.kubernetes.io/not-ready     | not-ready: swapped at once from unreachable, else queued in the zone |
 * | Unknown | node.kubernetes.io/unreachable   | unreachable: swapped at once from not-ready, else queued in the zone |
 * | True    | (removed)                        | (removed at once, and the node taken off its zone's queue) |
 *
 * plus node.kubernetes.io/unschedulable:NoSchedule while spec.unschedulable. The NoExecute
 * taints carry timeAdded.
 *
 * Zones (./zones.ts: zone keys from the topology labels, ComputeZoneState). Each zone has a
 * RateLimitedTimedQueue (./ratelimitedqueue.ts) whose token bucket (burst 1, so the first node is
 * tainted at once) runs at --node-eviction-rate (0.1/s) in a Normal zone, at
 * --secondary-node-eviction-rate (0.01/s) in a PartialDisruption zone of more than
 * --large-cluster-size-threshold (50) nodes and not at all in a smaller one, and at the normal
 * rate in a FullDisruption zone — unless every zone is in FullDisruption: then the controller
 * assumes it is itself cut off, removes every NoExecute taint it set, stops all tainting, and on
 * the first pass where some zone is back restarts every node's grace period (handleDisruption).
 * The zone pass is a request of its own (ZONE_PASS: a namespaced name no cluster-scoped node can
 * have), queued after every node's sync and requeued for when a zone's limiter next grants a
 * token; upstream runs it every nodeMonitorPeriod and the tainting every 100 ms instead.
 * Metrics: upstream's node_collector_zone_health, _zone_size, _unhealthy_nodes_in_zone and
 * _evictions_total, the zone label being "region/zone" (upstream's key has a NUL byte in it).
 *
 * When Ready stops being True, the pods on the node get Ready=False (markPodsNotReady), so
 * endpoints stop routing to a node nobody hears from.
 *
 * Composed with the builder — requests: node names and ZONE_PASS; for(nodes), watches(leases) →
 * the lease's name in kube-node-lease.
 */
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import type { Node, NodeCondition, Pod, Taint } from "../../apimachinery/api/core/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isConflict, isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { formatTime, parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { patchPodStatus, updatePodCondition } from "../podgc/podstatus.js";
import { nodeLifecycleMetrics, type NodeLifecycleMetrics } from "./metrics.js";
import { RateLimitedTimedQueue, type TryResult } from "./ratelimitedqueue.js";
import {
  computeZoneState,
  DEFAULT_LARGE_CLUSTER_SIZE_THRESHOLD,
  DEFAULT_NODE_EVICTION_RATE,
  DEFAULT_SECONDARY_NODE_EVICTION_RATE,
  DEFAULT_UNHEALTHY_ZONE_THRESHOLD,
  type EvictionRates,
  isExcludedFromDisruptionChecks,
  zoneDisplayName,
  zoneEvictionRate,
  zoneKey,
  type ZoneState,
} from "./zones.js";

export const NODE_LIFECYCLE_CONTROLLER_NAME = "node-lifecycle-controller";
/** --node-monitor-grace-period: 50 s since Kubernetes 1.29 (40 s before). */
export const DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS = 50_000;
/** --node-startup-grace-period. */
export const DEFAULT_NODE_STARTUP_GRACE_PERIOD_MS = 60_000;
export const NODE_LEASE_NAMESPACE = "kube-node-lease";

export const TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready";
export const TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable";
export const TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

export const NODE_STATUS_UNKNOWN_REASON = "NodeStatusUnknown";
export const NODE_STATUS_UNKNOWN_MESSAGE = "Kubelet stopped posting node status.";
export const NODE_STATUS_NEVER_UPDATED_REASON = "NodeStatusNeverUpdated";
export const NODE_STATUS_NEVER_UPDATED_MESSAGE = "Kubelet never posted node status.";

/**
 * The zone pass's request: nodes are cluster-scoped, so no node's request has a namespace.
 */
export const ZONE_PASS = new ObjectName("kubeloop.dev/node-lifecycle", "zones");

/** The conditions the controller turns Unknown (upstream's remaining node condition types). */
const MONITORED_CONDITIONS = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] as const;
/** The NoSchedule taint keys this controller owns. */
const MANAGED_NO_SCHEDULE = new Set([TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE]);
/** upstream's retry delay when a queued node has no Ready condition to read. */
const NO_CONDITION_RETRY_MS = 50;
/** upstream's UpdateTaintBackoff steps: attempts at a taint write that keeps conflicting. */
const TAINT_UPDATE_ATTEMPTS = 5;

export interface NodeLifecycleControllerOptions {
  nodeMonitorGracePeriodMs?: number;
  nodeStartupGracePeriodMs?: number;
  /** --node-eviction-rate: nodes tainted NoExecute per second per zone (default 0.1). */
  nodeEvictionRate?: number;
  /** --secondary-node-eviction-rate: the rate in a large partially disrupted zone (default 0.01). */
  secondaryNodeEvictionRate?: number;
  /** --large-cluster-size-threshold (default 50). */
  largeClusterSizeThreshold?: number;
  /** --unhealthy-zone-threshold (default 0.55). */
  unhealthyZoneThreshold?: number;
}

/** What the controller last saw of a node's heartbeats, and when it saw them change. */
interface NodeHealth {
  uid: string;
  heartbeat: string | undefined;
  leaseRenew: number | undefined;
  probeTimestamp: number;
}

const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
const hasTaint = (node: Node, key: string, effect: string) => (node.spec?.taints ?? []).some((t) => t.key === key && t.effect === effect);

/** The NoSchedule taints a node should carry for its Ready condition and spec.unschedulable. */
export function desiredTaints(node: Node): Taint[] {
  // No Ready condition yet (a node registering): no condition taint until it turns Unknown.
  const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "True";
  const want: Taint[] = [];
  const key = ready === "False" ? TAINT_NODE_NOT_READY : ready === "True" ? undefined : TAINT_NODE_UNREACHABLE;
  if (key) want.push({ key, effect: "NoSchedule" });
  if (node.spec?.unschedulable) want.push({ key: TAINT_NODE_UNSCHEDULABLE, effect: "NoSchedule" });
  return want;
}

/**
 * The node's taints with the managed NoSchedule ones replaced by `want` (an existing taint of
 * the same key and effect kept as it is); undefined when nothing changes. Other taints, the
 * NoExecute ones included, are kept.
 */
export function reconcileTaints(current: readonly Taint[], want: readonly Taint[]): Taint[] | undefined {
  const managed = (t: Taint) => t.effect === "NoSchedule" && MANAGED_NO_SCHEDULE.has(t.key);
  const kept = current.filter((t) => !managed(t) || want.some((w) => sameTaint(w, t)));
  const added = want.filter((w) => !current.some((t) => sameTaint(w, t)));
  if (kept.length === current.length && added.length === 0) return undefined;
  return [...kept, ...added];
}

/** `taints` without `remove` and with `add` (timeAdded now) unless present; undefined when unchanged. */
function swapTaints(taints: readonly Taint[], add: readonly Taint[], remove: readonly Taint[], nowMs: number): Taint[] | undefined {
  const kept = taints.filter((t) => !remove.some((r) => sameTaint(r, t)));
  const added = add.filter((a) => !kept.some((t) => sameTaint(a, t))).map((a) => ({ ...a, timeAdded: formatTime(nowMs) }));
  if (kept.length === taints.length && added.length === 0) return undefined;
  return [...kept, ...added];
}

const NOT_READY_NO_EXECUTE: Taint = { key: TAINT_NODE_NOT_READY, effect: "NoExecute" };
const UNREACHABLE_NO_EXECUTE: Taint = { key: TAINT_NODE_UNREACHABLE, effect: "NoExecute" };

export class NodeLifecycleController {
  readonly controller: Controller;
  readonly nodeMonitorGracePeriodMs: number;
  readonly nodeStartupGracePeriodMs: number;
  readonly unhealthyZoneThreshold: number;
  readonly rates: Readonly<EvictionRates>;
  private readonly nodes: Lister<Node>;
  private readonly leases: Lister<Lease>;
  private readonly pods: Lister<Pod>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly metrics: NodeLifecycleMetrics;
  /** Per node name: the heartbeats last seen (upstream's nodeHealthMap). */
  private readonly health = new Map<string, NodeHealth>();
  /**
   * Per zone key: its state as of the last zone pass (upstream's zoneStates; a zone is here while
   * it has nodes) and its tainting queue (zoneNoExecuteTainter; kept once created, as upstream's).
   */
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly tainters = new Map<string, RateLimitedTimedQueue>();

  constructor(mgr: Manager, opts: NodeLifecycleControllerOptions = {}) {
    this.nodeMonitorGracePeriodMs = opts.nodeMonitorGracePeriodMs ?? DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS;
    this.nodeStartupGracePeriodMs = opts.nodeStartupGracePeriodMs ?? DEFAULT_NODE_STARTUP_GRACE_PERIOD_MS;
    this.unhealthyZoneThreshold = opts.unhealthyZoneThreshold ?? DEFAULT_UNHEALTHY_ZONE_THRESHOLD;
    this.rates = Object.freeze({
      nodeEvictionRate: opts.nodeEvictionRate ?? DEFAULT_NODE_EVICTION_RATE,
      secondaryNodeEvictionRate: opts.secondaryNodeEvictionRate ?? DEFAULT_SECONDARY_NODE_EVICTION_RATE,
      largeClusterSizeThreshold: opts.largeClusterSizeThreshold ?? DEFAULT_LARGE_CLUSTER_SIZE_THRESHOLD,
    });
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: NODE_LIFECYCLE_CONTROLLER_NAME });
    this.recorder = mgr.eventRecorder("node-controller");
    this.metrics = nodeLifecycleMetrics(mgr.registry);
    this.nodes = mgr.informers.forResource(builtin.nodes).lister();
    this.leases = mgr.informers.forResource(builtin.leases).lister();
    this.pods = mgr.informers.forResource(builtin.pods).lister();
    const leaseToNode = (l: Lease) => (l.metadata?.namespace === NODE_LEASE_NAMESPACE ? [new ObjectName("", l.metadata?.name ?? "")] : []);
    this.controller = mgr
      .controller(NODE_LIFECYCLE_CONTROLLER_NAME)
      .for(builtin.nodes)
      .watches(builtin.leases, leaseToNode)
      .watches(builtin.pods, {})
      .withOptions({ maxConcurrentReconciles: 1 })
      .reconcile((req, ctx) => (req.equals(ZONE_PASS) ? this.zonePass(ctx.client) : this.sync(req.name, ctx.client)));
  }

  /** The state of every zone that has nodes, as of the last zone pass (keys: zoneKey). */
  zones(): ReadonlyMap<string, ZoneState> {
    return new Map(this.zoneStates);
  }

  /** The nodes waiting in a zone's tainting queue, in order. */
  waitingForTaint(zone: string): string[] {
    return this.tainters.get(zone)?.waiting() ?? [];
  }

  /** One node: health, then taints, then (when it stopped being Ready) its pods; then the zone pass. */
  async sync(name: string, client: ResourceClientFactory): Promise<ReconcileResult> {
    let node: Node;
    try {
      node = this.nodes.get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.health.delete(name);
      for (const q of this.tainters.values()) q.remove(name);
      this.controller.queue.add(ZONE_PASS);
      return {};
    }
    this.ensureZone(node);
    const { node: current, recheckAt, becameUnknown } = await this.updateHealth(node, client);
    await this.updateTaints(current, client);
    if (becameUnknown || readyStatus(current) !== "True") await this.markPodsNotReady(current, client);
    this.controller.queue.add(ZONE_PASS);
    return recheckAt === undefined ? {} : { requeueAfterMs: Math.max(0, recheckAt - this.clock.now()) };
  }

  /** addPodEvictorForNewZone: a zone seen for the first time starts Initial, at the normal rate. */
  private ensureZone(node: Node): string {
    const zone = zoneKey(node);
    if (!this.zoneStates.has(zone)) {
      this.zoneStates.set(zone, "Initial");
      this.logger.info({ zone: zoneDisplayName(zone) }, "Initializing eviction metric for zone");
      this.metrics.evictionsTotal.inc({ zone: zoneDisplayName(zone) }, 0);
    }
    if (!this.tainters.has(zone)) this.tainters.set(zone, new RateLimitedTimedQueue(this.rates.nodeEvictionRate, this.clock));
    return zone;
  }

  private leaseRenewTime(name: string): number | undefined {
    try {
      return parseTime(this.leases.namespace(NODE_LEASE_NAMESPACE).get(name).spec?.renewTime);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** tryUpdateNodeHealth: the node as it is after this pass, and when to look again. */
  private async updateHealth(node: Node, client: ResourceClientFactory): Promise<{ node: Node; recheckAt?: number; becameUnknown: boolean }> {
    const name = node.metadata?.name ?? "";
    const now = this.clock.now();
    const ready = node.status?.conditions?.find((c) => c.type === "Ready");
    const heartbeat = ready?.lastHeartbeatTime;
    const leaseRenew = this.leaseRenewTime(name);
    let saved = this.health.get(name);
    if (!saved || saved.uid !== (node.metadata?.uid ?? "")) {
      saved = { uid: node.metadata?.uid ?? "", heartbeat, leaseRenew, probeTimestamp: now };
      this.health.set(name, saved);
    } else {
      if (saved.heartbeat !== heartbeat) {
        saved.heartbeat = heartbeat;
        saved.probeTimestamp = now;
      }
      if (leaseRenew !== undefined && (saved.leaseRenew === undefined || leaseRenew > saved.leaseRenew)) {
        saved.leaseRenew = leaseRenew;
        saved.probeTimestamp = now;
      }
    }
    const grace = ready ? this.nodeMonitorGracePeriodMs : this.nodeStartupGracePeriodMs;
    const deadline = saved.probeTimestamp + grace;
    if (now <= deadline) return { node, recheckAt: deadline + 1, becameUnknown: false };

    const next = deepCopy(node);
    const conditions: NodeCondition[] = [...(next.status?.conditions ?? [])];
    let changed = false;
    const t = formatTime(now);
    for (const type of MONITORED_CONDITIONS) {
      const i = conditions.findIndex((c) => c.type === type);
      if (i < 0) {
        conditions.push({ type, status: "Unknown", reason: NODE_STATUS_NEVER_UPDATED_REASON, message: NODE_STATUS_NEVER_UPDATED_MESSAGE, lastHeartbeatTime: formatTime(parseTime(node.metadata?.creationTimestamp) ?? now), lastTransitionTime: t });
        changed = true;
      } else if (conditions[i].status !== "Unknown") {
        conditions[i] = { ...conditions[i], status: "Unknown", reason: NODE_STATUS_UNKNOWN_REASON, message: NODE_STATUS_UNKNOWN_MESSAGE, lastTransitionTime: t };
        changed = true;
      }
    }
    if (!changed) return { node, becameUnknown: false };
    next.status = { ...(next.status ?? {}), conditions };
    const written = await client.resource(builtin.nodes).updateStatus(next);
    this.logger.info({ node: name }, "Node hasn't been updated within the grace period; marking its conditions Unknown");
    this.recorder.event(nodeRef(node), "Normal", "NodeNotReady", `Node ${name} status is now: NodeNotReady`);
    return { node: written, becameUnknown: true };
  }

  /**
   * doNoScheduleTaintingPass and processTaintBaseEviction in one write: the NoSchedule taints
   * follow the conditions; a NoExecute taint of the other kind is swapped at once; Ready removes
   * both NoExecute taints (markNodeAsReachable); otherwise the node is queued in its zone.
   */
  private async updateTaints(node: Node, client: ResourceClientFactory): Promise<void> {
    const name = node.metadata?.name ?? "";
    const zone = this.ensureZone(node);
    const tainter = this.tainters.get(zone);
    const ready = readyStatus(node);
    let taints = reconcileTaints(node.spec?.taints ?? [], desiredTaints(node)) ?? node.spec?.taints ?? [];
    const swap = (add: Taint[], remove: Taint[]) => (taints = swapTaints(taints, add, remove, this.clock.now()) ?? taints);
    if (ready === "True") {
      swap([], [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE]);
      tainter?.remove(name);
    } else if (ready === "False") {
      if (hasTaint(node, TAINT_NODE_UNREACHABLE, "NoExecute")) swap([NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE]);
      else this.markNodeForTainting(node, tainter, TAINT_NODE_NOT_READY);
    } else if (node.status?.conditions?.some((c) => c.type === "Ready")) {
      if (hasTaint(node, TAINT_NODE_NOT_READY, "NoExecute")) swap([UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE]);
      else this.markNodeForTainting(node, tainter, TAINT_NODE_UNREACHABLE);
    }
    await this.writeTaints(node, taints, client);
  }

  /** markNodeForTainting: queued afresh unless it already carries the taint it is queued for. */
  private markNodeForTainting(node: Node, tainter: RateLimitedTimedQueue | undefined, key: string): void {
    const name = node.metadata?.name ?? "";
    if (!tainter) return;
    if (!hasTaint(node, key, "NoExecute")) tainter.remove(name);
    tainter.add(name, node.metadata?.uid ?? "");
  }

  /** Writes `taints` unless they are the node's already. */
  private async writeTaints(node: Node, taints: readonly Taint[], client: ResourceClientFactory): Promise<Node> {
    const current = node.spec?.taints ?? [];
    if (taints.length === current.length && taints.every((t, i) => t === current[i])) return node;
    const next = deepCopy(node);
    next.spec = { ...(next.spec ?? {}), taints: [...taints] };
    if (taints.length === 0) delete next.spec.taints;
    return client.resource(builtin.nodes).update(next);
  }

  /**
   * SwapNodeControllerTaint: adds `add` and removes `remove`, reading the node again from the API
   * when the write conflicts (the cache may lag our own writes). False when it could not.
   */
  private async swapNodeTaints(node: Node, add: Taint[], remove: Taint[], client: ResourceClientFactory): Promise<boolean> {
    let cur = node;
    for (let attempt = 0; attempt < TAINT_UPDATE_ATTEMPTS; attempt++) {
      const taints = swapTaints(cur.spec?.taints ?? [], add, remove, this.clock.now());
      if (!taints) return true;
      try {
        await this.writeTaints(cur, taints, client);
        return true;
      } catch (err) {
        if (isNotFound(err)) return true;
        if (!isConflict(err)) throw err;
        cur = await client.resource(builtin.nodes).get(node.metadata?.name ?? "");
      }
    }
    return false;
  }

  /**
   * The zone pass: every zone's state (handleDisruption), then the NoExecute tainting of what the
   * zones' limiters allow (doNoExecuteTaintingPass); requeued for when a limiter next grants.
   */
  async zonePass(client: ResourceClientFactory): Promise<ReconcileResult> {
    const nodes = this.nodes.list();
    const conditions = new Map<string, Array<NodeCondition | undefined>>();
    for (const node of nodes) {
      const zone = this.ensureZone(node);
      if (isExcludedFromDisruptionChecks(node)) continue;
      const list = conditions.get(zone) ?? [];
      list.push(node.status?.conditions?.find((c) => c.type === "Ready"));
      conditions.set(zone, list);
    }
    await this.handleDisruption(conditions, nodes, client);
    await this.taintingPass(client);
    let next: number | undefined;
    for (const q of this.tainters.values()) {
      const ms = q.nextAttemptInMs();
      if (ms !== undefined && (next === undefined || ms < next)) next = ms;
    }
    return next === undefined ? {} : { requeueAfterMs: next };
  }

  private async handleDisruption(zoneToConditions: Map<string, Array<NodeCondition | undefined>>, nodes: readonly Node[], client: ResourceClientFactory): Promise<void> {
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conds] of zoneToConditions) {
      const label = { zone: zoneDisplayName(zone) };
      const { notReady, state } = computeZoneState(conds, this.unhealthyZoneThreshold);
      this.metrics.zoneSize.set(label, conds.length);
      this.metrics.zoneHealth.set(label, (100 * (conds.length - notReady)) / conds.length);
      this.metrics.unhealthyNodes.set(label, notReady);
      if (state !== "FullDisruption") allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, "Initial");
    }
    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneToConditions.has(zone)) {
        const label = { zone: zoneDisplayName(zone) };
        this.metrics.zoneSize.set(label, 0);
        this.metrics.zoneHealth.set(label, 100);
        this.metrics.unhealthyNodes.set(label, 0);
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== "FullDisruption") allWasFullyDisrupted = false;
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) return;

    if (allAreFullyDisrupted) {
      this.logger.info({}, "Controller detected that all Nodes are not-Ready. Entering master disruption mode");
      for (const node of nodes) {
        try {
          await this.swapNodeTaints(node, [], [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE], client);
        } catch (err) {
          this.logger.error({ node: node.metadata?.name, err }, "Failed to remove taints from Node");
        }
        this.tainters.get(zoneKey(node))?.remove(node.metadata?.name ?? "");
      }
      for (const zone of this.zoneStates.keys()) {
        this.tainters.get(zone)?.swapLimiter(0);
        this.zoneStates.set(zone, "FullDisruption");
      }
      return;
    }
    if (allWasFullyDisrupted) {
      this.logger.info({}, "Controller detected that some Nodes are Ready. Exiting master disruption mode");
      // Every node gets a fresh grace period: their kubelets may have been fine all along.
      const now = this.clock.now();
      for (const node of nodes) {
        const h = this.health.get(node.metadata?.name ?? "");
        if (h) h.probeTimestamp = now;
      }
      for (const zone of this.zoneStates.keys()) {
        const state = newStates.get(zone) ?? "Normal";
        this.tainters.get(zone)?.swapLimiter(zoneEvictionRate(state, zoneToConditions.get(zone)?.length ?? 0, this.rates));
        this.zoneStates.set(zone, state);
      }
      return;
    }
    for (const [zone, state] of [...this.zoneStates]) {
      const next = newStates.get(zone);
      if (!next || next === state) continue;
      this.logger.info({ zone: zoneDisplayName(zone), newState: next }, "Controller detected that zone is now in new state");
      this.tainters.get(zone)?.swapLimiter(zoneEvictionRate(next, zoneToConditions.get(zone)?.length ?? 0, this.rates));
      this.zoneStates.set(zone, next);
    }
  }

  /** doNoExecuteTaintingPass: each zone's queue, as far as its limiter allows. */
  private async taintingPass(client: ResourceClientFactory): Promise<void> {
    for (const [zone, queue] of this.tainters) {
      await queue.try(async ({ value }): Promise<TryResult> => {
        let node: Node;
        try {
          node = this.nodes.get(value);
        } catch (err) {
          if (isNotFound(err)) return { ok: true };
          throw err;
        }
        const ready = node.status?.conditions?.find((c) => c.type === "Ready");
        if (!ready) return { ok: false, waitMs: NO_CONDITION_RETRY_MS };
        // not-ready and unreachable are exclusive, as the Ready condition's values are.
        let add: Taint, remove: Taint;
        if (ready.status === "False") [add, remove] = [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE];
        else if (ready.status === "Unknown") [add, remove] = [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE];
        else return { ok: true }; // Ready again: nothing to taint.
        const ok = await this.swapNodeTaints(node, [add], [remove], client);
        if (ok) this.metrics.evictionsTotal.inc({ zone: zoneDisplayName(zone) });
        return ok ? { ok: true } : { ok: false, waitMs: 0 };
      });
    }
  }

  /** markPodsNotReady: every pod on the node with a Ready condition other than False gets Ready=False. */
  private async markPodsNotReady(node: Node, client: ResourceClientFactory): Promise<void> {
    const name = node.metadata?.name ?? "";
    for (const pod of this.pods.list()) {
      if (pod.spec?.nodeName !== name) continue;
      const ready = pod.status?.conditions?.find((c) => c.type === "Ready");
      if (!ready || ready.status === "False") continue;
      const status = deepCopy(pod.status ?? {});
      updatePodCondition(status, { ...ready, status: "False" }, this.clock.now());
      try {
        await patchPodStatus(client, pod, status);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}

function readyStatus(node: Node): string {
  return node.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "Unknown";
}

function nodeRef(node: Node) {
  return { apiVersion: "v1", kind: "Node", name: node.metadata?.name, uid: node.metadata?.uid };
}
