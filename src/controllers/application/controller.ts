/**
 * The Application controller, built step by step as Kubernetes' sample-controller:
 *
 *   informers (Applications, Deployments, Services — one factory)
 *     → event handlers (Applications: their key; children: handleObject → the owner's key)
 *     → rate-limited work queue → N workers → syncHandler(key) → children, then status.
 *
 * syncHandler, for one key:
 *   1. the Application from the lister; NotFound → done (its children go with it through their
 *      OwnerReferences: the garbage collector deletes them, not this controller);
 *   2. not selected by the label selector, or being deleted → done;
 *      annotation kubeloop.dev/paused="true" → only the Paused condition is written → done;
 *   3. the Deployment named spec.deploymentName (default metadata.name): absent → create;
 *      present but controlled by something else → Warning ErrResourceExists, ReconcileError=True
 *      in status, and an error (the queue retries with backoff); ours but an owned field differs
 *      → update (never in steady state: see desired.ts);
 *   4. the same for the Service when spec.service is set;
 *   5. the status computed from the Deployment (status.ts), written through the status
 *      subresource only when it changed;
 *   6. a Normal Synced event, only when the sync created or updated a child — so a steady state
 *      makes zero API writes (events included).
 * Every write carries fieldManager kubeloop-application. Objects from the listers are never
 * modified: writes start from deep copies.
 */
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ObjectReference, Service } from "kubernetes-types/core/v1.js";
import type { Registry } from "prom-client";
import { realClock, type Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { everything, parseSelector, type Selector } from "../../apimachinery/labels.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { getControllerOf, isControlledBy } from "../../apimachinery/ownerrefs.js";
import type { TypedObject } from "../../apimachinery/types.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import { EVENT_TYPE_NORMAL, EVENT_TYPE_WARNING, type EventRecorder } from "../../events/broadcaster.js";
import { goSprintf } from "../../events/format.js";
import type { SharedInformerFactory } from "../../informers/factory.js";
import { FilteringResourceEventHandler } from "../../informers/handlers.js";
import type { Lister } from "../../informers/lister.js";
import type { SharedIndexInformer } from "../../informers/sharedinformer.js";
import { DeletedFinalStateUnknown } from "../../informers/store.js";
import { Controller } from "../../runtime/controller.js";
import { defaultLogger, type Logger } from "../../runtime/logging.js";
import { deploymentDiff, deploymentNameOf, mergeDeployment, mergeService, newDeployment, newService, serviceDiff } from "./desired.js";
import { computeStatus, statusEqual, type Observation } from "./status.js";
import {
  APPLICATION_API_VERSION,
  APPLICATION_GROUP,
  FIELD_MANAGER,
  MESSAGE_RESOURCE_EXISTS,
  MESSAGE_RESOURCE_SYNCED,
  PAUSED_ANNOTATION,
  REASON_RECONCILE_FAILED,
  REASON_RESOURCE_EXISTS,
  REASON_SYNCED,
  applicationsResource,
  type Application,
} from "./types.js";

export const DEFAULT_APPLICATION_WORKERS = 2;

export interface ApplicationControllerOptions {
  client: ResourceClientFactory;
  /** One factory for Applications, Deployments and Services; the caller starts it. */
  informers: SharedInformerFactory;
  /** Where Synced and ErrResourceExists events go. */
  recorder: EventRecorder;
  clock?: Clock;
  logger?: Logger;
  /** Only Applications whose labels match (a label selector string, e.g. "team=a"); default all. */
  labelSelector?: string;
  /** Where the work queue and reconcile metrics go (default: prom-client's global registry). */
  registry?: Registry;
}

/** A child of the Application's name exists and belongs to someone else. */
export class ResourceExistsError extends Error {
  constructor(
    readonly kind: string,
    readonly resourceName: string,
  ) {
    super(goSprintf(MESSAGE_RESOURCE_EXISTS, resourceName));
    this.name = "ResourceExistsError";
  }
}

/** Whether the Application carries kubeloop.dev/paused: "true". */
export function isPausedByAnnotation(app: Application): boolean {
  return app.metadata?.annotations?.[PAUSED_ANNOTATION] === "true";
}

function keyOf(obj: TypedObject): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name ?? ""}` : (obj.metadata?.name ?? "");
}

function groupOf(apiVersion: string | undefined): string {
  const i = (apiVersion ?? "").indexOf("/");
  return i < 0 ? "" : (apiVersion ?? "").slice(0, i);
}

/** What one sync wrote, for the Synced event and for tests. */
export interface SyncOutcome {
  wrote: string[];
}

export class ApplicationController {
  readonly controller: Controller;
  readonly applicationInformer: SharedIndexInformer<Application>;
  readonly deploymentInformer: SharedIndexInformer<Deployment>;
  readonly serviceInformer: SharedIndexInformer<Service>;
  readonly selector: Selector;

  private readonly client: ResourceClientFactory;
  private readonly recorder: EventRecorder;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly appLister: Lister<Application>;
  private readonly deploymentLister: Lister<Deployment>;
  private readonly serviceLister: Lister<Service>;

  constructor(opts: ApplicationControllerOptions) {
    this.client = opts.client;
    this.recorder = opts.recorder;
    this.clock = opts.clock ?? realClock;
    const base = opts.logger ?? defaultLogger();
    this.log = base.child({ controller: "application" });
    this.selector = opts.labelSelector ? parseSelector(opts.labelSelector) : everything();

    this.applicationInformer = opts.informers.forResource<Application & TypedObject>(applicationsResource);
    this.deploymentInformer = opts.informers.forResource<Deployment>(builtin.deployments);
    this.serviceInformer = opts.informers.forResource<Service>(builtin.services);
    this.appLister = this.applicationInformer.lister();
    this.deploymentLister = this.deploymentInformer.lister();
    this.serviceLister = this.serviceInformer.lister();

    this.controller = new Controller({
      name: "application",
      client: this.client,
      recorder: this.recorder,
      informers: opts.informers,
      reconcile: (key) => this.syncHandler(key).then(() => undefined),
      caches: [this.applicationInformer, this.deploymentInformer, this.serviceInformer],
      clock: this.clock,
      logger: base, // the Controller adds controller=application itself
      registry: opts.registry,
    });

    // Applications: every add, update and (filtered-out or real) delete enqueues the key. An
    // update that pauses an Application, or moves it out of the selector, arrives from the
    // filter as a delete; the sync then records the Paused condition (or does nothing).
    this.applicationInformer.addEventHandler(
      new FilteringResourceEventHandler<Application>((obj) => this.wanted(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj), {
        onAdd: (app) => this.enqueueApplication(app),
        onUpdate: (_old, cur) => this.enqueueApplication(cur),
        onDelete: (obj) => this.enqueueApplication(obj),
      }),
    );
    // Children: follow the controller reference to the owning Application.
    for (const informer of [this.deploymentInformer, this.serviceInformer] as Array<SharedIndexInformer<TypedObject>>) {
      informer.addEventHandler({
        onAdd: (obj) => this.handleObject(obj),
        onUpdate: (oldObj, newObj) => {
          // Periodic resyncs deliver the same version: nothing changed.
          if (oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion) return;
          this.handleObject(newObj);
        },
        onDelete: (obj) => this.handleObject(obj),
      });
    }
  }

  /** The work queue of Application keys. */
  get queue(): Controller["queue"] {
    return this.controller.queue;
  }

  /** Waits for the three caches, then runs `workers` workers until `signal` aborts. */
  run(signal: AbortSignal, workers = DEFAULT_APPLICATION_WORKERS): Promise<void> {
    return this.controller.run(signal, workers);
  }

  /** Whether the label selector selects the Application and it is not paused by annotation. */
  wanted(app: Application | undefined): boolean {
    if (!app) return false;
    return this.selector.matches(app.metadata?.labels ?? {}) && !isPausedByAnnotation(app);
  }

  enqueueApplication(obj: Application | DeletedFinalStateUnknown<Application>): void {
    this.controller.enqueue(obj instanceof DeletedFinalStateUnknown ? obj : (obj as TypedObject));
  }

  /**
   * A Deployment or Service changed: find the Application controlling it (the controller
   * OwnerReference of kind Application, with the UID checked against the cached Application)
   * and enqueue it. Objects with no such owner are ignored.
   */
  handleObject(objOrTombstone: TypedObject | DeletedFinalStateUnknown): void {
    let obj: TypedObject | undefined;
    if (objOrTombstone instanceof DeletedFinalStateUnknown) {
      obj = objOrTombstone.obj;
      if (!obj) {
        this.log.error({ key: objOrTombstone.key }, "error decoding object tombstone, invalid type");
        return;
      }
      this.log.debug({ object: keyOf(obj) }, "Recovered deleted object");
    } else {
      obj = objOrTombstone;
    }
    this.log.trace({ object: keyOf(obj) }, "Processing object");
    const ref = getControllerOf(obj);
    if (!ref || ref.kind !== "Application" || groupOf(ref.apiVersion) !== APPLICATION_GROUP) return;
    let app: Application;
    try {
      app = this.appLister.namespace(obj.metadata?.namespace ?? "").get(ref.name);
    } catch {
      this.log.debug({ object: keyOf(obj), owner: ref.name }, "Ignore orphaned object");
      return;
    }
    if (app.metadata?.uid !== ref.uid) {
      this.log.debug({ object: keyOf(obj), owner: ref.name }, "Ignore object of an older Application of the same name");
      return;
    }
    if (!this.wanted(app)) return;
    this.enqueueApplication(app);
  }

  /**
   * Reconciles one Application key ("namespace/name"); throws to have the key retried. Public for
   * fixture tests, as upstream's tests call c.syncHandler directly.
   */
  async syncHandler(key: string | ObjectName): Promise<SyncOutcome> {
    const name = typeof key === "string" ? ObjectName.parse(key) : key;
    const outcome: SyncOutcome = { wrote: [] };
    let cached: Application;
    try {
      cached = this.appLister.namespace(name.namespace).get(name.name);
    } catch (err) {
      if (isNotFound(err)) {
        this.log.debug({ object: name.toString() }, "Application in work queue no longer exists");
        return outcome;
      }
      throw err;
    }
    if (!this.selector.matches(cached.metadata?.labels ?? {})) return outcome;
    if (cached.metadata?.deletionTimestamp) return outcome;
    if (isPausedByAnnotation(cached)) {
      await this.writeStatus(cached, { paused: true }, outcome);
      return outcome;
    }

    const obs: Observation = {};
    try {
      obs.deployment = await this.syncDeployment(cached, outcome);
      const svcName = await this.syncService(cached, outcome);
      if (svcName) obs.serviceName = svcName;
      else obs.noService = !cached.spec?.service;
    } catch (err) {
      const reason = err instanceof ResourceExistsError ? REASON_RESOURCE_EXISTS : REASON_RECONCILE_FAILED;
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof ResourceExistsError) this.recorder.event(this.ref(cached), EVENT_TYPE_WARNING, REASON_RESOURCE_EXISTS, message);
      obs.error = { reason, message };
      try {
        await this.writeStatus(cached, obs, outcome);
      } catch (statusErr) {
        this.log.debug({ object: name.toString(), err: statusErr }, "could not record the failure in status");
      }
      throw err;
    }
    await this.writeStatus(cached, obs, outcome);
    // Synced marks a change to the children; status-only progress (the Deployment's pods becoming
    // available) is visible in status and would only add an event write per step.
    if (outcome.wrote.some((w) => !w.startsWith("update applications/"))) {
      this.recorder.event(this.ref(cached), EVENT_TYPE_NORMAL, REASON_SYNCED, MESSAGE_RESOURCE_SYNCED);
    }
    return outcome;
  }

  private async syncDeployment(app: Application, outcome: SyncOutcome): Promise<Deployment> {
    const ns = app.metadata?.namespace ?? "";
    const deploymentName = deploymentNameOf(app);
    const deployments = this.client.resource<Deployment>(builtin.deployments, ns);
    let live: Deployment;
    try {
      live = this.deploymentLister.namespace(ns).get(deploymentName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const created = await deployments.create(newDeployment(app), { fieldManager: FIELD_MANAGER });
      outcome.wrote.push(`create deployments/${deploymentName}`);
      this.log.info({ object: keyOf(app), deployment: deploymentName }, "Created Deployment");
      return created;
    }
    if (!isControlledBy(live, app)) throw new ResourceExistsError("Deployment", deploymentName);
    if (live.metadata?.deletionTimestamp) return live; // it is going away; its delete event brings us back
    const diff = deploymentDiff(app, live);
    if (diff.length === 0) return live;
    const updated = await deployments.update(mergeDeployment(app, live), { fieldManager: FIELD_MANAGER });
    outcome.wrote.push(`update deployments/${deploymentName}`);
    this.log.info({ object: keyOf(app), deployment: deploymentName, fields: diff }, "Updated Deployment");
    return updated;
  }

  /** The Service's name when the Application has one, else undefined. */
  private async syncService(app: Application, outcome: SyncOutcome): Promise<string | undefined> {
    const want = newService(app);
    if (!want) return undefined;
    const ns = app.metadata?.namespace ?? "";
    const svcName = want.metadata!.name!;
    const services = this.client.resource<Service>(builtin.services, ns);
    let live: Service;
    try {
      live = this.serviceLister.namespace(ns).get(svcName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await services.create(want, { fieldManager: FIELD_MANAGER });
      outcome.wrote.push(`create services/${svcName}`);
      this.log.info({ object: keyOf(app), service: svcName }, "Created Service");
      return svcName;
    }
    if (!isControlledBy(live, app)) throw new ResourceExistsError("Service", svcName);
    if (live.metadata?.deletionTimestamp) return svcName;
    const diff = serviceDiff(app, live);
    if (diff.length === 0) return svcName;
    await services.update(mergeService(app, live), { fieldManager: FIELD_MANAGER });
    outcome.wrote.push(`update services/${svcName}`);
    this.log.info({ object: keyOf(app), service: svcName, fields: diff }, "Updated Service");
    return svcName;
  }

  /** Writes the status through the status subresource when it differs from the cached one. */
  private async writeStatus(app: Application, obs: Observation, outcome: SyncOutcome): Promise<void> {
    const next = computeStatus(app, obs, this.clock.now());
    if (statusEqual(app.status, next)) return;
    const copy = deepCopy(app);
    copy.apiVersion ??= APPLICATION_API_VERSION;
    copy.kind ??= "Application";
    copy.status = next;
    await this.client
      .resource<Application & TypedObject>(applicationsResource, app.metadata?.namespace ?? "")
      .updateStatus(copy, { fieldManager: FIELD_MANAGER });
    outcome.wrote.push("update applications/status");
  }

  private ref(app: Application): ObjectReference {
    return {
      apiVersion: APPLICATION_API_VERSION,
      kind: "Application",
      namespace: app.metadata?.namespace,
      name: app.metadata?.name,
      uid: app.metadata?.uid,
      resourceVersion: app.metadata?.resourceVersion,
    };
  }
}
