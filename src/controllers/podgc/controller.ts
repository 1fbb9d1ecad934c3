/**
 * The pod garbage collector (upstream pkg/controller/podgc): every gcCheckPeriod (20 s) it looks
 * at all pods and nodes in the caches and force-deletes (grace 0)
 *
 * - terminated pods (phase neither Pending, Running nor Unknown) beyond
 *   `terminatedPodThreshold` (--terminated-pod-gc-threshold, default 12 500; 0 turns this off),
 *   evicted pods first, then the oldest, names breaking ties;
 * - terminating pods on a node that is not Ready and carries the
 *   `node.kubernetes.io/out-of-service` taint;
 * - orphaned pods: bound (spec.nodeName) to a node that is not in the cache, once the node has
 *   been missing for the quarantine (40 s) and a GET confirms it is gone — these get the
 *   DisruptionTarget condition (reason DeletionByPodGC, "PodGC: node no longer exists");
 * - unscheduled terminating pods (a deletionTimestamp and no spec.nodeName).
 *
 * Before deleting, a pod not already Succeeded or Failed is patched to phase Failed (with the
 * condition, if any), as upstream's markFailedAndDeletePodWithCondition: an orphaned pod has no
 * kubelet left to give it a final phase.
 *
 * The quarantine is upstream's delaying queue of node names: a missing node is added with a
 * deadline (an earlier deadline wins), and each pass takes the names whose deadline has passed.
 * It is this controller's only state, kept on the injected Clock.
 *
 * Composed with the builder — one request ("podgc"), added at start by a raw source and requeued
 * every gcCheckPeriod; watches(pods) and watches(nodes) with no handlers, so the workers start
 * only once both caches have synced (upstream's WaitForNamedCacheSync).
 */
import type { Node, Pod, PodCondition } from "../../apimachinery/api/core/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { DISRUPTION_TARGET, patchPodStatus, updatePodCondition } from "./podstatus.js";

export const PODGC_CONTROLLER_NAME = "pod-garbage-collector";
/** Upstream gcCheckPeriod. */
export const GC_CHECK_PERIOD_MS = 20_000;
/** Upstream quarantineTime: how long a missing node may take to show up in the informer. */
export const QUARANTINE_MS = 40_000;
/** kube-controller-manager's --terminated-pod-gc-threshold default. */
export const DEFAULT_TERMINATED_POD_GC_THRESHOLD = 12_500;
/** v1.TaintNodeOutOfService. */
export const TAINT_NODE_OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";
export const DELETION_BY_POD_GC = "DeletionByPodGC";

const GC_REQUEST = new ObjectName("", "podgc");

export interface PodGCControllerOptions {
  /** 0 (or less) turns terminated-pod collection off. Default 12 500. */
  terminatedPodThreshold?: number;
  gcCheckPeriodMs?: number;
  quarantineMs?: number;
}

/** isPodTerminated: the phase is neither Pending, Running nor Unknown (an unset phase counts as terminated, as upstream). */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase ?? "";
  return phase !== "Pending" && phase !== "Running" && phase !== "Unknown";
}

/** eviction.PodIsEvicted: Failed with reason Evicted. */
export function podIsEvicted(pod: Pod): boolean {
  return pod.status?.phase === "Failed" && pod.status?.reason === "Evicted";
}

/** nodeutil.IsNodeReady: the Ready condition is True. */
export function isNodeReady(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

/** byEvictionAndCreationTimestamp: evicted pods first, then by creation time, then by name. */
export function byEvictionAndCreationTimestamp(a: Pod, b: Pod): number {
  const ea = podIsEvicted(a);
  const eb = podIsEvicted(b);
  if (ea !== eb) return ea ? -1 : 1;
  const ta = parseTime(a.metadata?.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata?.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? "";
  const nb = b.metadata?.name ?? "";
  return na < nb ? -1 : na > nb ? 1 : 0;
}

export class PodGCController {
  readonly controller: Controller;
  readonly terminatedPodThreshold: number;
  readonly gcCheckPeriodMs: number;
  readonly quarantineMs: number;
  private readonly pods: Lister<Pod>;
  private readonly nodes: Lister<Node>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** Node names missing from the cache → when their quarantine ends. */
  private readonly quarantine = new Map<string, number>();

  constructor(mgr: Manager, opts: PodGCControllerOptions = {}) {
    this.terminatedPodThreshold = opts.terminatedPodThreshold ?? DEFAULT_TERMINATED_POD_GC_THRESHOLD;
    this.gcCheckPeriodMs = opts.gcCheckPeriodMs ?? GC_CHECK_PERIOD_MS;
    this.quarantineMs = opts.quarantineMs ?? QUARANTINE_MS;
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: PODGC_CONTROLLER_NAME });
    this.pods = mgr.informers.forResource(builtin.pods).lister();
    this.nodes = mgr.informers.forResource(builtin.nodes).lister();
    this.controller = mgr
      .controller(PODGC_CONTROLLER_NAME)
      .watches(builtin.pods, {})
      .watches(builtin.nodes, {})
      .watchesRawSource({ start: (q) => q.add(GC_REQUEST) })
      .withOptions({ maxConcurrentReconciles: 1 })
      .reconcile(async (_req, ctx) => {
        await this.gc(ctx.client);
        return { requeueAfterMs: this.gcCheckPeriodMs } satisfies ReconcileResult;
      });
  }

  /** One pass (upstream gc): terminated, terminating on out-of-service nodes, orphaned, unscheduled terminating. */
  async gc(client: ResourceClientFactory): Promise<void> {
    const pods = this.pods.list();
    const nodes = this.nodes.list();
    if (this.terminatedPodThreshold > 0) await this.gcTerminated(client, pods);
    await this.gcTerminating(client, pods);
    await this.gcOrphaned(client, pods, nodes);
    await this.gcUnscheduledTerminating(client, pods);
  }

  async gcTerminated(client: ResourceClientFactory, pods: readonly Pod[]): Promise<void> {
    const terminated = pods.filter(isPodTerminated);
    const deleteCount = terminated.length - this.terminatedPodThreshold;
    if (deleteCount <= 0) return;
    this.logger.info({ numPods: deleteCount }, "Garbage collecting pods");
    const victims = [...terminated].sort(byEvictionAndCreationTimestamp).slice(0, deleteCount);
    await this.deleteAll(client, victims);
  }

  async gcTerminating(client: ResourceClientFactory, pods: readonly Pod[]): Promise<void> {
    const victims: Pod[] = [];
    for (const pod of pods) {
      if (!pod.metadata?.deletionTimestamp) continue;
      let node: Node;
      try {
        node = this.nodes.get(pod.spec?.nodeName ?? "");
      } catch (err) {
        if (!isNotFound(err)) this.logger.error({ err, node: pod.spec?.nodeName }, "Failed to get node");
        continue;
      }
      if (!isNodeReady(node) && (node.spec?.taints ?? []).some((t) => t.key === TAINT_NODE_OUT_OF_SERVICE)) victims.push(pod);
    }
    if (victims.length === 0) return;
    this.logger.info({ numPods: victims.length }, "Garbage collecting pods that are terminating on node tainted with node.kubernetes.io/out-of-service");
    await this.deleteAll(client, victims.sort(byEvictionAndCreationTimestamp));
  }

  /** gcOrphaned: pods bound to nodes that are gone, after the quarantine and a GET of the node. */
  async gcOrphaned(client: ResourceClientFactory, pods: readonly Pod[], nodes: readonly Node[]): Promise<void> {
    const existing = new Set(nodes.map((n) => n.metadata?.name ?? ""));
    const now = this.clock.now();
    for (const pod of pods) {
      const name = pod.spec?.nodeName;
      if (name && !existing.has(name)) {
        const at = now + this.quarantineMs;
        const have = this.quarantine.get(name);
        if (have === undefined || at < have) this.quarantine.set(name, at);
      }
    }
    const deleted = new Set<string>();
    for (const [name, at] of [...this.quarantine]) {
      if (at > now) continue;
      this.quarantine.delete(name);
      if (existing.has(name)) continue;
      try {
        await client.resource(builtin.nodes).get(name);
      } catch (err) {
        if (isNotFound(err)) deleted.add(name);
        // Any other error: the node is quarantined again on the next pass if still needed.
        else this.logger.error({ err, node: name }, "Error while getting node");
      }
    }
    for (const pod of pods) {
      if (!deleted.has(pod.spec?.nodeName ?? "")) continue;
      this.logger.info({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, node: pod.spec?.nodeName }, "Found orphaned Pod assigned to the Node, deleting");
      await this.markFailedAndDelete(client, pod, { type: DISRUPTION_TARGET, status: "True", reason: DELETION_BY_POD_GC, message: "PodGC: node no longer exists" });
    }
  }

  async gcUnscheduledTerminating(client: ResourceClientFactory, pods: readonly Pod[]): Promise<void> {
    for (const pod of pods) {
      if (!pod.metadata?.deletionTimestamp || pod.spec?.nodeName) continue;
      this.logger.info({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}` }, "Found unscheduled terminating Pod not assigned to any Node, deleting");
      await this.markFailedAndDelete(client, pod);
    }
  }

  private async deleteAll(client: ResourceClientFactory, pods: readonly Pod[]): Promise<void> {
    await Promise.all(pods.map((p) => this.markFailedAndDelete(client, p)));
  }

  /**
   * markFailedAndDeletePodWithCondition: phase Failed (and the condition) unless already
   * terminal, then a delete with grace 0. Errors are logged (the next pass tries again).
   */
  async markFailedAndDelete(client: ResourceClientFactory, pod: Pod, condition?: PodCondition): Promise<void> {
    const ns = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    this.logger.info({ pod: `${ns}/${name}` }, "PodGC is force deleting Pod");
    try {
      const phase = pod.status?.phase;
      if (phase !== "Succeeded" && phase !== "Failed") {
        const status = deepCopy(pod.status ?? {});
        status.phase = "Failed";
        if (condition) updatePodCondition(status, condition, this.clock.now());
        await patchPodStatus(client, pod, status);
      }
      await client.resource(builtin.pods, ns).delete(name, { gracePeriodSeconds: 0 });
    } catch (err) {
      if (!isNotFound(err)) this.logger.error({ err, pod: `${ns}/${name}` }, "Failed to delete pod");
    }
  }
}
