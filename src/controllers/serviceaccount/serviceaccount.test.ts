/**
 * Cases restated from upstream serviceaccounts_controller_test.go (TestServiceAccountCreation) and
 * rootcacertpublisher publisher_test.go (TestConfigMapCreation): one sync of a namespace, then the
 * write actions.
 */
import { describe, expect, it } from "vitest";
import type { ConfigMap, Namespace, ServiceAccount } from "../../apimachinery/api/core/v1.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { ServiceAccountController } from "./controller.js";
import { DESCRIPTION_ANNOTATION, ROOT_CA_CONFIGMAP_NAME, ROOT_CA_DESCRIPTION, RootCACertPublisher, rootCAFromConfig } from "./rootcacertpublisher.js";

const ns = (name: string, phase = "Active"): Namespace => ({ apiVersion: "v1", kind: "Namespace", metadata: { name }, status: { phase } });
const sa = (name: string, namespace = "ns"): ServiceAccount => ({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } });
const writes = (f: ControllerFixture) => f.writeActions().map((a) => `${a.verb} ${a.resource}${a.namespace ? ` ${a.namespace}` : ""}${a.object ? ` ${(a.object as { metadata?: { name?: string } }).metadata?.name ?? ""}` : ""}`);

describe("ServiceAccountController.syncNamespace (TestServiceAccountCreation)", () => {
  it.each([
    { name: "new active namespace missing serviceaccounts", namespaces: [ns("ns")], accounts: [], want: ["create serviceaccounts ns default"] },
    { name: "active namespace missing serviceaccounts", namespaces: [ns("ns")], accounts: [sa("other")], want: ["create serviceaccounts ns default"] },
    { name: "active namespace existing serviceaccounts", namespaces: [ns("ns")], accounts: [sa("default")], want: [] },
    { name: "active namespace existing serviceaccount in another namespace", namespaces: [ns("ns")], accounts: [sa("default", "elsewhere")], want: ["create serviceaccounts ns default"] },
    { name: "terminating namespace missing serviceaccounts", namespaces: [ns("ns", "Terminating")], accounts: [], want: [] },
    { name: "deleted namespace", namespaces: [], accounts: [], want: [] },
  ])("$name", async (t) => {
    const f = new ControllerFixture();
    const c = new ServiceAccountController(f.manager);
    f.seed(builtin.namespaces, ...t.namespaces);
    f.seed(builtin.serviceAccounts, ...t.accounts);
    await c.syncNamespace("ns", f.client);
    expect(writes(f)).toEqual(t.want);
  });

  it("a default ServiceAccount created meanwhile by another writer (the API server's loop) is not an error", async () => {
    const f = new ControllerFixture();
    const c = new ServiceAccountController(f.manager);
    f.seed(builtin.namespaces, ns("ns"));
    f.seedAPI(builtin.serviceAccounts, sa("default"));
    await expect(c.syncNamespace("ns", f.client)).resolves.toBeUndefined();
  });
});

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const cm = (data: Record<string, string>, annotations?: Record<string, string>): ConfigMap => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: ROOT_CA_CONFIGMAP_NAME, namespace: "ns", ...(annotations ? { annotations } : {}) },
  data,
});

describe("RootCACertPublisher.syncNamespace (TestConfigMapCreation)", () => {
  const described = { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION };
  it.each([
    { name: "create new namespace", namespaces: [ns("ns")], cms: [], want: ["create configmaps ns kube-root-ca.crt"] },
    { name: "the ConfigMap as it should be: nothing", namespaces: [ns("ns")], cms: [cm({ "ca.crt": CA }, described)], want: [] },
    { name: "updated data is put back", namespaces: [ns("ns")], cms: [cm({ "ca.crt": "other" }, described)], want: ["update configmaps ns kube-root-ca.crt"] },
    { name: "an extra key is removed", namespaces: [ns("ns")], cms: [cm({ "ca.crt": CA, extra: "x" }, described)], want: ["update configmaps ns kube-root-ca.crt"] },
    { name: "a missing description is put back", namespaces: [ns("ns")], cms: [cm({ "ca.crt": CA })], want: ["update configmaps ns kube-root-ca.crt"] },
    { name: "terminating namespace", namespaces: [ns("ns", "Terminating")], cms: [], want: [] },
    { name: "deleted namespace", namespaces: [], cms: [], want: [] },
  ])("$name", async (t) => {
    const f = new ControllerFixture();
    const c = new RootCACertPublisher(f.manager, { rootCA: CA });
    f.seed(builtin.namespaces, ...t.namespaces);
    f.seed(builtin.configMaps, ...t.cms);
    await c.syncNamespace("ns", f.client);
    expect(writes(f)).toEqual(t.want);
    if (t.want.length > 0) {
      const stored = f.client.tracker.get(builtin.configMaps, "ns", ROOT_CA_CONFIGMAP_NAME) as unknown as ConfigMap;
      expect(stored.data).toEqual({ "ca.crt": CA });
      expect(stored.metadata?.annotations?.[DESCRIPTION_ANNOTATION]).toBe(ROOT_CA_DESCRIPTION);
    }
  });

  it("the CA comes from the client's certificate-authority data", () => {
    expect(rootCAFromConfig({ server: "https://h", tls: { caData: Buffer.from(CA) } } as never)).toBe(CA);
    expect(rootCAFromConfig({ server: "http://h" } as never)).toBeUndefined();
  });
});
