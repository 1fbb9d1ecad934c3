/**
 * Issue 16, end to end with the real kubectl 1.35: a new namespace gets its `default`
 * ServiceAccount and the `kube-root-ca.crt` ConfigMap holding the CA of the kubeconfig kubectl
 * uses; both come back when deleted.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse } from "yaml";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

it("a namespace gets the default ServiceAccount and kube-root-ca.crt with the cluster CA, recreated when deleted", async () => {
  const kubeconfig = parse(readFileSync(cp.api.kubeconfigPath, "utf8")) as { clusters: Array<{ cluster: { "certificate-authority-data": string } }> };
  const ca = Buffer.from(kubeconfig.clusters[0].cluster["certificate-authority-data"], "base64").toString("utf8");
  const ns = "e2e-sa-ca";
  await k.ok(["create", "namespace", ns]);
  const caData = await eventually("kube-root-ca.crt", async () => {
    const r = await k.run(["-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", "jsonpath={.data.ca\\.crt}"]);
    return r.code === 0 && r.stdout ? r.stdout : undefined;
  });
  expect(caData.trim()).toBe(ca.trim());
  expect(await k.ok(["-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", "jsonpath={.metadata.annotations.kubernetes\\.io/description}"])).toMatch(/^Contains a CA bundle/);
  await eventually("the default ServiceAccount", async () => ((await k.run(["-n", ns, "get", "serviceaccount", "default"])).code === 0 ? true : undefined));

  await k.ok(["-n", ns, "delete", "configmap", "kube-root-ca.crt"]);
  await k.ok(["-n", ns, "delete", "serviceaccount", "default"]);
  await eventually("both back", async () => {
    const a = await k.run(["-n", ns, "get", "configmap", "kube-root-ca.crt"]);
    const b = await k.run(["-n", ns, "get", "serviceaccount", "default"]);
    return a.code === 0 && b.code === 0 ? true : undefined;
  });
}, 90_000);
