/**
 * Metadata-only clients and informers (`metadataOnly(d)`) against the embedded API server: the
 * client asks for PartialObjectMetadata, the server answers it for get, list and watch, and an
 * informer over the view caches metadata only.
 */
import type { ConfigMap } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metadataOnly } from "../../src/apimachinery/resource.js";
import type { RunningApiServer } from "../../src/apiserver/index.js";
import { RequestConstructionError } from "../../src/client/errors.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { builtin } from "../../src/client/typed.js";
import { SharedInformerFactory } from "../../src/informers/factory.js";
import { eventually } from "../../src/testing/eventually.js";

const apiserver = await import("../../src/apiserver/index.js").catch((err: unknown) => {
  console.warn(`test/client/metadata.apiserver.test.ts skipped: src/apiserver/index.ts does not load (${(err as Error).message})`);
  return undefined;
});

let api: RunningApiServer;
let client: KubeClient;
const NS = "default";
const configMapsMeta = metadataOnly(builtin.configMaps);

beforeAll(async () => {
  if (!apiserver) return;
  api = await apiserver.startApiServer({ port: 0 });
  client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, rest: { qps: -1 } });
  const cm: ConfigMap = { metadata: { name: "meta-1", labels: { a: "b" } }, data: { big: "x".repeat(1000) } };
  await client.resource(builtin.configMaps, NS).create(cm);
});
afterAll(async () => {
  await client?.close();
  await api?.stop();
});

describe.skipIf(!apiserver)("metadata-only views against the embedded API server", () => {
  it("get and list answer PartialObjectMetadata (no data)", async () => {
    const c = client.resource(configMapsMeta, NS);
    const one = await c.get("meta-1");
    expect(one).toMatchObject({ apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: { name: "meta-1", labels: { a: "b" } } });
    expect("data" in one).toBe(false);
    const list = await c.list();
    expect(list.kind).toBe("PartialObjectMetadataList");
    const item = list.items.find((i) => i.metadata?.name === "meta-1");
    expect(item?.kind).toBe("PartialObjectMetadata");
    expect(item && "data" in item).toBe(false);
  });

  it("patch and delete answer metadata; create and update are refused", async () => {
    const c = client.resource(configMapsMeta, NS);
    const patched = await c.patch("meta-1", "merge", { metadata: { annotations: { touched: "yes" } } });
    expect(patched.kind).toBe("PartialObjectMetadata");
    expect(patched.metadata?.annotations).toEqual({ touched: "yes" });
    expect("data" in patched).toBe(false);
    expect(() => c.create({ metadata: { name: "x" } })).toThrow(RequestConstructionError);
    expect(() => c.update({ metadata: { name: "x" } })).toThrow(/update is not supported on a metadata-only client for configmaps/);
  });

  it("an informer over the view caches metadata only, and follows changes", async () => {
    const informers = new SharedInformerFactory(client);
    const inf = informers.forResource(configMapsMeta);
    const stop = new AbortController();
    informers.start(stop.signal);
    try {
      await inf.waitForSync(stop.signal);
      const cached = inf.lister().namespace(NS).get("meta-1");
      expect(cached.kind).toBe("PartialObjectMetadata");
      expect("data" in cached).toBe(false);
      await client.resource(builtin.configMaps, NS).create({ metadata: { name: "meta-2" }, data: { k: "v" } });
      const seen = await eventually(() => inf.getIndexer().getByKey(`${NS}/meta-2`), { what: "meta-2 in the metadata cache" });
      expect(seen.kind).toBe("PartialObjectMetadata");
      expect("data" in seen).toBe(false);
      // The full resource has its own informer key.
      expect(informers.existing(builtin.configMaps)).toBeUndefined();
    } finally {
      stop.abort();
      await informers.shutdown();
    }
  });
});
