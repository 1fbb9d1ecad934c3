import type { Deployment } from "../apimachinery/api/apps/v1.js";
import { describe, expect, it } from "vitest";
import { builtin } from "../client/typed.js";
import { ControllerFixture, ControllerFixtureError } from "./fixture.js";

const dep = (replicas: number): Deployment => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } } } },
});

/** A toy sync: make the cached Deployment have 3 replicas. */
async function sync(f: ControllerFixture): Promise<void> {
  const lister = f.informers.forResource<Deployment>(builtin.deployments).lister();
  const d = lister.namespace("default").get("web");
  if (d.spec?.replicas === 3) return;
  await f.client.resource<Deployment>(builtin.deployments, "default").update({ ...d, spec: { ...d.spec!, replicas: 3 } });
}

describe("ControllerFixture", () => {
  it("seeds the API and the caches, and verifies the write actions in order", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.deployments, dep(1));
    const cached = f.informers.forResource<Deployment>(builtin.deployments).lister().namespace("default").get("web");
    expect(cached.metadata?.resourceVersion).toBe("1");
    await sync(f);
    const want = { ...cached, spec: { ...cached.spec!, replicas: 3 } };
    f.expect({ verb: "update", resource: "deployments", namespace: "default", name: "web", object: want });
    f.verify();
  });

  it("reports a missing, an unexpected and a different action", async () => {
    const inSync = new ControllerFixture();
    inSync.seed(builtin.deployments, dep(3));
    await sync(inSync);
    inSync.expect({ verb: "update", resource: "deployments" });
    expect(() => inSync.verify()).toThrow(/1 expected actions did not happen, the first: update deployments/);

    const noisy = new ControllerFixture();
    noisy.seed(builtin.deployments, dep(1));
    await sync(noisy);
    expect(() => noisy.verify()).toThrow(/1 unexpected actions, the first: update deployments default\/web/);

    const wrong = new ControllerFixture();
    wrong.seed(builtin.deployments, dep(1));
    await sync(wrong);
    wrong.expect({ verb: "update", resource: "deployments", object: dep(5) });
    expect(() => wrong.verify()).toThrow(ControllerFixtureError);
    expect(() => wrong.verify()).toThrow(/object differs/);
  });
});
