/**
 * The controller builder: the one way a controller is composed (controller-runtime's
 * pkg/builder, kube-rs's `Controller::new(..).owns(..)`).
 *
 *   mgr.controller("application")
 *     .for(applications)                                   // requests: each Application's ns/name
 *     .owns(builtin.deployments)                           // → the controlling Application
 *     .owns(builtin.services)
 *     .watches(builtin.configMaps, (cm) => appsUsing(cm))  // a map function, or an EventHandler
 *     .withEventFilter(generationChanged)                  // applies to every watch
 *     .withOptions({ maxConcurrentReconciles: 2 })
 *     .reconcile(async (req, ctx) => { ... });            // → the Controller, added to the manager
 *
 * Each watch is a handler on the manager's shared informer of that resource (one informer per
 * resource however many controllers watch it); a metadata-only descriptor (`metadataOnly(d)`)
 * watches through an informer that caches PartialObjectMetadata only. Events pass the global
 * filters, then the watch's own predicates, then reach its handler, which adds requests to the
 * controller's queue. A handler, map function or predicate that throws is isolated: logged,
 * counted (kubeloop_controller_event_handler_errors_total) and the event dropped — the informer
 * and the other handlers go on.
 *
 * The controller runs while the manager leads (unless `needLeaderElection: false`), waits for the
 * informers of all its watches (and raw sources) to sync, then runs `maxConcurrentReconciles`
 * workers (default 1). Controllers in the style of kube-controller-manager fit too: several
 * `watches` with custom EventHandlers (which get the queue, so they can observe expectations or
 * `addAfter`), `maxRetries`, a request type of their own with `keyOf` (the garbage collector's
 * graph nodes), raw sources for requests that do not come from an informer, and the manager's
 * injected Clock behind every delay.
 */
import type { Registry } from "prom-client";
import type { Clock } from "../apimachinery/clock.js";
import type { ObjectName } from "../apimachinery/objectname.js";
import type { ResourceDescriptor } from "../apimachinery/resource.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClientFactory } from "../client/interfaces.js";
import type { EventRecorder } from "../events/broadcaster.js";
import type { SharedInformerFactory } from "../informers/factory.js";
import { DeletedFinalStateUnknown } from "../informers/store.js";
import type { KeyFunc } from "../workqueue/key.js";
import type { RateLimiter } from "../workqueue/ratelimiters.js";
import { Controller } from "./controller.js";
import {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type EventHandler,
  type MapFunc,
  type RequestQueue,
} from "./handler.js";
import type { Logger } from "./logging.js";
import { controllerCollectors } from "./metrics.js";
import { allowCreate, allowDelete, allowUpdate, type Predicate } from "./predicate.js";
import type { Reconciler, Request } from "./reconcile.js";

/** What the builder needs from its manager (the Manager implements it). */
export interface BuilderHost {
  readonly informers: SharedInformerFactory;
  readonly client: ResourceClientFactory;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly logger: Logger;
  eventRecorder(component: string): EventRecorder;
  /** Adds the controller's runnable; throws when the name is taken. */
  registerController(name: string, run: (signal: AbortSignal) => Promise<void>, needLeaderElection: boolean): void;
}

export interface WatchSourceOptions<T> {
  /** Only events these pass reach the handler (after the builder's global event filters). */
  predicates?: readonly Predicate<T>[];
  /** Re-deliver every cached object as an update this often (0: never, the default). */
  resyncPeriodMs?: number;
}

export interface OwnsOptions<T> extends WatchSourceOptions<T> {
  /** Only the controller reference maps to an owner (default true); false: every owner reference of the For kind. */
  onlyController?: boolean;
}

/** Requests that do not come from an informer (source.Source / WatchesRawSource). */
export interface Source<R = Request> {
  /** Starts delivering; called once when the controller starts (its signal stops it). */
  start(queue: RequestQueue<R>, signal: AbortSignal): void | Promise<void>;
  /** Workers wait for this before they start, when given. */
  hasSynced?(): boolean;
  waitForSync?(signal?: AbortSignal): Promise<boolean>;
}

export interface ControllerBuilderOptions<R = Request> {
  /** Workers (controller-runtime's MaxConcurrentReconciles); default 1. */
  maxConcurrentReconciles?: number;
  /** Default: 5 ms doubling to 1000 s per request, with a 10 qps / burst 100 bucket overall. */
  rateLimiter?: RateLimiter<R>;
  /** Drop a request after this many consecutive failures (kube-controller-manager's maxRetries). */
  maxRetries?: number;
  /** How long to wait for the caches before the controller fails (default 120 s). */
  cacheSyncTimeoutMs?: number;
  /** Panics become errors (default true); false rethrows, stopping the controller and the manager. */
  recoverPanic?: boolean;
  /** Run only while leading (default true). */
  needLeaderElection?: boolean;
  /** The event source component (default: the controller's name). */
  eventSource?: string;
  /** Request identity, for request types other than ObjectName (default: by value / reference). */
  keyOf?: KeyFunc<R>;
  /** How a request appears in logs. */
  describe?: (request: R) => string;
  /** Default: the manager's logger. */
  logger?: Logger;
}

interface Watch<R> {
  resource: ResourceDescriptor;
  handler: EventHandler<TypedObject, R>;
  predicates: readonly Predicate<TypedObject>[];
  resyncPeriodMs: number;
}

export class ControllerBuilderError extends Error {
  constructor(controller: string, message: string) {
    super(`controller ${controller}: ${message}`);
    this.name = "ControllerBuilderError";
  }
}

export class ControllerBuilder<R = Request> {
  private forResource: ResourceDescriptor | undefined;
  private readonly watchList: Watch<R>[] = [];
  private readonly sources: Source<R>[] = [];
  private readonly filters: Predicate<TypedObject>[] = [];
  private options: ControllerBuilderOptions<R> = {};
  private built = false;

  constructor(
    private readonly host: BuilderHost,
    readonly name: string,
  ) {
    if (!/^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/.test(name)) {
      throw new ControllerBuilderError(name, "a controller name is lower-case letters, digits, '-', '_' or '.', starting and ending with a letter or digit");
    }
  }

  /** The primary resource: each event enqueues the object's own namespace/name (For). */
  for<T extends TypedObject>(this: ControllerBuilder<ObjectName>, resource: ResourceDescriptor<T>, opts: WatchSourceOptions<T> = {}): ControllerBuilder<ObjectName> {
    if (this.forResource) throw new ControllerBuilderError(this.name, "for() may be called only once");
    this.forResource = resource;
    return this.addWatch(resource, enqueueRequestForObject<T>(), opts);
  }

  /**
   * Objects the primary resource owns: each event enqueues the owner named by the object's
   * controller reference of the For kind (Owns / EnqueueRequestForOwner with OnlyControllerOwner).
   */
  owns<U extends TypedObject>(this: ControllerBuilder<ObjectName>, resource: ResourceDescriptor<U>, opts: OwnsOptions<U> = {}): ControllerBuilder<ObjectName> {
    const f = this.forResource;
    if (!f) throw new ControllerBuilderError(this.name, "owns() needs for() first: it maps objects to owners of the For kind");
    const handler = enqueueRequestForOwner<U>({ group: f.group, kind: f.kind, namespaced: f.namespaced }, { onlyController: opts.onlyController ?? true });
    return this.addWatch(resource, handler, opts);
  }

  /** Any resource, mapped to requests by a map function or an EventHandler (Watches). */
  watches<U extends TypedObject>(resource: ResourceDescriptor<U>, handler: EventHandler<U, R> | MapFunc<U, R>, opts: WatchSourceOptions<U> = {}): this {
    return this.addWatch(resource, typeof handler === "function" ? enqueueRequestsFromMapFunc<U, R>(handler) : handler, opts);
  }

  /** Requests from outside the informers (WatchesRawSource). */
  watchesRawSource(source: Source<R>): this {
    this.sources.push(source);
    return this;
  }

  /** Predicates every watch's events must pass (WithEventFilter). */
  withEventFilter(...predicates: Predicate<TypedObject>[]): this {
    this.filters.push(...predicates);
    return this;
  }

  withOptions(options: ControllerBuilderOptions<R>): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /**
   * Builds the controller with `fn` as its reconciler, registers its handlers on the manager's
   * informers and adds it to the manager; returns it (its `queue`, `cache` and `reconcileOnce`
   * serve tests and tools).
   */
  reconcile(fn: Reconciler<R>): Controller<R> {
    if (this.built) throw new ControllerBuilderError(this.name, "reconcile() may be called only once");
    if (this.watchList.length === 0 && this.sources.length === 0) {
      throw new ControllerBuilderError(this.name, "nothing to watch: call for(), watches() or watchesRawSource() first");
    }
    const o = this.options;
    const workers = o.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new ControllerBuilderError(this.name, `maxConcurrentReconciles must be a positive integer, got ${workers}`);
    }
    this.built = true;
    const host = this.host;
    const logger = o.logger ?? host.logger;
    const caches: Array<{ hasSynced(): boolean; waitForSync?(signal?: AbortSignal): Promise<boolean> }> = [];
    const seen = new Set<object>();
    for (const w of this.watchList) {
      const inf = host.informers.forResource(w.resource);
      if (!seen.has(inf)) {
        seen.add(inf);
        caches.push(inf);
      }
    }
    for (const s of this.sources) if (s.hasSynced) caches.push({ hasSynced: () => s.hasSynced!(), waitForSync: s.waitForSync?.bind(s) });

    const controller = new Controller<R>({
      name: this.name,
      reconcile: fn,
      client: host.client,
      recorder: host.eventRecorder(o.eventSource ?? this.name),
      informers: host.informers,
      caches,
      rateLimiter: o.rateLimiter,
      maxRetries: o.maxRetries,
      cacheSyncTimeoutMs: o.cacheSyncTimeoutMs,
      recoverPanic: o.recoverPanic,
      keyOf: o.keyOf,
      describe: o.describe,
      clock: host.clock,
      logger,
      registry: host.registry,
    });
    const handlerErrors = controllerCollectors(host.registry).eventHandlerErrors;
    handlerErrors.inc({ controller: this.name }, 0);
    const log = logger.child({ controller: this.name });
    for (const w of this.watchList) this.register(w, controller.queue, log, () => handlerErrors.inc({ controller: this.name }));

    const sources = this.sources;
    host.registerController(
      this.name,
      async (signal) => {
        for (const s of sources) await s.start(controller.queue, signal);
        await controller.run(signal, workers);
      },
      o.needLeaderElection ?? true,
    );
    return controller;
  }

  private addWatch<U extends TypedObject>(resource: ResourceDescriptor<U>, handler: EventHandler<U, R>, opts: WatchSourceOptions<U>): this {
    if (this.built) throw new ControllerBuilderError(this.name, "the controller is already built");
    this.watchList.push({
      resource,
      // Stored type-erased: the informer of `resource` only ever delivers U.
      handler: handler as EventHandler<TypedObject, R>,
      predicates: (opts.predicates ?? []) as readonly Predicate<TypedObject>[],
      resyncPeriodMs: opts.resyncPeriodMs ?? 0,
    });
    return this;
  }

  /** One informer handler: filters, predicates, the handler — each event isolated from failures. */
  private register(w: Watch<R>, queue: RequestQueue<R>, log: Logger, countError: () => void): void {
    const preds = [...this.filters, ...w.predicates];
    const guard = (what: string, fn: () => void) => {
      try {
        fn();
      } catch (err) {
        countError();
        log.error({ err, resource: w.resource.resource, event: what }, "Event handler failed; event dropped");
      }
    };
    const h = w.handler;
    this.host.informers.forResource(w.resource).addEventHandler(
      {
        onAdd: (object, isInInitialList) =>
          guard("create", () => {
            const e = { object, isInInitialList };
            if (allowCreate(preds, e)) h.create?.(e, queue);
          }),
        onUpdate: (objectOld, objectNew) =>
          guard("update", () => {
            const e = { objectOld, objectNew };
            if (allowUpdate(preds, e)) h.update?.(e, queue);
          }),
        onDelete: (obj) =>
          guard("delete", () => {
            const tombstone = obj instanceof DeletedFinalStateUnknown;
            const object = tombstone ? obj.obj : obj;
            if (!object) {
              log.error({ key: (obj as DeletedFinalStateUnknown).key, resource: w.resource.resource }, "DeletedFinalStateUnknown contained no object");
              return;
            }
            const e = { object, deleteStateUnknown: tombstone };
            if (allowDelete(preds, e)) h.delete?.(e, queue);
          }),
      },
      w.resyncPeriodMs,
    );
  }
}
