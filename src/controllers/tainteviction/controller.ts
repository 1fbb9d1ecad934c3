/**
 * The taint eviction controller (upstream pkg/controller/tainteviction, the NoExecute taint
 * manager): a pod on a node with NoExecute taints
 *
 * - that does not tolerate every one of them is deleted at once;
 * - that tolerates them all, some with tolerationSeconds, is deleted once the smallest of those
 *   seconds has passed since the controller first saw it exposed (upstream's timed worker
 *   CreatedAt: a later pass never postpones it); a toleration of 0 or less evicts at once;
 * - that tolerates them all without tolerationSeconds stays.
 *
 * When the taints go (or the pod comes to tolerate them), the scheduled deletion is cancelled
 * (event TaintManagerEviction "Cancelling deletion of Pod ns/name"). Before deleting, the pod
 * gets the DisruptionTarget condition (reason DeletionByTaintManager, "Taint manager: deleting
 * due to NoExecute taint"), then is deleted with its own grace period, and an event
 * TaintManagerEviction "Marking for deletion Pod ns/name" is recorded on it.
 *
 * The default 300 s tolerations of node.kubernetes.io/not-ready and /unreachable come from the
 * DefaultTolerationSeconds admission plugin, which kubeloop's API server runs (as kube-apiserver,
 * on by default).
 *
 * State: per pod key, the UID and when its exposure began (the timed workers), on the Clock.
 *
 * Composed with the builder — requests: pod keys ("ns/name"); watches(pods) → the pod (on an
 * update only when its node or tolerations changed, as upstream);
 * watches(nodes) → the pods on the node, when its taints changed.
 */
import type { Node, Pod, Taint, Toleration } from "../../apimachinery/api/core/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { metaNamespaceKey, ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { RequestQueue } from "../../runtime/handler.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { toleratesTaint } from "../podlifecycle/scheduler.js";
import { DISRUPTION_TARGET, patchPodStatus, updatePodCondition } from "../podgc/podstatus.js";

export const TAINT_EVICTION_CONTROLLER_NAME = "taint-eviction-controller";
/** Upstream UpdateWorkerSize. */
export const DEFAULT_TAINT_EVICTION_WORKERS = 8;
export const DELETION_BY_TAINT_MANAGER = "DeletionByTaintManager";
export const TAINT_MANAGER_EVICTION = "TaintManagerEviction";

/** The node's NoExecute taints. */
export function noExecuteTaints(node: Node | undefined): Taint[] {
  return (node?.spec?.taints ?? []).filter((t) => t.effect === "NoExecute");
}

/**
 * getMatchingTolerations: whether every taint is tolerated, and the tolerations that tolerate
 * at least one of them.
 */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): { all: boolean; used: Toleration[] } {
  const used = new Set<Toleration>();
  for (const taint of taints) {
    const match = tolerations.filter((t) => toleratesTaint(t, taint));
    if (match.length === 0) return { all: false, used: [] };
    for (const t of match) used.add(t);
  }
  return { all: true, used: [...used] };
}

/**
 * getMinTolerationTime in milliseconds: the smallest tolerationSeconds (0 or less: 0), or
 * undefined (forever) when none of the tolerations sets it.
 */
export function minTolerationMs(tolerations: readonly Toleration[]): number | undefined {
  let min: number | undefined;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    const ms = Math.max(0, t.tolerationSeconds) * 1000;
    if (min === undefined || ms < min) min = ms;
  }
  return min;
}

interface Scheduled {
  uid: string;
  createdAt: number;
}

export interface TaintEvictionControllerOptions {
  workers?: number;
}

export class TaintEvictionController {
  readonly controller: Controller;
  private readonly pods: Lister<Pod>;
  private readonly nodes: Lister<Node>;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder;
  private readonly scheduled = new Map<string, Scheduled>();

  constructor(mgr: Manager, opts: TaintEvictionControllerOptions = {}) {
    this.clock = mgr.clock;
    this.recorder = mgr.eventRecorder("taint-eviction-controller");
    this.pods = mgr.informers.forResource(builtin.pods).lister();
    this.nodes = mgr.informers.forResource(builtin.nodes).lister();
    this.controller = mgr
      .controller(TAINT_EVICTION_CONTROLLER_NAME)
      .watches(builtin.pods, {
        create: (e, q) => q.add(podRequest(e.object)),
        // As upstream's PodUpdated: only a new node or new tolerations change anything.
        update: (e, q) => {
          if (e.objectOld.spec?.nodeName === e.objectNew.spec?.nodeName && semanticEqual(e.objectOld.spec?.tolerations ?? [], e.objectNew.spec?.tolerations ?? [])) return;
          q.add(podRequest(e.objectNew));
        },
        delete: (e) => this.scheduled.delete(metaNamespaceKey(e.object)),
      })
      .watches(builtin.nodes, {
        create: (e, q) => this.enqueuePodsOn(e.object, q),
        update: (e, q) => {
          if (!semanticEqual(noExecuteTaints(e.objectOld), noExecuteTaints(e.objectNew))) this.enqueuePodsOn(e.objectNew, q);
        },
        delete: (e, q) => this.enqueuePodsOn(e.object, q),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_TAINT_EVICTION_WORKERS })
      .reconcile((req, ctx) => this.sync(req, ctx.client));
  }

  private enqueuePodsOn(node: Node, q: RequestQueue): void {
    const name = node.metadata?.name ?? "";
    for (const p of this.pods.list()) if (p.spec?.nodeName === name) q.add(podRequest(p));
  }

  /** processPodOnNode for one pod. */
  async sync(req: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult> {
    const key = req.toString();
    let pod: Pod;
    try {
      pod = this.pods.namespace(req.namespace).get(req.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.scheduled.delete(key);
      return {};
    }
    const uid = pod.metadata?.uid ?? "";
    const have = this.scheduled.get(key);
    if (have && have.uid !== uid) this.scheduled.delete(key);
    // Deleted already: nothing more to do here (the kubelet, or PodGC, finishes it).
    if (pod.metadata?.deletionTimestamp) {
      this.scheduled.delete(key);
      return {};
    }
    const nodeName = pod.spec?.nodeName;
    let node: Node | undefined;
    if (nodeName) {
      try {
        node = this.nodes.get(nodeName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const taints = noExecuteTaints(node);
    if (taints.length === 0) {
      this.cancel(key, pod);
      return {};
    }
    const now = this.clock.now();
    const { all, used } = matchingTolerations(taints, pod.spec?.tolerations ?? []);
    if (!all) {
      await this.evict(key, pod, client);
      return {};
    }
    const min = minTolerationMs(used);
    if (min === undefined) {
      this.cancel(key, pod);
      return {};
    }
    let s = this.scheduled.get(key);
    if (!s) this.scheduled.set(key, (s = { uid, createdAt: now }));
    const due = s.createdAt + min;
    if (now < due) return { requeueAfterMs: due - now };
    await this.evict(key, pod, client);
    return {};
  }

  private cancel(key: string, pod: Pod): void {
    if (!this.scheduled.delete(key)) return;
    this.recorder.event(podRef(pod), "Normal", TAINT_MANAGER_EVICTION, `Cancelling deletion of Pod ${key}`);
  }

  /** addConditionAndDeletePod. */
  private async evict(key: string, pod: Pod, client: ResourceClientFactory): Promise<void> {
    this.recorder.event(podRef(pod), "Normal", TAINT_MANAGER_EVICTION, `Marking for deletion Pod ${key}`);
    try {
      const status = deepCopy(pod.status ?? {});
      if (updatePodCondition(status, { type: DISRUPTION_TARGET, status: "True", reason: DELETION_BY_TAINT_MANAGER, message: "Taint manager: deleting due to NoExecute taint" }, this.clock.now())) {
        await patchPodStatus(client, pod, status);
      }
      await client.resource(builtin.pods, pod.metadata?.namespace ?? "").delete(pod.metadata?.name ?? "", { preconditions: { uid: pod.metadata?.uid } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.scheduled.delete(key);
  }
}

function podRequest(pod: Pod): ObjectName {
  return new ObjectName(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
}

function podRef(pod: Pod) {
  return { apiVersion: "v1", kind: "Pod", namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
}
