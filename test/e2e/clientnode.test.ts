/** @kubernetes/client-node 1.x (the official JavaScript client) against the embedded API server. */
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";

let api: RunningApiServer;
let kc: k8s.KubeConfig;

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  kc = new k8s.KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
});

afterAll(async () => {
  await api?.stop();
});

describe("@kubernetes/client-node against the embedded API server", () => {
  it("lists, creates and merge-patches", async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const list = await core.listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toEqual(expect.arrayContaining(["default", "kube-system"]));
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "from-client-node" }, data: { a: "1" } } });
    const patched = await core.patchNamespacedConfigMap(
      { name: "from-client-node", namespace: "default", body: { data: { b: "2" } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect(patched.data).toEqual({ a: "1", b: "2" });
  });

  it("its informer sees add, update and delete", async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const seen: string[] = [];
    const informer = k8s.makeInformer(kc, "/api/v1/namespaces/default/configmaps", () => core.listNamespacedConfigMap({ namespace: "default" }));
    informer.on("add", (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on("update", (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on("delete", (o) => seen.push(`delete ${o.metadata?.name}`));
    await informer.start();
    const until = async (s: string) => {
      for (let i = 0; i < 200 && !seen.includes(s); i++) await new Promise((r) => setTimeout(r, 25));
      expect(seen).toContain(s);
    };
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "inf" } } });
    await until("add inf");
    await core.patchNamespacedConfigMap({ name: "inf", namespace: "default", body: { data: { x: "y" } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
    await until("update inf");
    await core.deleteNamespacedConfigMap({ name: "inf", namespace: "default" });
    await until("delete inf");
    await informer.stop();
  });
});
