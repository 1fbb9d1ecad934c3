/**
 * The sample controller's tests, in the style of upstream's controller_test.go: a fixture puts
 * Foos and Deployments into the informer caches and the fake client, runs syncHandler for one
 * key, and checks the client's actions, in order, against the expected ones.
 */
import type { appsv1 } from "../../src/index.js";
import { describe, expect, it } from "vitest";
import { FakeRecorder, SharedInformerFactory, builtin, deepCopy, silentLogger, type KubeObject, type TypedObject } from "kubeloop";
import { FakeClient, FakeClock, type Action } from "kubeloop/testing";
import { FooController, foosResource, newDeployment, type Foo } from "./controller.js";

type Deployment = appsv1.Deployment;

let uidCounter = 0;

function newFoo(name: string, replicas?: number): Foo {
  return {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace: "default", uid: `foo-uid-${++uidCounter}` },
    spec: { deploymentName: `${name}-deployment`, replicas },
  };
}

class Fixture {
  readonly clock = new FakeClock();
  readonly client = new FakeClient({ clock: this.clock });
  readonly recorder = new FakeRecorder();
  // Objects to put in the caches (and in the fake client).
  fooLister: Foo[] = [];
  deploymentLister: Deployment[] = [];
  // Actions expected to happen on the client.
  actions: Array<Pick<Action, "verb" | "resource" | "subresource" | "object">> = [];

  newController(): FooController {
    const informers = new SharedInformerFactory(this.client, { clock: this.clock });
    const c = new FooController({ client: this.client, informers, recorder: this.recorder, clock: this.clock, logger: silentLogger() });
    for (const foo of this.fooLister) {
      this.client.seed(foosResource, deepCopy(foo) as KubeObject);
      c.fooInformer.getIndexer().add(foo);
    }
    for (const d of this.deploymentLister) {
      this.client.seed(builtin.deployments, deepCopy(d));
      c.deploymentInformer.getIndexer().add(d);
    }
    this.client.clearActions();
    return c;
  }

  run(key: string): Promise<void> {
    return this.runController(key, false);
  }

  runExpectError(key: string): Promise<void> {
    return this.runController(key, true);
  }

  private async runController(key: string, expectError: boolean): Promise<void> {
    const c = this.newController();
    let err: unknown;
    try {
      await c.syncHandler(key);
    } catch (e) {
      err = e;
    }
    if (expectError) expect(err, "expected error syncing foo, got nil").toBeDefined();
    else expect(err, "error syncing foo").toBeUndefined();
    // List and watch do not change anything: filtered out, as upstream's filterInformerActions.
    const actions = this.client.actions().filter((a) => a.verb !== "list" && a.verb !== "watch");
    expect(actions.map((a) => ({ verb: a.verb, resource: a.resource, subresource: a.subresource, object: a.object }))).toEqual(
      this.actions.map((a) => ({ verb: a.verb, resource: a.resource, subresource: a.subresource, object: a.object })),
    );
  }

  expectCreateDeploymentAction(d: Deployment): void {
    this.actions.push({ verb: "create", resource: "deployments", object: d as unknown as KubeObject });
  }

  expectUpdateDeploymentAction(d: Deployment): void {
    this.actions.push({ verb: "update", resource: "deployments", object: d as unknown as KubeObject });
  }

  expectUpdateFooStatusAction(foo: Foo, availableReplicas = 0): void {
    const withStatus = deepCopy(foo);
    withStatus.status = { availableReplicas };
    this.actions.push({ verb: "update", resource: "foos", subresource: "status", object: withStatus as KubeObject });
  }
}

function getKey(foo: Foo): string {
  return `${foo.metadata?.namespace}/${foo.metadata?.name}`;
}

describe("sample-controller (port)", () => {
  it("creates the Deployment (TestCreatesDeployment)", async () => {
    const f = new Fixture();
    const foo = newFoo("test", 1);
    f.fooLister.push(foo);
    f.expectCreateDeploymentAction(newDeployment(foo));
    f.expectUpdateFooStatusAction(foo);
    await f.run(getKey(foo));
    expect(f.recorder.events).toEqual(["Normal Synced Foo synced successfully"]);
  });

  it("does nothing but record status when in sync (TestDoNothing)", async () => {
    const f = new Fixture();
    const foo = newFoo("test", 1);
    const d = newDeployment(foo);
    f.fooLister.push(foo);
    f.deploymentLister.push(d);
    f.expectUpdateFooStatusAction(foo);
    await f.run(getKey(foo));
  });

  it("updates the Deployment's replicas (TestUpdateDeployment)", async () => {
    const f = new Fixture();
    const foo = newFoo("test", 1);
    const d = newDeployment(foo);
    // Update replicas.
    foo.spec!.replicas = 2;
    const expDeployment = newDeployment(foo);
    f.fooLister.push(foo);
    f.deploymentLister.push(d);
    f.expectUpdateDeploymentAction(expDeployment);
    f.expectUpdateFooStatusAction(foo);
    await f.run(getKey(foo));
  });

  it("fails when the Deployment is not controlled by its Foo (TestNotControlledByUs)", async () => {
    const f = new Fixture();
    const foo = newFoo("test", 1);
    const d = newDeployment(foo);
    d.metadata!.ownerReferences = [];
    f.fooLister.push(foo);
    f.deploymentLister.push(d);
    await f.runExpectError(getKey(foo));
    expect(f.recorder.events).toEqual(['Warning ErrResourceExists Resource "test-deployment" already exists and is not managed by Foo']);
  });

  it("handleObject enqueues the owning Foo and ignores other owners", () => {
    const f = new Fixture();
    const foo = newFoo("test", 1);
    f.fooLister.push(foo);
    const c = f.newController();
    c.handleObject(newDeployment(foo) as TypedObject);
    expect(c.workqueue.len()).toBe(1);
    const other = newDeployment(foo);
    other.metadata!.ownerReferences![0].kind = "Bar";
    const c2 = new Fixture().newController();
    c2.handleObject(other as TypedObject);
    expect(c2.workqueue.len()).toBe(0);
  });
});
