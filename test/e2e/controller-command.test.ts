/**
 * `kubeloop controller <name>` composes one built-in controller on a Manager, as
 * startControlPlane composes them all: here the ReplicaSet controller, against an embedded API
 * server with no controllers of its own, through the server's kubeconfig.
 */
import type { ReplicaSet } from "../../src/apimachinery/api/apps/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runController } from "../../src/cli/controller.js";
import { builtin } from "../../src/client/typed.js";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { eventually } from "../../src/testing/eventually.js";

let cp: RunningControlPlane;
beforeAll(async () => {
  cp = await startControlPlane({ port: 0, controllers: [] });
}, 60_000);
afterAll(async () => {
  await cp?.stop();
});

describe("kubeloop controller replicaset", () => {
  it("runs the controller on a manager until stopped: pods appear for a ReplicaSet", async () => {
    const stop = new AbortController();
    const running = runController("replicaset", { kubeconfig: cp.api.kubeconfigPath, metricsBindAddress: "0", healthProbeBindAddress: "0", logger: silentLogger() }, stop.signal);
    const rs: ReplicaSet = {
      metadata: { name: "web", namespace: "default" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
      },
    };
    await cp.client.resource(builtin.replicaSets, "default").create(rs);
    const pods = await eventually(async () => {
      const list = await cp.client.resource(builtin.pods, "default").list({ labelSelector: "app=web" });
      return list.items.length === 2 ? list.items : undefined;
    }, { what: "two pods", timeoutMs: 20_000 });
    expect(pods.every((p) => p.metadata?.ownerReferences?.[0]?.kind === "ReplicaSet")).toBe(true);
    stop.abort();
    await running;
  });
});
