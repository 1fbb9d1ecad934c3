/**
 * Issue 18, defect 2: a ClusterRole whose aggregationRule has an empty (null) or malformed
 * selector crashed the process in the aggregation loop, and with a data directory every restart
 * crashed the same way. Now: malformed selectors are refused at the door (400, as Go's decoder
 * refuses them), a null item is Go's empty selector, and whatever is stored the loop logs and
 * skips what it cannot evaluate while the server serves on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApiServer } from "../../src/apiserver/apiserver.js";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { SqliteStorage } from "../../src/apiserver/storage/sqlite.js";
import { TestServer } from "./harness.js";

const CR = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
const clusterRole = (name: string, extra: Record<string, unknown>) => ({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, ...extra });

class Warnings {
  readonly lines: string[] = [];
  info(): void {}
  warn(obj: object | string, msg?: string): void {
    this.lines.push(`${msg ?? ""} ${JSON.stringify(obj)}`);
  }
  error(obj: object | string, msg?: string): void {
    this.lines.push(`${msg ?? ""} ${JSON.stringify(obj)}`);
  }
}

describe("ClusterRole aggregation with empty or malformed selectors", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("refuses malformed selectors with a 400 and reads a null selector as Go's empty one", async () => {
    const t = await new TestServer(builtinServerConfig({ security: {} })).start();
    try {
      for (const [selectors, message] of [
        ["x", "json: cannot unmarshal string into Go struct field AggregationRule.aggregationRule.clusterRoleSelectors of type []v1.LabelSelector"],
        [["x"], "json: cannot unmarshal string into Go struct field AggregationRule.aggregationRule.clusterRoleSelectors of type v1.LabelSelector"],
        [[{ matchLabels: "x" }], "json: cannot unmarshal string into Go struct field LabelSelector.aggregationRule.clusterRoleSelectors.matchLabels of type map[string]string"],
        [[{ matchExpressions: "x" }], "json: cannot unmarshal string into Go struct field LabelSelector.aggregationRule.clusterRoleSelectors.matchExpressions of type []v1.LabelSelectorRequirement"],
        [
          [{ matchExpressions: [{ key: "a", operator: "In", values: "b" }] }],
          "json: cannot unmarshal string into Go struct field LabelSelectorRequirement.aggregationRule.clusterRoleSelectors.matchExpressions.values of type []string",
        ],
      ] as const) {
        const r = await t.post(CR, clusterRole("bad", { aggregationRule: { clusterRoleSelectors: selectors } }));
        expect(r.status, JSON.stringify(selectors)).toBe(400);
        expect(r.body.message).toBe(`ClusterRole in version "v1" cannot be handled as a ClusterRole: ${message}`);
      }
      const rules = await t.post(CR, clusterRole("bad", { rules: [{ verbs: "get", apiGroups: [""], resources: ["pods"] }] }));
      expect(rules.status).toBe(400);
      expect(rules.body.message).toContain("Go struct field PolicyRule.rules.verbs of type []string");
      // A requirement decoded from null has no operator: invalid, not a crash.
      const noOp = await t.post(CR, clusterRole("bad", { aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [null] }] } }));
      expect(noOp.status, noOp.text).toBe(422);

      // null: the empty selector, which selects every other ClusterRole (upstream's LabelSelectorAsSelector).
      expect((await t.post(CR, clusterRole("pod-reader", { metadata: { name: "pod-reader" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] }))).status).toBe(201);
      const all = await t.post(CR, clusterRole("everything", { aggregationRule: { clusterRoleSelectors: [null] } }));
      expect(all.status).toBe(201);
      expect(all.body.aggregationRule.clusterRoleSelectors).toEqual([{}]);
      await t.server.access!.idle();
      const got = await t.get(`${CR}/everything`);
      expect(got.body.rules).toContainEqual({ apiGroups: [""], resources: ["pods"], verbs: ["get"] });
      expect((await t.get("/healthz")).text).toBe("ok");
    } finally {
      await t.stop();
    }
  });

  it("starts and serves on a data directory that holds malformed aggregated ClusterRoles (and other malformed objects), logging them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeloop-agg-"));
    dirs.push(dir);
    // What an older server (or another tool) may have left in the data directory.
    const storage = SqliteStorage.open(dir);
    const bad = [
      clusterRole("null-item", { aggregationRule: { clusterRoleSelectors: ["x", null] } }),
      clusterRole("string-selectors", { aggregationRule: { clusterRoleSelectors: "x" } }),
      clusterRole("bad-expressions", { aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [null, { key: 1 }] }] } }),
      clusterRole("bad-rules", { metadata: { name: "bad-rules", labels: { agg: "yes" } }, rules: "x" }),
      clusterRole("string-rule", { metadata: { name: "string-rule", labels: { agg: "yes" } }, rules: ["x", { verbs: ["get"], apiGroups: [""], resources: ["secrets"] }] }),
    ];
    for (const o of bad) await storage.create(`/registry/rbac.authorization.k8s.io/clusterroles/${o.metadata.name}`, { ...o, metadata: { ...o.metadata, uid: o.metadata.name } });
    await storage.close();

    // Other loops read stored objects too: the Service address allocator, namespace lifecycle.
    await (async () => {
      const st = SqliteStorage.open(dir);
      await st.create("/registry/core/services/default/odd", { apiVersion: "v1", kind: "Service", metadata: { name: "odd", namespace: "default", uid: "s" }, spec: { clusterIP: 5, ports: { a: 1 } } } as never);
      await st.create("/registry/core/namespaces/dying", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "dying", uid: "n", deletionTimestamp: "2024-01-01T00:00:00Z" },
        spec: { finalizers: "kubernetes" },
        status: "Terminating",
      } as never);
      await st.close();
    })();

    for (let round = 0; round < 2; round++) {
      const logger = new Warnings();
      const server = new ApiServer(builtinServerConfig({ dataDir: dir, security: {}, logger }));
      const url = await server.start(0);
      try {
        await server.access!.idle();
        expect(logger.lines.some((l) => l.includes("aggregating ClusterRole null-item skipped"))).toBe(true);
        expect(logger.lines.some((l) => l.includes("aggregating ClusterRole string-selectors skipped"))).toBe(true);
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        expect(logger.lines.some((l) => l.includes("cannot record the addresses of a stored Service"))).toBe(true);
        await server.controllers.idle();
        if (round === 0) {
          // Aggregation still works for well-formed roles, reading what it can of the others.
          const r = await fetch(`${url}${CR}`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(clusterRole("good", { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: "yes" } }] } })),
          });
          expect(r.status).toBe(201);
          await server.access!.idle();
        }
        const good = (await (await fetch(`${url}${CR}/good`)).json()) as { rules: unknown[] };
        expect(good.rules).toEqual([{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }]);
      } finally {
        await server.stop();
      }
    }
  }, 60_000);
});
