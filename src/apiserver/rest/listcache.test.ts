/**
 * Unpaged LIST results reused while nothing of the resource is written (listcache.ts): the same
 * items and bytes as a fresh list, the current resourceVersion, and never a stale object.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { configMapStrategy } from "../registry/configmaps.js";
import { secretStrategy } from "../registry/secrets.js";
import { bodyBytes } from "../server/serialize.js";
import { MemoryStorage } from "../storage/memory.js";
import { defaultWriteContext } from "./context.js";
import { resourcePrefixOf } from "./listcache.js";
import type { ListOptions } from "./options.js";
import { ResourceStore } from "./store.js";

const opts = (o: Partial<ListOptions> = {}): ListOptions => ({
  labelSelector: "",
  fieldSelector: "",
  resourceVersion: "",
  limit: 0,
  continue: "",
  watch: false,
  allowWatchBookmarks: false,
  ...o,
});

const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: { k: name } });

async function setup() {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const cms = new ResourceStore(configMapStrategy, { storage, clock });
  const secrets = new ResourceStore(secretStrategy, { storage, clock });
  for (const n of ["a", "b", "c"]) await cms.create("default", cm(n, { app: n === "c" ? "db" : "web" }), defaultWriteContext());
  return { storage, cms, secrets };
}

const names = (l: { items: KubeObject[] }) => l.items.map((o) => o.metadata?.name);

describe("LIST result reuse", () => {
  it("answers a repeated unpaged LIST with the same items, as a fresh list would", async () => {
    const { cms } = await setup();
    const first = await cms.list("default", opts({ labelSelector: "app=web" }));
    const again = await cms.list("default", opts({ labelSelector: "app=web" }));
    expect(names(again)).toEqual(["a", "b"]);
    expect(again.items).toBe(first.items);
    expect(Object.isFrozen(again.items)).toBe(true);
    expect(again.metadata).toEqual(first.metadata);
    expect(bodyBytes(again).toString()).toBe(JSON.stringify(again));
    // A different selector is its own entry.
    expect(names(await cms.list("default", opts({ labelSelector: "app=db" })))).toEqual(["c"]);
  });

  it.each([
    ["a create", async (s: ResourceStore) => void (await s.create("default", cm("d", { app: "web" }), defaultWriteContext()))],
    ["a create in another namespace", async (s: ResourceStore) => void (await s.create("kube-system", cm("x", { app: "web" }), defaultWriteContext()))],
    ["an update", async (s: ResourceStore) => void (await s.update("default", "a", (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { app: "db" } } }), defaultWriteContext()))],
    ["a delete", async (s: ResourceStore) => void (await s.delete("default", "b", { dryRun: false }, defaultWriteContext()))],
  ])("lists afresh after %s of the resource, at the new revision", async (_, write) => {
    const { cms, storage } = await setup();
    const first = await cms.list("default", opts({ labelSelector: "app=web" }));
    await write(cms);
    const after = await cms.list("default", opts({ labelSelector: "app=web" }));
    expect(after.items).not.toBe(first.items);
    expect(after.metadata?.resourceVersion).toBe(String(storage.currentRevision()));
    const fresh = (await storage.list("/registry/core/configmaps/default/")).items.map((i) => i.object).filter((o) => o.metadata?.labels?.app === "web");
    expect(after.items).toEqual(fresh);
  });

  it("keeps the items across writes of other resources, with the current resourceVersion", async () => {
    const { cms, secrets, storage } = await setup();
    const first = await cms.list("default", opts());
    await secrets.create("default", { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } }, defaultWriteContext());
    const again = await cms.list("default", opts());
    expect(again.items).toBe(first.items);
    expect(again.metadata?.resourceVersion).toBe(String(storage.currentRevision()));
    expect(first.metadata?.resourceVersion).not.toBe(again.metadata?.resourceVersion);
  });

  it.each([
    ["a limit", opts({ limit: 2 })],
    ["an Exact resourceVersion", opts({ resourceVersion: "3", resourceVersionMatch: "Exact" })],
  ])("does not reuse lists with %s", async (_, o) => {
    const { cms } = await setup();
    const first = await cms.list("default", o);
    const again = await cms.list("default", o);
    expect(again.items).not.toBe(first.items);
    expect(again.items).toEqual(first.items);
  });

  it("names the resource prefix of a key", () => {
    expect(resourcePrefixOf("/registry/core/configmaps/default/a")).toBe("/registry/core/configmaps/");
    expect(resourcePrefixOf("/registry/apps/deployments/ns/d")).toBe("/registry/apps/deployments/");
    expect(resourcePrefixOf("/registry/core/namespaces/default")).toBe("/registry/core/namespaces/");
    expect(resourcePrefixOf("/odd")).toBe("/odd");
  });
});
