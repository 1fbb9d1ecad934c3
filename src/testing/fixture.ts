/**
 * ControllerFixture: the one test harness for controllers — sample-controller's
 * controller_test.go fixture, generic over any controller built with the builder, plus a running
 * mode for tests that want informers and workers at work.
 *
 * Fixture mode (upstream's shape): seed objects into the fake API *and* the informer caches (as
 * upstream adds them to both the clientset and the listers' indexers), run one reconcile, then
 * compare the client's actions — list and watch filtered out, as upstream's
 * filterInformerActions — with the expected ones, in order:
 *
 *   const f = new ControllerFixture();
 *   const c = setupMyController(f.manager);          // mgr.controller(..).for(..).reconcile(..)
 *   f.seed(builtin.deployments, existing);
 *   f.expect({ verb: "update", resource: "deployments", object: wanted });
 *   await f.reconcile(c, "default/web");
 *   f.verify();
 *
 * Running mode: `await f.start()` runs the manager (informers over the fake client, every
 * controller's workers, no leader election); `f.eventually(cond)` and `f.settle()` drive the fake
 * clock; `f.stop()` stops it. Objects seeded before start() are listed by the
 * informers like any others (the caches are emptied first, so handlers see them as adds).
 *
 * Everything shares one FakeClock; every controller's events go to `f.recorder`; metrics go to a
 * registry of the fixture's own. `verify()` throws ControllerFixtureError describing the first
 * difference, so it works with any test runner.
 */
import { Registry } from "prom-client";
import { FakeClock } from "../apimachinery/clock.js";
import { deepCopy } from "../apimachinery/deepcopy.js";
import { semanticEqual } from "../apimachinery/equality.js";
import { ObjectName } from "../apimachinery/objectname.js";
import type { ResourceDescriptor } from "../apimachinery/resource.js";
import type { TypedObject } from "../apimachinery/types.js";
import { FakeRecorder } from "../events/broadcaster.js";
import { SharedInformerFactory } from "../informers/factory.js";
import type { Controller } from "../runtime/controller.js";
import { silentLogger, type Logger } from "../runtime/logging.js";
import { Manager } from "../runtime/manager.js";
import type { ReconcileResult } from "../runtime/reconcile.js";
import { eventually, settle, type EventuallyOptions, type SettleOptions } from "./eventually.js";
import { FakeClient, type Action, type Verb } from "./fakeclient.js";

export interface ExpectedAction {
  verb: Verb;
  /** Plural resource name, e.g. "deployments". */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** When given, the object sent must equal it semantically (equality.Semantic). */
  object?: TypedObject;
  /** When given (patch actions), the patch sent must equal it. */
  patch?: unknown;
}

export class ControllerFixtureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ControllerFixtureError";
  }
}

export interface ControllerFixtureOptions {
  /** Default: a FakeClock at 2026-01-01T00:00:00Z. */
  clock?: FakeClock;
  /** Watch one namespace (the informer factory's); default all. */
  namespace?: string;
  /** Default: a silent logger. */
  logger?: Logger;
}

function describeAction(a: Partial<Action> | ExpectedAction): string {
  const where = [a.namespace, a.name].filter(Boolean).join("/");
  return `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ""}${where ? ` ${where}` : ""}`;
}

export const FIXTURE_START_TIME = Date.UTC(2026, 0, 1);

export class ControllerFixture {
  readonly clock: FakeClock;
  readonly client: FakeClient;
  readonly recorder = new FakeRecorder();
  readonly registry = new Registry();
  readonly informers: SharedInformerFactory;
  /** Build controllers on this manager: `setupX(f.manager)` or `f.manager.controller(..)`. */
  readonly manager: Manager;
  private readonly expected: ExpectedAction[] = [];
  private running: { stop: AbortController; done: Promise<void> } | undefined;

  constructor(opts: ControllerFixtureOptions = {}) {
    this.clock = opts.clock ?? new FakeClock(FIXTURE_START_TIME);
    this.client = new FakeClient({ clock: this.clock });
    this.informers = new SharedInformerFactory(this.client, { clock: this.clock, namespace: opts.namespace });
    this.manager = new Manager({
      client: this.client,
      informers: this.informers,
      clock: this.clock,
      logger: opts.logger ?? silentLogger(),
      registry: this.registry,
      recorderProvider: () => this.recorder,
      gracefulShutdownTimeoutMs: 10_000,
    });
  }

  /**
   * Puts objects into the fake API and into the informer cache of `resource` (no informer runs:
   * the caches hold exactly what was seeded, frozen as a real cache holds it). Records no
   * actions; returns the objects as stored (resourceVersion, uid, creationTimestamp filled in).
   */
  seed<T extends TypedObject>(resource: ResourceDescriptor<T>, ...objects: T[]): T[] {
    const stored = this.seedAPI(resource, ...objects);
    this.seedCache(resource, ...stored);
    return stored;
  }

  /** Puts objects into the fake API only (the cache does not know them yet). */
  seedAPI<T extends TypedObject>(resource: ResourceDescriptor<T>, ...objects: T[]): T[] {
    const stored = this.client.seed(resource, ...objects.map((o) => deepCopy(o)));
    this.client.clearActions();
    return stored;
  }

  /** Puts objects into the informer cache of `resource` only (a cache ahead of or behind the API). */
  seedCache<T extends TypedObject>(resource: ResourceDescriptor<T>, ...objects: T[]): void {
    const indexer = this.informers.forResource(resource).getIndexer();
    for (const o of objects) indexer.add(deepCopy(o));
  }

  /** Runs one reconcile of `request` ("ns/name" or an ObjectName for ObjectName controllers). */
  reconcile<R>(controller: Controller<R>, request: R | string): Promise<ReconcileResult> {
    const r = (typeof request === "string" ? ObjectName.parse(request) : request) as R;
    return controller.reconcileOnce(r);
  }

  /** Adds an expected action; actions are verified in the order they were expected. */
  expect(action: ExpectedAction): this {
    this.expected.push(action);
    return this;
  }

  /** The client's actions since seeding, without list and watch (upstream's filterInformerActions). */
  actions(): Action[] {
    return this.client.actions().filter((a) => a.verb !== "list" && a.verb !== "watch");
  }

  /** The client's writes: actions other than get, list and watch. */
  writeActions(): Action[] {
    return this.client.writeActions();
  }

  /** Throws a ControllerFixtureError unless the actions match the expected ones, in order. */
  verify(): void {
    const got = this.actions();
    for (let i = 0; i < Math.max(got.length, this.expected.length); i++) {
      const a = got[i];
      const e = this.expected[i];
      if (!e) throw new ControllerFixtureError(`${got.length - this.expected.length} unexpected actions, the first: ${describeAction(a)}`);
      if (!a) throw new ControllerFixtureError(`${this.expected.length - got.length} expected actions did not happen, the first: ${describeAction(e)}`);
      const same =
        a.verb === e.verb &&
        a.resource === e.resource &&
        (a.subresource ?? "") === (e.subresource ?? "") &&
        (e.namespace === undefined || a.namespace === e.namespace) &&
        (e.name === undefined || a.name === e.name);
      if (!same) throw new ControllerFixtureError(`action ${i}: expected ${describeAction(e)}, got ${describeAction(a)}`);
      if (e.object !== undefined && !semanticEqual(a.object, e.object)) {
        throw new ControllerFixtureError(
          `action ${i} (${describeAction(a)}): object differs\n  expected: ${JSON.stringify(e.object)}\n  got:      ${JSON.stringify(a.object)}`,
        );
      }
      if (e.patch !== undefined && !semanticEqual(a.patch, e.patch)) {
        throw new ControllerFixtureError(`action ${i} (${describeAction(a)}): patch differs\n  expected: ${JSON.stringify(e.patch)}\n  got:      ${JSON.stringify(a.patch)}`);
      }
    }
  }

  // --- running mode ---------------------------------------------------------------------------

  /**
   * Starts the manager: informers list and watch the fake API, controllers run their workers.
   * Resolves once every informer created so far has synced.
   */
  async start(): Promise<void> {
    if (this.running) throw new ControllerFixtureError("the fixture is already started");
    // Caches filled by seed() start empty, so the informers' lists deliver every object as an add.
    for (const inf of this.informerList()) inf.getIndexer().replace([], "");
    const stop = new AbortController();
    const done = this.manager.start(stop.signal);
    this.running = { stop, done };
    await this.eventually(() => this.informerList().every((i) => i.hasSynced()), { what: "the informers to sync" });
  }

  /** Stops a started manager and waits for it. */
  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    r.stop.abort();
    await r.done;
  }

  /** `eventually` on this fixture's clock. */
  eventually<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, opts: Omit<EventuallyOptions, "clock"> = {}): Promise<T> {
    return eventually(probe, { ...opts, clock: this.clock });
  }

  /** `settle` on this fixture's clock. */
  settle(opts: Omit<SettleOptions, "clock"> = {}): Promise<void> {
    return settle({ ...opts, clock: this.clock });
  }

  private informerList() {
    return this.informers.all();
  }
}
