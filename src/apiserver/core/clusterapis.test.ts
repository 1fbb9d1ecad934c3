/**
 * The cluster-side bootstrap objects and upkeep loops on a running server: system
 * PriorityClasses, the APF bootstrap configuration and FlowSchema Dangling conditions, the Local
 * APIServices of built-in and custom resource groups, APIService availability, and the
 * kube-apiserver-client CSR signer.
 */
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { createCertificateRequestPEM } from "../auth/csr.js";
import { generateKey } from "../auth/x509.js";
import { startApiServer, type RunningApiServer } from "../index.js";
import { defaultWriteContext } from "../rest/context.js";
import type { ResourceStore } from "../rest/store.js";
import { autoRegisterManagedLabel } from "./apiservices.js";

let api: RunningApiServer;
const ctx = () => defaultWriteContext({ fieldManager: "test", user: { username: "admin", groups: ["system:masters", "system:authenticated"] } });
const store = (group: string, resource: string): ResourceStore => {
  const s = api.server.registry.byGroupResource(group, resource);
  if (!s) throw new Error(`${group}/${resource} is not served`);
  return s;
};
const names = async (s: ResourceStore) => (await s.list(undefined, { labelSelector: "", fieldSelector: "", resourceVersion: "", limit: 0, continue: "", watch: false, allowWatchBookmarks: false })).items.map((o) => o.metadata?.name);
type O = Record<string, unknown>;
const conditions = (o: KubeObject) => ((o.status as O | undefined)?.conditions ?? []) as O[];
const condition = (o: KubeObject, type: string) => conditions(o).find((c) => c.type === type);

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

describe("bootstrap objects", () => {
  it("the system PriorityClasses", async () => {
    const pcs = store("scheduling.k8s.io", "priorityclasses");
    expect(await names(pcs)).toEqual(["system-cluster-critical", "system-node-critical"]);
    const node = await pcs.get(undefined, "system-node-critical");
    expect(node).toMatchObject({ value: 2000001000, preemptionPolicy: "PreemptLowerPriority", description: "Used for system critical pods that must not be moved from their current node." });
  });

  it("the mandatory and suggested APF objects, every FlowSchema not dangling", async () => {
    const fs = store("flowcontrol.apiserver.k8s.io", "flowschemas");
    expect((await names(fs)).sort()).toEqual(
      ["catch-all", "exempt", "global-default", "kube-controller-manager", "kube-scheduler", "kube-system-service-accounts", "probes", "service-accounts", "system-leader-election", "system-node-high", "system-nodes"].sort(),
    );
    expect((await names(store("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"))).sort()).toEqual(
      ["catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high", "workload-low"].sort(),
    );
    const catchAll = await fs.get(undefined, "catch-all");
    expect(catchAll.metadata?.annotations).toEqual({ "apf.kubernetes.io/autoupdate-spec": "true" });
    expect(condition(catchAll, "Dangling")).toMatchObject({
      status: "False",
      reason: "Found",
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "catch-all" and it exists',
    });
  });

  it("a Local APIService for every served built-in group/version", async () => {
    const svcs = store("apiregistration.k8s.io", "apiservices");
    const all = await names(svcs);
    expect(all).toContain("v1.");
    expect(all).toContain("v1.storage.k8s.io");
    expect(all).not.toContain("v1.apiregistration.k8s.io");
    const core = await svcs.get(undefined, "v1.");
    expect(core.metadata?.labels).toEqual({ [autoRegisterManagedLabel]: "onstart" });
    expect(core.spec).toEqual({ group: "", version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(condition(core, "Available")).toMatchObject({ status: "True", reason: "Local", message: "Local APIServices are always available" });
  });
});

describe("Priority admission of pods", () => {
  const pod = (name: string, spec: O = {}): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "nginx" }], ...spec } });
  it("resolves the class, refuses unknown ones and conflicting values, applies the global default", async () => {
    const pods = store("", "pods");
    const critical = await pods.create("default", pod("critical", { priorityClassName: "system-node-critical" }), ctx());
    expect(critical.spec).toMatchObject({ priority: 2000001000, preemptionPolicy: "PreemptLowerPriority" });
    const plain = await pods.create("default", pod("plain"), ctx());
    expect(plain.spec).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });
    expect((plain.spec as O).priorityClassName).toBeUndefined();
    await expect(pods.create("default", pod("missing", { priorityClassName: "gold" }), ctx())).rejects.toThrow('pods "missing" is forbidden: no PriorityClass with name gold was found');
    await expect(pods.create("default", pod("forged", { priorityClassName: "system-node-critical", priority: 5 }), ctx())).rejects.toThrow(
      "the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 2000001000 from the given PriorityClass name",
    );
    await store("scheduling.k8s.io", "priorityclasses").create(undefined, { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "default-tier" }, value: 100, globalDefault: true, preemptionPolicy: "Never" }, ctx());
    const defaulted = await pods.create("default", pod("defaulted"), ctx());
    expect(defaulted.spec).toMatchObject({ priorityClassName: "default-tier", priority: 100, preemptionPolicy: "Never" });
    // Updates keep what admission computed.
    const updated = await pods.update("default", "defaulted", (cur) => {
      const p = structuredClone(cur!);
      delete (p.spec as O).priority;
      p.metadata!.labels = { a: "b" };
      return p;
    }, ctx());
    expect(updated.object.spec).toMatchObject({ priority: 100 });
    await store("scheduling.k8s.io", "priorityclasses").delete(undefined, "default-tier", { dryRun: false }, ctx());
  });
});

describe("upkeep loops", () => {
  it("FlowSchemas naming a missing priority level are dangling until it exists", async () => {
    const fs = store("flowcontrol.apiserver.k8s.io", "flowschemas");
    await fs.create(
      undefined,
      {
        apiVersion: "flowcontrol.apiserver.k8s.io/v1",
        kind: "FlowSchema",
        metadata: { name: "mine" },
        spec: { priorityLevelConfiguration: { name: "mine" }, matchingPrecedence: 500, rules: [{ subjects: [{ kind: "Group", group: { name: "g" } }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }] },
      },
      ctx(),
    );
    await vi.waitFor(async () => expect(condition(await fs.get(undefined, "mine"), "Dangling")).toMatchObject({ status: "True", reason: "NotFound" }));
    await store("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations").create(
      undefined,
      { apiVersion: "flowcontrol.apiserver.k8s.io/v1", kind: "PriorityLevelConfiguration", metadata: { name: "mine" }, spec: { type: "Limited", limited: { limitResponse: { type: "Reject" } } } },
      ctx(),
    );
    await vi.waitFor(async () => expect(condition(await fs.get(undefined, "mine"), "Dangling")).toMatchObject({ status: "False", reason: "Found" }));
  });

  it("custom resource groups get an APIService kept in sync with the CRD", async () => {
    const crds = store("apiextensions.k8s.io", "customresourcedefinitions");
    await crds.create(
      undefined,
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "widgets.example.com" },
        spec: {
          group: "example.com",
          names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
          scope: "Namespaced",
          versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
        },
      },
      ctx(),
    );
    const svcs = store("apiregistration.k8s.io", "apiservices");
    await vi.waitFor(async () => {
      const svc = await svcs.get(undefined, "v1.example.com");
      expect(svc.metadata?.labels).toEqual({ [autoRegisterManagedLabel]: "true" });
      expect(svc.spec).toEqual({ group: "example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 100 });
    });
    await crds.delete(undefined, "widgets.example.com", { dryRun: false }, ctx());
    await vi.waitFor(async () => expect(await names(svcs)).not.toContain("v1.example.com"));
  });

  it("service-backed APIServices are not available (no aggregation proxy)", async () => {
    const svcs = store("apiregistration.k8s.io", "apiservices");
    await svcs.create(
      undefined,
      {
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: { name: "v1beta1.metrics.k8s.io" },
        spec: { group: "metrics.k8s.io", version: "v1beta1", groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: "kube-system", name: "metrics-server" }, insecureSkipTLSVerify: true },
      },
      ctx(),
    );
    await vi.waitFor(async () =>
      expect(condition(await svcs.get(undefined, "v1beta1.metrics.k8s.io"), "Available")).toMatchObject({ status: "False", reason: "ServiceNotFound", message: 'service/metrics-server in "kube-system" is not present' }),
    );
    await store("", "services").create("kube-system", { apiVersion: "v1", kind: "Service", metadata: { name: "metrics-server" }, spec: { ports: [{ port: 443 }] } }, ctx());
    await vi.waitFor(async () => expect(condition(await svcs.get(undefined, "v1beta1.metrics.k8s.io"), "Available")).toMatchObject({ status: "False", reason: "FailedDiscoveryCheck" }));
    // The aggregated group is not served.
    expect(api.server.registry.groups().map((g) => g.group)).not.toContain("metrics.k8s.io");
  });

  it("signs approved kube-apiserver-client requests with the cluster CA", async () => {
    const csrs = store("certificates.k8s.io", "certificatesigningrequests");
    const key = generateKey();
    const request = Buffer.from(createCertificateRequestPEM({ commonName: "alice", organizations: ["dev", "qa"] }, key)).toString("base64");
    const csr = (name: string, usages: string[]): KubeObject => ({
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name },
      spec: { request, signerName: "kubernetes.io/kube-apiserver-client", usages, expirationSeconds: 3600 },
    });
    const approve = (name: string) =>
      csrs.update(undefined, name, (cur) => ({ ...structuredClone(cur!), status: { conditions: [{ type: "Approved", status: "True", reason: "Test" }] } }), ctx(), { subresource: "approval" });
    await csrs.create(undefined, csr("alice", ["client auth", "digital signature"]), ctx());
    await csrs.create(undefined, csr("server", ["server auth"]), ctx());
    // Pending requests are not signed.
    await api.server.clusterAPIs.idle();
    expect(((await csrs.get(undefined, "alice")).status as O).certificate).toBeUndefined();
    await approve("alice");
    await approve("server");
    const issued = await vi.waitFor(async () => {
      const c = await csrs.get(undefined, "alice");
      expect((c.status as O).certificate).toBeDefined();
      return c;
    });
    const cert = new X509Certificate(Buffer.from((issued.status as O).certificate as string, "base64"));
    expect(cert.subject).toBe("O=dev\nO=qa\nCN=alice");
    const ca = new X509Certificate(api.server.access!.tls!.clientCAPem);
    expect(cert.checkIssued(ca) && cert.verify(ca.publicKey)).toBe(true);
    expect(cert.publicKey.export({ type: "spki", format: "der" }).equals(key.publicKey.export({ type: "spki", format: "der" }))).toBe(true);
    // One hour from now (a short-lived certificate), valid from five minutes ago.
    expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).toBe(3900_000);
    expect(condition(issued, "Approved")).toMatchObject({ lastUpdateTime: expect.any(String), lastTransitionTime: expect.any(String) });
    const failed = await vi.waitFor(async () => {
      const c = await csrs.get(undefined, "server");
      expect(condition(c, "Failed")).toBeDefined();
      return c;
    });
    expect(condition(failed, "Failed")).toMatchObject({ status: "True", reason: "SignerValidationFailure", message: "invalid usage for client certificate: server auth" });
    expect((failed.status as O).certificate).toBeUndefined();
  });
});
