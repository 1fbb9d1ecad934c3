/**
 * A TypeScript port of Kubernetes' sample-controller (staging/src/k8s.io/sample-controller),
 * written only against kubeloop's public API: `kubeloop` is ../../src/index.js here.
 *
 * A Foo (samplecontroller.k8s.io/v1alpha1) asks for a Deployment named spec.deploymentName with
 * spec.replicas nginx pods; the controller creates it, keeps its replica count in line, and
 * copies the Deployment's availableReplicas into the Foo's status. docs/tutorial.md walks through
 * this file: informers → queue → workers → sync → status.
 */
import type { appsv1, corev1, metav1 } from "../../src/index.js";
import {
  DeletedFinalStateUnknown,
  EVENT_TYPE_NORMAL,
  EVENT_TYPE_WARNING,
  RateLimitingQueue,
  builtin,
  deepCopy,
  defaultControllerRateLimiter,
  defineResource,
  defaultLogger,
  getControllerOf,
  goSprintf,
  isControlledBy,
  isNotFound,
  newControllerRef,
  realClock,
  waitForCacheSync,
  type Clock,
  type EventRecorder,
  type Lister,
  type Logger,
  type ResourceClientFactory,
  type SharedIndexInformer,
  type SharedInformerFactory,
  type TypedObject,
} from "kubeloop";

type Deployment = appsv1.Deployment;
type ObjectReference = corev1.ObjectReference;
type ObjectMeta = metav1.ObjectMeta;

// --- the Foo API ---------------------------------------------------------------------------------

export interface FooSpec {
  deploymentName?: string;
  replicas?: number;
}

export interface FooStatus {
  availableReplicas?: number;
}

export interface Foo {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: FooSpec;
  status?: FooStatus;
}

export const fooGVK = { group: "samplecontroller.k8s.io", version: "v1alpha1", kind: "Foo" };

export const foosResource = defineResource<Foo>({
  group: "samplecontroller.k8s.io",
  version: "v1alpha1",
  resource: "foos",
  kind: "Foo",
  namespaced: true,
});

// --- constants, as upstream ----------------------------------------------------------------------

export const controllerAgentName = "sample-controller";
/** The event reason when a Foo is synced. */
export const SuccessSynced = "Synced";
/** The event reason when a Foo fails to sync because a Deployment of that name already exists. */
export const ErrResourceExists = "ErrResourceExists";
export const MessageResourceExists = "Resource %q already exists and is not managed by Foo";
export const MessageResourceSynced = "Foo synced successfully";
/** Distinguishes this controller's writes from other writers' (managedFields). */
export const FieldManager = controllerAgentName;

export interface FooControllerOptions {
  client: ResourceClientFactory;
  /** One factory for Foos and Deployments; the caller starts it. */
  informers: SharedInformerFactory;
  recorder: EventRecorder;
  logger?: Logger;
  clock?: Clock;
}

export class FooController {
  readonly fooInformer: SharedIndexInformer<Foo>;
  readonly deploymentInformer: SharedIndexInformer<Deployment>;
  /**
   * The work queue: Foo keys ("namespace/name"). A key is handed to one worker at a time, so the
   * same Foo is never synced by two workers at once; failures come back with a growing delay.
   */
  readonly workqueue: RateLimitingQueue<string>;
  recorder: EventRecorder;

  private readonly client: ResourceClientFactory;
  private readonly foosLister: Lister<Foo>;
  private readonly deploymentsLister: Lister<Deployment>;
  private readonly log: Logger;
  private readonly clock: Clock;

  constructor(opts: FooControllerOptions) {
    this.client = opts.client;
    this.recorder = opts.recorder;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? defaultLogger()).child({ controller: controllerAgentName });
    this.fooInformer = opts.informers.forResource(foosResource);
    this.deploymentInformer = opts.informers.forResource(builtin.deployments);
    this.foosLister = this.fooInformer.lister();
    this.deploymentsLister = this.deploymentInformer.lister();
    this.workqueue = new RateLimitingQueue<string>(defaultControllerRateLimiter<string>(this.clock), { name: "Foos", clock: this.clock });

    this.log.info("Setting up event handlers");
    // Foos: enqueue the key on every add and update.
    this.fooInformer.addEventHandler({
      onAdd: (foo) => this.enqueueFoo(foo),
      onUpdate: (_old, cur) => this.enqueueFoo(cur),
    });
    // Deployments: find the Foo that owns it and enqueue that Foo. Periodic resyncs send an
    // update with the same resourceVersion: nothing changed, nothing to do.
    this.deploymentInformer.addEventHandler({
      onAdd: (d) => this.handleObject(d),
      onUpdate: (oldD, newD) => {
        if (oldD.metadata?.resourceVersion === newD.metadata?.resourceVersion) return;
        this.handleObject(newD);
      },
      onDelete: (d) => this.handleObject(d),
    });
  }

  /**
   * Waits for the caches, runs `workers` workers until `signal` aborts, then shuts the queue
   * down and waits for the workers to finish.
   */
  async run(signal: AbortSignal, workers: number): Promise<void> {
    this.log.info("Starting Foo controller");
    this.log.info("Waiting for informer caches to sync");
    if (!(await waitForCacheSync(signal, [this.fooInformer, this.deploymentInformer], this.clock))) {
      throw new Error("failed to wait for caches to sync");
    }
    this.log.info({ count: workers }, "Starting workers");
    const stop = () => this.workqueue.shutDown();
    signal.addEventListener("abort", stop, { once: true });
    try {
      await Promise.all(Array.from({ length: workers }, () => this.runWorker()));
    } finally {
      signal.removeEventListener("abort", stop);
    }
    this.log.info("Shutting down workers");
  }

  /** A long-running loop reading and processing items from the work queue. */
  private async runWorker(): Promise<void> {
    while (await this.processNextWorkItem()) {
      /* keep going */
    }
  }

  /** Takes one key from the queue and syncs it; false once the queue shuts down. */
  async processNextWorkItem(): Promise<boolean> {
    const { item: key, shutdown } = await this.workqueue.get();
    if (shutdown) return false;
    try {
      await this.syncHandler(key);
      // Success: reset the key's failure count so its next problem starts with a short delay.
      this.workqueue.forget(key);
      this.log.info({ objectName: key }, "Successfully synced");
    } catch (err) {
      // Failure: put the key back with a delay that grows with each consecutive failure.
      this.log.error({ err, objectReference: key }, "Error syncing; requeuing for later retry");
      this.workqueue.addRateLimited(key);
    } finally {
      // Always tell the queue we are done with this key, or it is never handed out again.
      this.workqueue.done(key);
    }
    return true;
  }

  /**
   * Compares the actual state with the desired one and converges them, then updates the Foo's
   * status. `key` is "namespace/name".
   */
  async syncHandler(key: string): Promise<void> {
    const [namespace, name] = key.includes("/") ? key.split("/", 2) : ["", key];
    let foo: Foo;
    try {
      foo = this.foosLister.namespace(namespace).get(name);
    } catch (err) {
      // The Foo may no longer exist, in which case we stop processing.
      if (isNotFound(err)) {
        this.log.error({ objectReference: key }, "Foo referenced by item in work queue no longer exists");
        return;
      }
      throw err;
    }

    const deploymentName = foo.spec?.deploymentName ?? "";
    if (deploymentName === "") {
      // Nothing to do until the Foo is fixed; an update to it will bring it back.
      this.log.error({ objectReference: key }, "Deployment name missing from object reference");
      return;
    }

    // Get the Deployment with the name specified in Foo.spec; create it if it does not exist.
    const deployments = this.client.resource(builtin.deployments, namespace);
    let deployment: Deployment;
    try {
      deployment = this.deploymentsLister.namespace(namespace).get(deploymentName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      deployment = await deployments.create(newDeployment(foo), { fieldManager: FieldManager });
    }

    // If the Deployment is not controlled by this Foo, warn the user and fail (the queue retries).
    if (!isControlledBy(deployment, foo)) {
      const msg = goSprintf(MessageResourceExists, deployment.metadata?.name ?? "");
      this.recorder.event(fooReference(foo), EVENT_TYPE_WARNING, ErrResourceExists, msg);
      throw new Error(msg);
    }

    // If the Foo asks for another number of replicas than the Deployment has, update it.
    if (foo.spec?.replicas !== undefined && foo.spec.replicas !== deployment.spec?.replicas) {
      this.log.debug({ currentReplicas: deployment.spec?.replicas, desiredReplicas: foo.spec.replicas }, "Update deployment resource");
      deployment = await deployments.update(newDeployment(foo), { fieldManager: FieldManager });
    }

    // Finally, record the Deployment's state in the Foo's status.
    await this.updateFooStatus(foo, deployment);
    this.recorder.event(fooReference(foo), EVENT_TYPE_NORMAL, SuccessSynced, MessageResourceSynced);
  }

  private async updateFooStatus(foo: Foo, deployment: Deployment): Promise<void> {
    // Never modify objects from the cache: it is shared. Copy first.
    const fooCopy = deepCopy(foo);
    fooCopy.status = { ...fooCopy.status, availableReplicas: deployment.status?.availableReplicas ?? 0 };
    // The status subresource ignores changes to anything but status.
    await this.client.resource(foosResource, foo.metadata?.namespace ?? "").updateStatus(fooCopy, { fieldManager: FieldManager });
  }

  /** Puts a Foo's key on the work queue. */
  enqueueFoo(foo: Foo): void {
    this.workqueue.add(`${foo.metadata?.namespace ?? ""}/${foo.metadata?.name ?? ""}`);
  }

  /**
   * Any object: find the Foo that controls it (its controller OwnerReference of kind Foo) and
   * enqueue that Foo. Objects without such an owner are skipped.
   */
  handleObject(obj: TypedObject | DeletedFinalStateUnknown): void {
    let object: TypedObject | undefined;
    if (obj instanceof DeletedFinalStateUnknown) {
      // A deletion we only learnt about through a relist: the last known state is in the tombstone.
      object = obj.obj;
      if (!object) {
        this.log.error({ key: obj.key }, "error decoding object tombstone, invalid type");
        return;
      }
      this.log.debug({ object: object.metadata?.name }, "Recovered deleted object");
    } else {
      object = obj;
    }
    this.log.debug({ object: object.metadata?.name }, "Processing object");
    const ownerRef = getControllerOf(object);
    if (!ownerRef || ownerRef.kind !== "Foo") return;
    let foo: Foo;
    try {
      foo = this.foosLister.namespace(object.metadata?.namespace ?? "").get(ownerRef.name);
    } catch {
      this.log.debug({ object: object.metadata?.name, foo: ownerRef.name }, "Ignore orphaned object");
      return;
    }
    this.enqueueFoo(foo);
  }
}

/** The reference events are recorded against. */
export function fooReference(foo: Foo): ObjectReference {
  const { name, namespace, uid, resourceVersion } = foo.metadata ?? {};
  return { apiVersion: "samplecontroller.k8s.io/v1alpha1", kind: "Foo", name, namespace, uid, resourceVersion };
}

/** The Deployment a Foo wants: nginx pods labelled app=nginx, controller=<foo name>. */
export function newDeployment(foo: Foo): Deployment {
  const labels = { app: "nginx", controller: foo.metadata?.name ?? "" };
  return {
    metadata: {
      name: foo.spec?.deploymentName,
      namespace: foo.metadata?.namespace,
      ownerReferences: [newControllerRef(foo, fooGVK)],
    },
    spec: {
      replicas: foo.spec?.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "nginx", image: "nginx:latest" }] },
      },
    },
  };
}
