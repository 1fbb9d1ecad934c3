/**
 * ControllerFixture: the fixture of sample-controller's controller_test.go, generic over any
 * controller. Seed objects into the fake API *and* the informer caches (as upstream adds them to
 * both the clientset and the listers' indexers), run one sync, then compare the client's write
 * actions — list and watch filtered out, as upstream's filterInformerActions — with the expected
 * ones, in order.
 *
 *   const f = new ControllerFixture();
 *   f.seed(builtin.deployments, existing);
 *   const c = new MyController({ client: f.client, informers: f.informers, recorder: f.recorder, clock: f.clock });
 *   f.expect({ verb: "update", resource: "deployments", object: wanted });
 *   await c.syncHandler("default/web");
 *   f.verify();
 *
 * `verify()` throws an Error describing the first difference, so it works with any test runner.
 */
import { FakeClock } from "../apimachinery/clock.js";
import { deepCopy, semanticEqual } from "../apimachinery/deepcopy.js";
import type { KubeObject, TypedObject } from "../apimachinery/types.js";
import type { ResourceDescriptor } from "../client/interfaces.js";
import { FakeRecorder } from "../events/broadcaster.js";
import { SharedInformerFactory } from "../informers/factory.js";
import { FakeClient, type Action, type Verb } from "./fakeclient.js";

export interface ExpectedAction {
  verb: Verb;
  /** Plural resource name, e.g. "deployments". */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** When given, the object sent must equal it semantically. */
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

function describeAction(a: Partial<Action> | ExpectedAction): string {
  const where = [a.namespace, a.name].filter(Boolean).join("/");
  return `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ""}${where ? ` ${where}` : ""}`;
}

export class ControllerFixture {
  readonly clock: FakeClock;
  readonly client: FakeClient;
  readonly recorder = new FakeRecorder();
  readonly informers: SharedInformerFactory;
  private readonly expected: ExpectedAction[] = [];

  constructor(opts: { clock?: FakeClock } = {}) {
    this.clock = opts.clock ?? new FakeClock();
    this.client = new FakeClient({ clock: this.clock });
    this.informers = new SharedInformerFactory(this.client, { clock: this.clock });
  }

  /**
   * Puts objects into the fake API and into the informer cache of `resource` (no informer is
   * started: the caches hold exactly what was seeded). Seeding records no actions.
   */
  seed(resource: ResourceDescriptor, ...objects: TypedObject[]): void {
    const indexer = this.informers.forResource(resource).getIndexer();
    for (const o of objects) {
      const stored = this.client.tracker.create(resource, o.metadata?.namespace ?? "", deepCopy(o) as unknown as KubeObject);
      indexer.add(stored as TypedObject);
    }
    this.client.clearActions();
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
}
