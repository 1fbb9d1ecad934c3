/**
 * Test fixtures for the Deployment controller in the style of upstream's deployment_controller_test
 * (newFixture, f.dLister, f.objects, f.expectCreateRSAction, f.run): objects go into the informer
 * caches directly (informers are not started) and into a FakeClient, one key is synced, and the
 * client's write actions are compared, in order, with the expected ones.
 */
import type { Deployment, ReplicaSet, ReplicaSetStatus } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { FakeClock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import type { IntOrString } from "../../apimachinery/types.js";
import { newControllerRef } from "../../apimachinery/ownerrefs.js";
import { builtin } from "../../client/typed.js";
import type { FakeRecorder } from "../../events/broadcaster.js";
import { silentLogger } from "../../runtime/logging.js";
import type { Action, FakeClient } from "../../testing/fakeclient.js";
import { ControllerFixture, type ExpectedAction as FixtureExpectedAction } from "../../testing/fixture.js";
import { DEPLOYMENT_GVK } from "./constants.js";
import type { SyncContext } from "./context.js";
import { DeploymentController } from "./controller.js";

let uidCounter = 0;
/** A fresh UID (uuid.NewUUID in upstream's fixtures). */
export function newUID(): string {
  uidCounter++;
  return `00000000-0000-4000-8000-${uidCounter.toString(16).padStart(12, "0")}`;
}

export const NAMESPACE_DEFAULT = "default";

/** upstream's newDeployment: RollingUpdate with maxSurge and maxUnavailable 0 unless given. */
export function newDeployment(
  name: string,
  replicas: number,
  revisionHistoryLimit?: number,
  maxSurge?: IntOrString,
  maxUnavailable?: IntOrString,
  selector?: Record<string, string>,
): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { uid: newUID(), name, namespace: NAMESPACE_DEFAULT, annotations: {} },
    spec: {
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: maxUnavailable ?? 0, maxSurge: maxSurge ?? 0 } },
      replicas,
      selector: { matchLabels: selector ? { ...selector } : undefined },
      template: {
        metadata: { labels: selector ? { ...selector } : undefined },
        spec: { containers: [{ name: "foo", image: "foo/bar" }] },
      },
      revisionHistoryLimit,
    },
  };
}

/** upstream's newReplicaSet: owned by `d`, with its selector, labels and template. */
export function newReplicaSet(d: Deployment, name: string, replicas: number): ReplicaSet {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name,
      uid: newUID(),
      namespace: NAMESPACE_DEFAULT,
      labels: { ...(d.spec?.selector?.matchLabels ?? {}) },
      ownerReferences: [newControllerRef(d, DEPLOYMENT_GVK)],
    },
    spec: { selector: deepCopy(d.spec!.selector), replicas, template: deepCopy(d.spec!.template) },
  };
}

/** upstream's rs(): a bare ReplicaSet with a creation timestamp (ISO string or undefined). */
export function rs(name: string, replicas: number, selector: Record<string, string> | undefined, timestamp?: string): ReplicaSet {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, namespace: NAMESPACE_DEFAULT, uid: newUID(), creationTimestamp: timestamp },
    spec: { replicas, selector: { matchLabels: selector }, template: {} },
  };
}

/** upstream's newRSWithStatus. */
export function newRSWithStatus(name: string, specReplicas: number, statusReplicas: number, selector?: Record<string, string>): ReplicaSet {
  return withRSStatus(rs(name, specReplicas, selector), { replicas: statusReplicas });
}

/** The ReplicaSet with `status` merged into its status (a copy: fixtures never share status objects). */
export function withRSStatus(r: ReplicaSet, status: Partial<ReplicaSetStatus>): ReplicaSet {
  return { ...r, status: { replicas: 0, ...r.status, ...status } } as ReplicaSet;
}

/** upstream's generatePodFromRS: a pod controlled by the ReplicaSet, with its selector's labels. */
export function generatePodFromRS(r: ReplicaSet): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${r.metadata!.name!}-pod`,
      namespace: r.metadata!.namespace,
      labels: { ...(r.spec?.selector?.matchLabels ?? {}) },
      ownerReferences: [{ uid: r.metadata!.uid!, apiVersion: "apps/v1", kind: "ReplicaSet", name: r.metadata!.name!, controller: true }],
    },
    spec: deepCopy(r.spec?.template?.spec ?? { containers: [] }),
  };
}

/** An expected client call: verb, resource, and optionally subresource and name. */
export type ExpectedAction = Pick<FixtureExpectedAction, "verb" | "resource" | "subresource" | "name">;

/**
 * A copy without metadata.resourceVersion: fixture objects are written unconditionally, as in
 * upstream's fake clientset (the client assigns its own versions when seeding).
 */
function fixtureCopy<T extends { metadata?: object }>(o: T): T {
  const c = deepCopy(o);
  if (c.metadata) delete (c.metadata as { resourceVersion?: string }).resourceVersion;
  return c;
}

/**
 * upstream's newFixture for the Deployment controller, over the one harness (ControllerFixture):
 * `objects` go into the fake API, `dLister` / `rsLister` / `podLister` into the caches; `run(key)`
 * reconciles one Deployment and verifies the expected actions (get included, list and watch
 * filtered out), in order.
 */
export class DeploymentFixture {
  readonly f = new ControllerFixture();
  readonly clock = this.f.clock;
  readonly client = this.f.client;
  readonly recorder = this.f.recorder;
  /** Objects put into the informer caches (listers). */
  dLister: Deployment[] = [];
  rsLister: ReplicaSet[] = [];
  podLister: Pod[] = [];
  /** Objects preloaded into the fake client. */
  objects: Array<Deployment | ReplicaSet | Pod> = [];
  /** Calls expected on the client, in order (list and watch are ignored). */
  actions: ExpectedAction[] = [];

  expectGetDeploymentAction(d: Deployment): void {
    this.actions.push({ verb: "get", resource: "deployments", name: d.metadata?.name });
  }
  expectUpdateDeploymentStatusAction(d: Deployment): void {
    this.actions.push({ verb: "update", resource: "deployments", subresource: "status", name: d.metadata?.name });
  }
  expectUpdateDeploymentAction(d: Deployment): void {
    this.actions.push({ verb: "update", resource: "deployments", name: d.metadata?.name });
  }
  expectCreateRSAction(_rs?: ReplicaSet): void {
    // The name carries the hash, which is kubeloop's own: match on verb and resource, as upstream.
    this.actions.push({ verb: "create", resource: "replicasets" });
  }
  expectUpdateRSAction(r: ReplicaSet): void {
    this.actions.push({ verb: "update", resource: "replicasets", name: r.metadata?.name });
  }
  expectPatchRSAction(r: ReplicaSet): void {
    this.actions.push({ verb: "patch", resource: "replicasets", name: r.metadata?.name });
  }
  expectDeleteRSAction(r: ReplicaSet): void {
    this.actions.push({ verb: "delete", resource: "replicasets", name: r.metadata?.name });
  }

  /** Seeds the client, builds the controller on the fixture's manager, fills its caches. */
  newController(): { dc: DeploymentController } {
    for (const o of this.objects) {
      if (o.kind === "Deployment") this.f.seedAPI(builtin.deployments, fixtureCopy(o as Deployment));
      else if (o.kind === "ReplicaSet") this.f.seedAPI(builtin.replicaSets, fixtureCopy(o as ReplicaSet));
      else this.f.seedAPI(builtin.pods, fixtureCopy(o as Pod));
    }
    const dc = new DeploymentController(this.f.manager);
    this.f.seedCache(builtin.deployments, ...this.dLister.map(fixtureCopy));
    this.f.seedCache(builtin.replicaSets, ...this.rsLister.map(fixtureCopy));
    this.f.seedCache(builtin.pods, ...this.podLister.map(fixtureCopy));
    return { dc };
  }

  /** The client calls made so far, without list/watch (filterInformerActions). */
  clientActions(): Action[] {
    return this.f.actions();
  }

  /** Reconciles `key` and checks the actions; returns the controller for further checks. */
  async run(key: string): Promise<DeploymentController> {
    const { dc } = this.newController();
    await this.f.reconcile(dc.controller, key);
    this.checkActions();
    return dc;
  }

  /** Reconciles `key`, expecting it to fail, and checks the actions; returns the error. */
  async runExpectError(key: string): Promise<unknown> {
    const { dc } = this.newController();
    let error: unknown;
    try {
      await this.f.reconcile(dc.controller, key);
    } catch (err) {
      error = err;
    }
    if (error === undefined) throw new Error(`expected syncing ${key} to fail`);
    this.checkActions();
    return error;
  }

  /** Throws unless the client calls match `actions` one for one. */
  checkActions(): void {
    for (const a of this.actions) this.f.expect(a);
    this.actions = [];
    this.f.verify();
  }
}

/**
 * A SyncContext over the fixture's fake client for testing the sync steps directly (as upstream's
 * tests build a bare DeploymentController around a fake clientset). `objects` are seeded into the
 * client and the ReplicaSets among them into the ReplicaSet cache.
 */
export function newSyncContext(objects: Array<Deployment | ReplicaSet> = []): {
  ctx: SyncContext;
  client: FakeClient;
  clock: FakeClock;
  recorder: FakeRecorder;
} {
  const f = new ControllerFixture();
  for (const o of objects) {
    if (o.kind === "Deployment") f.seedAPI(builtin.deployments, o as Deployment);
    else f.seed(builtin.replicaSets, o as ReplicaSet);
  }
  const rsLister = f.informers.forResource(builtin.replicaSets).lister();
  const ctx: SyncContext = {
    deployments: (ns) => f.client.resource(builtin.deployments, ns),
    replicaSets: (ns) => f.client.resource(builtin.replicaSets, ns),
    rsLister: (ns) => rsLister.namespace(ns),
    recorder: f.recorder,
    clock: f.clock,
    logger: silentLogger(),
    result: {},
    written: new Map(),
  };
  return { ctx, client: f.client, clock: f.clock, recorder: f.recorder };
}

/** The ReplicaSets sent in update calls, in order. */
export function updatedReplicaSets(client: FakeClient): ReplicaSet[] {
  return client
    .actions()
    .filter((a) => a.verb === "update" && a.resource === "replicasets" && !a.subresource)
    .map((a) => a.object as unknown as ReplicaSet);
}
