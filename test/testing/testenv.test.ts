/**
 * startTestEnv (kubeloop/testing) as a user's integration test uses it: CRDs from deploy/crds and
 * from a declaration, no built-in controllers, the test's own controller on env.manager,
 * a kubeconfig for other clients, and every way of shutting down.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/apimachinery/clock.js";
import { applicationCRD } from "../../src/controllers/application/declaration.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { defineCustomResource, k, type CustomResourceObject } from "../../src/runtime/index.js";
import { eventually, readCRDFiles, startTestEnv, TestEnvError } from "../../src/testing/index.js";

const counters = defineCustomResource({
  group: "testenv.kubeloop.dev",
  scope: "Namespaced",
  names: { kind: "Counter", plural: "counters" },
  versions: {
    v1: {
      spec: k.object({ target: k.integer({ minimum: 0 }) }),
      status: k.object({ seen: k.integer().optional() }).optional(),
      subresources: { status: true },
    },
  },
});
type Counter = CustomResourceObject<typeof counters>;

describe("startTestEnv", () => {
  it("installs CRDs from a directory and from declarations, runs the test's controller, and no built-in one", async () => {
    await using env = await startTestEnv({ crdDirectoryPaths: ["deploy/crds"], crds: [counters] });
    expect(env.crds.map((c) => c.metadata?.name)).toEqual(["applications.kubeloop.dev", "counters.testenv.kubeloop.dev"]);
    expect(readFileSync(env.kubeconfigPath, "utf8")).toContain(env.url);

    env.manager
      .controller("counter")
      .for(counters.resource)
      .reconcile(async (req, ctx) => {
        const c = ctx.cache.get(counters.resource, req);
        if (!c || c.status?.seen === c.spec.target) return;
        await ctx.client.resource(counters.resource, req.namespace).updateStatus({ ...c, status: { seen: c.spec.target } });
      });
    await env.start();

    const created: Counter = await env.client.resource(counters.resource, "default").create({ metadata: { name: "c1" }, spec: { target: 3 } });
    expect(created.spec.target).toBe(3);
    await eventually(async () => expect((await env.client.resource(counters.resource, "default").get("c1")).status?.seen).toBe(3));

    // No built-in controller runs: an Application makes no Deployment.
    await env.client.resource(applicationCRD.resource, "default").create({ metadata: { name: "a" }, spec: { image: "nginx" } });
    const other = KubeClient.fromKubeconfig({ kubeconfigPath: env.kubeconfigPath, kubeconfigEnv: "" });
    try {
      expect((await other.apps.v1.deployments("default").list()).items).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("stops on stop(), idempotently, and on its signal", async () => {
    const env = await startTestEnv();
    const path = env.kubeconfigPath;
    await Promise.all([env.stop(), env.stop()]);
    await expect(env.start()).rejects.toThrow(TestEnvError);
    expect(existsSync(path)).toBe(false);

    const ac = new AbortController();
    const env2 = await startTestEnv({ signal: ac.signal });
    ac.abort();
    await env2.stop();
    await expect(env2.client.core.v1.namespaces().list()).rejects.toThrow();
  });

  it("takes a fake clock for the server, the built-in controllers and the manager", async () => {
    const clock = new FakeClock();
    await using env = await startTestEnv({ clock, controllers: ["deployment"] });
    await env.start();
    const ns = await env.client.core.v1.namespaces().get("default");
    expect(new Date(ns.metadata?.creationTimestamp ?? "").getTime()).toBe(clock.now() - (clock.now() % 1000));
  });

  it("refuses a missing CRD path, unless told not to", async () => {
    await expect(startTestEnv({ crdDirectoryPaths: ["/nonexistent/crds"] })).rejects.toThrow("CRD path /nonexistent/crds does not exist");
    expect(readCRDFiles(["/nonexistent/crds"], false)).toEqual([]);
    expect(readCRDFiles(["deploy/crds", "deploy/helm/kubeloop-application/crds"]).map((c) => c.metadata?.name)).toEqual(["applications.kubeloop.dev", "applications.kubeloop.dev"]);
  });
});
