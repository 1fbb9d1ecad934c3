import { afterEach, describe, expect, it } from "vitest";
import { objectKey } from "../rest/keys.js";
import { StorageCache } from "../storage/cache.js";
import { MemoryStorage } from "../storage/memory.js";
import { endpointSlicesPrefix, endpointsPrefix, ServiceResolver, servicesPrefix } from "./resolver.js";

let cache: StorageCache | undefined;
afterEach(async () => {
  await cache?.stop();
});

async function setup(objects: Record<string, Record<string, unknown>>) {
  const storage = new MemoryStorage();
  for (const [key, obj] of Object.entries(objects)) await storage.create(key, obj);
  cache = new StorageCache(storage, [servicesPrefix, endpointsPrefix, endpointSlicesPrefix]);
  await cache.start();
  return { storage, resolver: new ServiceResolver(cache, () => 0) };
}

const svc = (name: string, spec: Record<string, unknown>) => ({ [objectKey("", "services", "ns", name)]: { apiVersion: "v1", kind: "Service", metadata: { name, namespace: "ns" }, spec } });

describe("ServiceResolver", () => {
  it("EndpointSlices of the service: the port by name, a ready endpoint, its first address", async () => {
    const { resolver } = await setup({
      ...svc("web", { ports: [{ name: "https", port: 443, targetPort: 9443 }] }),
      [objectKey("discovery.k8s.io", "endpointslices", "ns", "web-abc")]: {
        metadata: { name: "web-abc", namespace: "ns", labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        ports: [{ name: "https", port: 9443 }],
        endpoints: [
          { addresses: ["10.0.0.1"], conditions: { ready: false } },
          { addresses: ["10.0.0.2", "10.0.0.3"], conditions: { ready: true } },
        ],
      },
      [objectKey("discovery.k8s.io", "endpointslices", "ns", "other-abc")]: {
        metadata: { name: "other-abc", namespace: "ns", labels: { "kubernetes.io/service-name": "other" } },
        ports: [{ name: "https", port: 1 }],
        endpoints: [{ addresses: ["10.9.9.9"] }],
      },
    });
    expect(resolver.resolve("ns", "web", 443)).toEqual({ host: "10.0.0.2", port: 9443 });
  });

  it("Endpoints when there are no slices: ready addresses of the named port only", async () => {
    const { resolver } = await setup({
      ...svc("web", { type: "NodePort", ports: [{ name: "a", port: 80 }, { name: "b", port: 443 }] }),
      [objectKey("", "endpoints", "ns", "web")]: {
        metadata: { name: "web", namespace: "ns" },
        subsets: [
          { notReadyAddresses: [{ ip: "10.0.0.7" }], ports: [{ name: "b", port: 8443 }] },
          { addresses: [{ ip: "10.0.0.8" }], ports: [{ name: "a", port: 8080 }, { name: "b", port: 8443 }] },
        ],
      },
    });
    expect(resolver.resolve("ns", "web", 443)).toEqual({ host: "10.0.0.8", port: 8443 });
    expect(resolver.resolve("ns", "web", 80)).toEqual({ host: "10.0.0.8", port: 8080 });
  });

  it("ExternalName: the external name at the webhook's port", async () => {
    const { resolver } = await setup(svc("host", { type: "ExternalName", externalName: "localhost" }));
    expect(resolver.resolve("ns", "host", 9443)).toEqual({ host: "localhost", port: 9443 });
  });

  it("failures in upstream's words", async () => {
    const { resolver, storage } = await setup({ ...svc("web", { ports: [{ port: 443 }] }), ...svc("odd", { type: "Weird" }) });
    expect(() => resolver.resolve("ns", "nope", 443)).toThrow('service "nope" not found');
    expect(() => resolver.resolve("ns", "web", 80)).toThrow('no service port 80 found for service "web"');
    expect(() => resolver.resolve("ns", "web", 443)).toThrow('no endpoints available for service "web"');
    expect(() => resolver.resolve("ns", "odd", 443)).toThrow('unsupported service type "Weird"');
    expect(() => resolver.resolve("", "web", 443)).toThrow("cannot resolve an empty service name or namespace or port");
    // The cache follows writes: once synced, a new Endpoints object is used.
    await storage.create(objectKey("", "endpoints", "ns", "web"), { metadata: { name: "web", namespace: "ns" }, subsets: [{ addresses: [{ ip: "10.1.1.1" }], ports: [{ port: 9443 }] }] });
    await cache!.synced();
    expect(resolver.resolve("ns", "web", 443)).toEqual({ host: "10.1.1.1", port: 9443 });
  });
});
