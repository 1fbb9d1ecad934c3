/**
 * The builder version of the sample controller against upstream's controller_test.go cases, on
 * kubeloop/testing's ControllerFixture: the same actions and events as the hand-wired port.
 */
import { describe, expect, it } from "vitest";
import { builtin } from "kubeloop";
import { ControllerFixture } from "kubeloop/testing";
import { setupFooController } from "./builder.js";
import { foosResource, newDeployment, type Foo } from "./controller.js";

function newFoo(name: string, replicas?: number): Foo {
  return {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace: "default", uid: `foo-uid-${name}` },
    spec: { deploymentName: `${name}-deployment`, replicas },
  };
}

const withStatus = (foo: Foo, availableReplicas = 0): Foo => ({ ...foo, status: { availableReplicas } });

describe("sample-controller on the builder (upstream's controller_test.go)", () => {
  it("creates the Deployment (TestCreatesDeployment)", async () => {
    const f = new ControllerFixture();
    const c = setupFooController(f.manager);
    const [foo] = f.seed(foosResource, newFoo("test", 1));
    f.expect({ verb: "create", resource: "deployments", object: newDeployment(foo) });
    f.expect({ verb: "update", resource: "foos", subresource: "status", object: withStatus(foo) });
    await f.reconcile(c, "default/test");
    f.verify();
    expect(f.recorder.events).toEqual(["Normal Synced Foo synced successfully"]);
  });

  it("does nothing but record status when in sync (TestDoNothing)", async () => {
    const f = new ControllerFixture();
    const c = setupFooController(f.manager);
    const [foo] = f.seed(foosResource, newFoo("test", 1));
    f.seed(builtin.deployments, newDeployment(foo));
    f.expect({ verb: "update", resource: "foos", subresource: "status", object: withStatus(foo) });
    await f.reconcile(c, "default/test");
    f.verify();
  });

  it("updates the Deployment's replicas (TestUpdateDeployment)", async () => {
    const f = new ControllerFixture();
    const c = setupFooController(f.manager);
    const old = newFoo("test", 1);
    f.seed(builtin.deployments, newDeployment(old));
    const [foo] = f.seed(foosResource, newFoo("test", 2));
    f.expect({ verb: "update", resource: "deployments", object: newDeployment(foo) });
    f.expect({ verb: "update", resource: "foos", subresource: "status", object: withStatus(foo) });
    await f.reconcile(c, "default/test");
    f.verify();
  });

  it("fails when the Deployment is not controlled by its Foo (TestNotControlledByUs)", async () => {
    const f = new ControllerFixture();
    const c = setupFooController(f.manager);
    const [foo] = f.seed(foosResource, newFoo("test", 1));
    const d = newDeployment(foo);
    d.metadata!.ownerReferences = [];
    f.seed(builtin.deployments, d);
    await expect(f.reconcile(c, "default/test")).rejects.toThrow('Resource "test-deployment" already exists and is not managed by Foo');
    f.verify();
    expect(f.recorder.events).toEqual(['Warning ErrResourceExists Resource "test-deployment" already exists and is not managed by Foo']);
  });

  it("converges a Foo with informers and workers running, and follows its Deployment's status", async () => {
    const f = new ControllerFixture();
    setupFooController(f.manager);
    f.seedAPI(foosResource, newFoo("web", 3));
    await f.start();
    try {
      const deployments = f.client.resource(builtin.deployments, "default");
      const created = await f.eventually(() => deployments.get("web-deployment").catch(() => undefined));
      expect(created.spec?.replicas).toBe(3);
      // The Deployment controller is not running here: play its part, and the Foo follows.
      await deployments.updateStatus({ ...created, status: { availableReplicas: 3 } });
      const foos = f.client.resource(foosResource, "default");
      await f.eventually(async () => (await foos.get("web")).status?.availableReplicas === 3);
    } finally {
      await f.stop();
    }
  });
});
