/**
 * Selector predicates of a ResourceStore: parsed once per selector pair and reused, with the same
 * matching and the same 400s as a fresh parse.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { configMapStrategy } from "../registry/configmaps.js";
import { MemoryStorage } from "../storage/memory.js";
import { defaultWriteContext } from "./context.js";
import type { ListOptions } from "./options.js";
import { ResourceStore } from "./store.js";

const listOpts = (labelSelector: string, fieldSelector = ""): ListOptions => ({
  labelSelector,
  fieldSelector,
  resourceVersion: "",
  limit: 0,
  continue: "",
  watch: false,
  allowWatchBookmarks: false,
});

function store(): ResourceStore {
  return new ResourceStore(configMapStrategy, { storage: new MemoryStorage(), clock: new FakeClock() });
}

describe("ResourceStore selector predicates", () => {
  it("parses a selector pair once and reuses its predicate", () => {
    const s = store();
    const p = s.predicate("app=web", "metadata.name=a");
    expect(p).toBeDefined();
    expect(s.predicate("app=web", "metadata.name=a")).toBe(p);
    expect(s.predicate("app=web", "")).not.toBe(p);
    expect(s.predicate("", "")).toBeUndefined();
  });

  it.each([
    ["a malformed label selector", "a in (", ""],
    ["an unsupported field label", "", "spec.nope=1"],
  ])("answers %s with a 400 every time (failures are not kept)", (_, ls, fs) => {
    const s = store();
    for (let i = 0; i < 2; i++) {
      let err: unknown;
      try {
        s.predicate(ls, fs);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).code).toBe(400);
    }
  });

  it("lists with a reused predicate as with a fresh one", async () => {
    const s = store();
    const ctx = () => defaultWriteContext();
    await s.create("default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", labels: { app: "web" } } }, ctx());
    await s.create("default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b", labels: { app: "db" } } }, ctx());
    const names = async (ls: string, fs?: string) => (await s.list("default", listOpts(ls, fs))).items.map((o) => o.metadata?.name);
    for (let i = 0; i < 2; i++) {
      expect(await names("app=web")).toEqual(["a"]);
      expect(await names("app!=web")).toEqual(["b"]);
      expect(await names("", "metadata.name=b")).toEqual(["b"]);
      expect(await names("app in (web,db)", "metadata.name!=a")).toEqual(["b"]);
    }
  });

  it("keeps at most 256 pairs, the oldest going first", () => {
    const s = store();
    const first = s.predicate("k=0", "");
    for (let i = 1; i <= 256; i++) s.predicate(`k=${i}`, "");
    expect(s.predicate("k=256", "")).toBe(s.predicate("k=256", ""));
    expect(s.predicate("k=0", "")).not.toBe(first);
  });
});
