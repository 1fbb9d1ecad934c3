/**
 * No shape makes the cluster-side strategies, hooks or printers throw (which the server would
 * answer with a 500): starting from upstream's fully populated fixture of each kind
 * (kubernetes/api testdata/HEAD, the copy scripts/protobuf/fixtures.mjs commits), every field below
 * the top level (metadata excepted: ObjectMeta is validated by shared code) is replaced in turn
 * by values of every other JSON type, and the object goes through defaulting, create and update
 * preparation and validation (both directions), status and subresource updates, field sets,
 * the kind's hooks and its Table printer.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { defaultWriteContext } from "../rest/context.js";
import { toTable } from "../tables/index.js";
import { apiServiceHooks } from "./apiservices.js";
import { certificateSigningRequestHooks } from "./certificates.js";
import { clusterAPIStrategies } from "./clusterapis.js";
import type { ResourceStrategy } from "./strategy.js";

const fixtures = join(import.meta.dirname, "..", "protobuf", "testdata", "k8s-api-1.36", "HEAD");
const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
const user = { username: "alice", groups: ["dev"] };

/** Upstream's fixture of each served kind, and a hand-written APIService (kube-aggregator has none). */
function seeds(): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  for (const f of readdirSync(fixtures).filter((x) => x.endsWith(".json"))) {
    const obj = JSON.parse(readFileSync(join(fixtures, f), "utf8")) as KubeObject;
    out.set(`${obj.apiVersion}/${obj.kind}`, obj);
  }
  out.set("apiregistration.k8s.io/v1/APIService", {
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name: "v1.metrics.k8s.io" },
    spec: { group: "metrics.k8s.io", version: "v1", groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: "kube-system", name: "metrics", port: 443 }, caBundle: "AAAA" },
    status: { conditions: [{ type: "Available", status: "True", reason: "Passed", message: "all checks passed", lastTransitionTime: "2026-01-01T00:00:00Z" }] },
  });
  return out;
}

const replacements: unknown[] = [null, "x", 7, true, [], [{}], { a: "b" }];

/** Paths (property chains) of every value below the top-level fields, metadata excepted. */
function paths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      out.push([...prefix, i]);
      out.push(...paths(x, [...prefix, i]));
    });
  } else if (typeof v === "object" && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (prefix.length === 0 && ["apiVersion", "kind", "metadata"].includes(k)) continue;
      out.push([...prefix, k]);
      out.push(...paths(x, [...prefix, k]));
    }
  }
  return out;
}

function withValue(obj: KubeObject, path: (string | number)[], value: unknown): KubeObject {
  const copy = structuredClone(obj) as unknown as Record<string | number, unknown>;
  let cur = copy;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string | number, unknown>;
  cur[path[path.length - 1]] = structuredClone(value);
  return copy as unknown as KubeObject;
}

/** Everything the server does with an object of this kind, none of which may throw. */
function exercise(s: ResourceStrategy, obj: KubeObject, other: KubeObject): void {
  const id = `${s.names.group}/${s.names.resource}`;
  const ctx = { ...defaultWriteContext(), user };
  const created = structuredClone(obj);
  s.defaults(created);
  s.prepareForCreate(created);
  if (id === "certificates.k8s.io/certificatesigningrequests") {
    try {
      void certificateSigningRequestHooks({ clock }).beforeCreate?.(created, ctx);
    } catch (err) {
      // Admission may refuse (403), never crash.
      expect((err as { code?: number }).code).toBe(403);
    }
  }
  if (id === "apiregistration.k8s.io/apiservices") void apiServiceHooks(clock).beforeCreate?.(created, ctx);
  s.validate(created);
  for (const [a, b] of [
    [obj, other],
    [other, obj],
  ]) {
    const upd = structuredClone(a);
    s.defaults(upd);
    s.prepareForUpdate(upd, b);
    s.validateUpdate(upd, b);
    const st = structuredClone(a);
    s.prepareForStatusUpdate(st, b);
    s.validateStatusUpdate(st, b);
    for (const [sub, strat] of Object.entries(s.subresources.updates ?? {})) {
      const u = structuredClone(a);
      strat.prepareForUpdate(u, b);
      strat.validateUpdate(u, b);
      if (id === "certificates.k8s.io/certificatesigningrequests") void certificateSigningRequestHooks({ clock }).beforeUpdate?.(u, b, { ...ctx, subresource: sub });
    }
  }
  s.fieldSet(obj);
  toTable({ group: s.names.group, kind: s.names.kind }, [obj, created], { now: clock.now() });
}

describe("cluster-side strategies never throw on unexpected shapes", () => {
  const all = seeds();
  for (const s of clusterAPIStrategies()) {
    const key = `${s.names.group}/${s.names.version}/${s.names.kind}`;
    it(key, () => {
      const seed = all.get(key);
      expect(seed, `a fixture for ${key}`).toBeDefined();
      exercise(s, seed!, seed!);
      let runs = 0;
      for (const path of paths(seed)) {
        for (const value of replacements) {
          const mutated = withValue(seed!, path, value);
          try {
            exercise(s, mutated, seed!);
          } catch (err) {
            throw new Error(`${key}: ${path.join(".")} = ${JSON.stringify(value)}: ${(err as Error).stack}`);
          }
          runs++;
        }
      }
      expect(runs).toBeGreaterThan(0);
    });
  }
});
