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
 * Taints (doNoExecuteTaintingPass and doNoScheduleTaintingPass, TaintNodesByCondition):
 *
 * | Ready   | NoExecute taint                  | NoSchedule taint                  |
 * |---------|----------------------------------|-----------------------------------|
 * | False   | node.kubernetes.io/not-ready     | node.kubernetes.io/not-ready      |
 * | Unknown | node.kubernetes.io/unreachable   | node.kubernetes.io/unreachable    |
 * | True    | (removed)                        | (removed)                         |
 *
 * plus node.kubernetes.io/unschedulable:NoSchedule while spec.unschedulable. The NoExecute
 * taints carry timeAdded; the two swap in one update. Upstream rate-limits NoExecute tainting
 * per zone (--node-eviction-rate 0.1/s, burst 1, so the first node is tainted at once); in a
 * single-zone simulated cluster every node is tainted when it turns unhealthy — a known
 * simplification, as is the absence of the zone states (PartialDisruption, FullDisruption).
 *
 * When Ready stops being True, the pods on the node get Ready=False (markPodsNotReady), so
 * endpoints stop routing to a node nobody hears from.
 *
 * Composed with the builder — requests: node names; for(nodes), watches(leases) → the lease's
 * name in kube-node-lease.
 */
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import type { Node, NodeCondition, Pod, Taint } from "../../apimachinery/api/core/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isNotFound } from "../../apimachinery/errors.js";
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

/** The conditions the controller turns Unknown (upstream's remaining node condition types). */
const MONITORED_CONDITIONS = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] as const;
/** The taint keys this controller owns. */
const MANAGED_TAINTS = new Set([TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE]);

export interface NodeLifecycleControllerOptions {
  nodeMonitorGracePeriodMs?: number;
  nodeStartupGracePeriodMs?: number;
}

/** What the controller last saw of a node's heartbeats, and when it saw them change. */
interface NodeHealth {
  uid: string;
  heartbeat: string | undefined;
  leaseRenew: number | undefined;
  probeTimestamp: number;
}

/** The taints a node should carry for its Ready condition and spec.unschedulable. */
export function desiredTaints(node: Node, nowMs: number): Taint[] {
  // No Ready condition yet (a node registering): no condition taint until it turns Unknown.
  const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "True";
  const want: Taint[] = [];
  const key = ready === "False" ? TAINT_NODE_NOT_READY : ready === "True" ? undefined : TAINT_NODE_UNREACHABLE;
  if (key) {
    want.push({ key, effect: "NoSchedule" });
    want.push({ key, effect: "NoExecute", timeAdded: formatTime(nowMs) });
  }
  if (node.spec?.unschedulable) want.push({ key: TAINT_NODE_UNSCHEDULABLE, effect: "NoSchedule" });
  return want;
}

/**
 * The node's taints with the managed ones replaced by `want` (an existing taint of the same key
 * and effect kept as it is, timeAdded included); undefined when nothing changes.
 */
export function reconcileTaints(current: readonly Taint[], want: readonly Taint[]): Taint[] | undefined {
  const same = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
  const kept = current.filter((t) => !MANAGED_TAINTS.has(t.key) || want.some((w) => same(w, t)));
  const added = want.filter((w) => !current.some((t) => same(w, t)));
  if (kept.length === current.length && added.length === 0) return undefined;
  return [...kept, ...added];
}

export class NodeLifecycleController {
  readonly controller: Controller;
  readonly nodeMonitorGracePeriodMs: number;
  readonly nodeStartupGracePeriodMs: number;
  private readonly nodes: Lister<Node>;
  private readonly leases: Lister<Lease>;
  private readonly pods: Lister<Pod>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  /** Per node name: the heartbeats last seen (upstream's nodeHealthMap). */
  private readonly health = new Map<string, NodeHealth>();

  constructor(mgr: Manager, opts: NodeLifecycleControllerOptions = {}) {
    this.nodeMonitorGracePeriodMs = opts.nodeMonitorGracePeriodMs ?? DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS;
    this.nodeStartupGracePeriodMs = opts.nodeStartupGracePeriodMs ?? DEFAULT_NODE_STARTUP_GRACE_PERIOD_MS;
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: NODE_LIFECYCLE_CONTROLLER_NAME });
    this.recorder = mgr.eventRecorder("node-controller");
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
      .reconcile((req, ctx) => this.sync(req.name, ctx.client));
  }

  /** One node: health, then taints, then (when it stopped being Ready) its pods. */
  async sync(name: string, client: ResourceClientFactory): Promise<ReconcileResult> {
    let node: Node;
    try {
      node = this.nodes.get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.health.delete(name);
      return {};
    }
    const { node: current, recheckAt, becameUnknown } = await this.updateHealth(node, client);
    await this.updateTaints(current, client);
    if (becameUnknown || readyStatus(current) !== "True") await this.markPodsNotReady(current, client);
    return recheckAt === undefined ? {} : { requeueAfterMs: Math.max(0, recheckAt - this.clock.now()) };
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

  private async updateTaints(node: Node, client: ResourceClientFactory): Promise<void> {
    const taints = reconcileTaints(node.spec?.taints ?? [], desiredTaints(node, this.clock.now()));
    if (!taints) return;
    const next = deepCopy(node);
    next.spec = { ...(next.spec ?? {}), taints };
    if (taints.length === 0) delete next.spec.taints;
    await client.resource(builtin.nodes).update(next);
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
