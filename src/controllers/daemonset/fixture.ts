/**
 * The DaemonSet controller's test harness, after upstream's daemon_controller_test.go helpers:
 * nodes, daemon sets and pods as newNode / newDaemonSet / newPod make them, and a pod control
 * that (like upstream's fakePodControl) puts created pods into the cache and takes deleted ones
 * out at once, observing the expectations, so a test runs sync after sync without informers.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { Node, Pod, PodTemplateSpec, Taint } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { metaNamespaceKey } from "../../apimachinery/objectname.js";
import { formatTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { getPodFromTemplate, type PodControl } from "../replicaset/podcontrol.js";
import { DaemonSetsController } from "./controller.js";
import { replaceDaemonSetPodNodeNameNodeAffinity } from "./util.js";

export const simpleDaemonSetLabel = Object.freeze({ name: "simple-daemon", type: "production" });
export const simpleDaemonSetLabel2 = Object.freeze({ name: "simple-daemon", type: "test" });
export const simpleNodeLabel = Object.freeze({ color: "blue", speed: "fast" });
export const simpleNodeLabel2 = Object.freeze({ color: "red", speed: "fast" });

export function newNode(name: string, labels?: Record<string, string>, o: { taints?: Taint[]; ready?: boolean; unschedulable?: boolean } = {}): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, ...(labels ? { labels: { ...labels } } : {}) },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }], allocatable: { pods: "100" } },
  };
}

/** Nodes node-<start> … node-<start+n-1>. */
export function nodes(start: number, n: number, labels?: Record<string, string>, o: Parameters<typeof newNode>[2] = {}): Node[] {
  return Array.from({ length: n }, (_, i) => newNode(`node-${start + i}`, labels, o));
}

/** upstream newDaemonSet: the simple labels, one container foo/bar, OnDelete. */
export function newDaemonSet(name: string): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace: "default", generation: 1 },
    spec: {
      updateStrategy: { type: "OnDelete" },
      selector: { matchLabels: { ...simpleDaemonSetLabel } },
      revisionHistoryLimit: 10,
      template: {
        metadata: { labels: { ...simpleDaemonSetLabel } },
        spec: {
          restartPolicy: "Always",
          dnsPolicy: "ClusterFirst",
          containers: [{ name: "foo", image: "foo/bar", terminationMessagePath: "/dev/termination-log", imagePullPolicy: "IfNotPresent" }],
        },
      },
    },
  };
}

let podSeq = 0;

/** A daemon pod on `nodeName` (spec.nodeName set, as a scheduled pod), controlled by `ds` when given. */
export function newPod(namePrefix: string, nodeName: string, labels: Record<string, string>, ds?: DaemonSet, o: { phase?: string; creationMs?: number } = {}): Pod {
  const name = `${namePrefix}${podSeq++}`;
  const ref: OwnerReference[] = ds
    ? [{ apiVersion: "apps/v1", kind: "DaemonSet", name: ds.metadata?.name ?? "", uid: ds.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true }]
    : [];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      labels: { ...labels },
      ...(ref.length ? { ownerReferences: ref } : {}),
      ...(o.creationMs !== undefined ? { creationTimestamp: formatTime(o.creationMs) } : {}),
    },
    spec: { nodeName, containers: [{ name: "foo", image: "foo/bar" }] },
    status: { phase: o.phase ?? "Running" },
  };
}

export interface SyncCounts {
  creates: number;
  deletes: number;
  events: number;
}

/** One fixture, one DaemonSet, its controller and the fake pod control. */
export class DaemonSetHarness {
  readonly f = new ControllerFixture();
  readonly dsc: DaemonSetsController;
  /** The nodes pods were created for, in order, since the last clear. */
  created: Pod[] = [];
  deleted: string[] = [];
  private eventMark = 0;
  ds: DaemonSet;

  constructor(ds: DaemonSet, nodeList: readonly Node[] = [], opts: { burstReplicas?: number; realPodControl?: boolean } = {}) {
    const fake = (client: ResourceClientFactory): PodControl => ({
      createPods: async (ns: string, template: PodTemplateSpec | undefined, owner, controllerRef: OwnerReference) => {
        const pod = getPodFromTemplate(template, owner.object.metadata?.name ?? "", controllerRef);
        const stored = await client.resource(builtin.pods, ns).create(pod);
        this.f.seedCache(builtin.pods, stored);
        this.created.push(stored);
        this.dsc.expectations.creationObserved(metaNamespaceKey(owner.object));
      },
      deletePod: async (ns: string, name: string, owner) => {
        await client.resource(builtin.pods, ns).delete(name);
        const indexer = this.f.informers.forResource(builtin.pods).getIndexer();
        const cached = indexer.getByKey(`${ns}/${name}`);
        if (cached) indexer.delete(cached);
        this.deleted.push(name);
        this.dsc.expectations.deletionObserved(metaNamespaceKey(owner.object));
      },
    });
    this.dsc = new DaemonSetsController(this.f.manager, { burstReplicas: opts.burstReplicas, ...(opts.realPodControl ? {} : { podControl: fake }) });
    if (nodeList.length) this.f.seed(builtin.nodes, ...nodeList);
    [this.ds] = this.f.seed(builtin.daemonSets, ds);
  }

  get key(): string {
    return metaNamespaceKey(this.ds);
  }

  /** Pods into the API and the cache. */
  addPods(...pods: Pod[]): Pod[] {
    return this.f.seed(builtin.pods, ...pods);
  }

  /** `n` pods of the DaemonSet on `nodeName`. */
  addDaemonPods(nodeName: string, n: number, labels: Record<string, string> = { ...simpleDaemonSetLabel }, o: { phase?: string } = {}): Pod[] {
    return this.addPods(...Array.from({ length: n }, () => newPod(`${nodeName}-`, nodeName, labels, this.ds, o)));
  }

  cachedPods(): Pod[] {
    return [...this.f.informers.forResource(builtin.pods).getIndexer().list()];
  }

  /** Replaces a cached pod (and the API's copy). */
  replacePod(pod: Pod): void {
    this.f.informers.forResource(builtin.pods).getIndexer().update(deepCopy(pod));
  }

  /** Sets every cached pod Ready (markPodsReady), the transition at the fixture's now. */
  markPodsReady(filter: (p: Pod) => boolean = () => true, ready = true): void {
    for (const p of this.cachedPods()) {
      if (!filter(p)) continue;
      const next = deepCopy(p);
      next.status = {
        ...(next.status ?? {}),
        phase: "Running",
        conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: formatTime(this.f.clock.now()) }],
      };
      this.replacePod(next);
    }
  }

  /** Changes the DaemonSet in the cache and the API: generation + 1 for a spec change. */
  updateDaemonSet(mutate: (ds: DaemonSet) => void): void {
    const next = deepCopy(this.ds);
    mutate(next);
    next.metadata = { ...next.metadata, generation: (next.metadata?.generation ?? 1) + 1 };
    delete next.metadata.resourceVersion;
    const stored = this.f.client.tracker.update(builtin.daemonSets, "default", next as never) as unknown as DaemonSet;
    this.f.informers.forResource(builtin.daemonSets).getIndexer().update(deepCopy(stored));
    this.ds = stored;
  }

  /** Forgets the expectations and what the pod control did (clearExpectations). */
  clearExpectations(): void {
    this.dsc.expectations.deleteExpectations(this.key);
    this.created = [];
    this.deleted = [];
  }

  /** One sync; what it created, deleted and recorded (events other than the pod control's). */
  async sync(): Promise<SyncCounts> {
    const c0 = this.created.length;
    const d0 = this.deleted.length;
    await this.f.reconcile(this.dsc.controller, this.key);
    const events = this.f.recorder.events.length - this.eventMark;
    this.eventMark = this.f.recorder.events.length;
    return { creates: this.created.length - c0, deletes: this.deleted.length - d0, events };
  }

  /** The DaemonSet as the fake API holds it (status written by the controller). */
  stored(): DaemonSet {
    return this.f.client.tracker.get(builtin.daemonSets, "default", this.ds.metadata?.name ?? "") as unknown as DaemonSet;
  }

  /** The nodes the created pods are pinned to. */
  createdNodes(): string[] {
    return this.created.map((p) => p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0] ?? "");
  }
}

/** The affinity syncNodes gives a pod for `node`, to compare with. */
export function affinityFor(node: string) {
  return replaceDaemonSetPodNodeNameNodeAffinity(undefined, node);
}
