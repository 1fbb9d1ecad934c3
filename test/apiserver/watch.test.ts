import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../../src/apimachinery/clock.js";
import { TestServer, cm } from "./harness.js";

const CM = "/api/v1/namespaces/default/configmaps";

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!cond()) throw new Error("condition not reached");
}

describe("watch over HTTP", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const t = new TestServer({ clock, storage: { historySize: 50 } });
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("resumes after a resourceVersion: every later change in order, then live ones", async () => {
    const a = await t.post(CM, cm("w1"));
    const rv = a.body.metadata.resourceVersion;
    await t.patch(`${CM}/w1`, { data: { x: "1" } });
    await t.post(CM, cm("w2"));
    const w = await t.watch(`${CM}?watch=true&resourceVersion=${rv}`);
    expect(w.res.status).toBe(200);
    expect(w.res.headers.get("content-type")).toBe("application/json");
    const replay = await w.take(2);
    expect(replay.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ["MODIFIED", "w1"],
      ["ADDED", "w2"],
    ]);
    const del = await t.del(`${CM}/w2`);
    expect(del.body).toMatchObject({ kind: "Status", status: "Success", details: { name: "w2", kind: "configmaps" } });
    const [d] = await w.take(1);
    expect(d.type).toBe("DELETED");
    expect(Number(d.object.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    w.close();
  });

  it("sends synthetic ADDED events for resourceVersion 0 and applies selectors to transitions", async () => {
    await t.post(CM, cm("lab", {}, { labels: { pick: "yes" } }));
    const w = await t.watch(`${CM}?watch=1&resourceVersion=0&labelSelector=pick%3Dyes`);
    const [first] = await w.take(1);
    expect(first).toMatchObject({ type: "ADDED", object: { metadata: { name: "lab" } } });
    await t.patch(`${CM}/lab`, { metadata: { labels: { pick: "no" } } });
    const [gone] = await w.take(1);
    expect(gone.type).toBe("DELETED");
    await t.patch(`${CM}/lab`, { metadata: { labels: { pick: "yes" } } });
    const [back] = await w.take(1);
    expect(back.type).toBe("ADDED");
    w.close();
  });

  it("implements watch-list: initial ADDED events, then the initial-events-end BOOKMARK", async () => {
    const list = await t.get(CM);
    const names = list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    const w = await t.watch(`${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const initial = await w.take(names.length + 1);
    expect(initial.slice(0, names.length).map((e) => e.type)).toEqual(names.map(() => "ADDED"));
    const bm = initial[names.length];
    expect(bm.type).toBe("BOOKMARK");
    expect(bm.object).toEqual({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { resourceVersion: list.body.metadata.resourceVersion, annotations: { "k8s.io/initial-events-end": "true" } },
    });
    w.close();
    const invalid = await t.get(`${CM}?watch=true&sendInitialEvents=true`);
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toContain("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
  });

  it("sends periodic bookmarks and ends at timeoutSeconds", async () => {
    const rv = (await t.get(CM)).body.metadata.resourceVersion;
    const waiters = clock.waiters();
    const w = await t.watch(`${CM}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=100`);
    await waitFor(() => clock.waiters() > waiters);
    await clock.advance(60_000);
    const [bm] = await w.take(1);
    expect(bm).toEqual({ type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: rv } } });
    await waitFor(() => clock.waiters() > waiters);
    await clock.advance(40_000);
    const rest = await w.take(5);
    expect(rest.map((e) => e.type)).toEqual(["BOOKMARK"]);
    expect(w.ended).toBe(true);
  });

  it("streams a 410 Expired ERROR event for a compacted resourceVersion", async () => {
    for (let i = 0; i < 60; i++) await t.patch(`${CM}/w1`, { data: { i: String(i) } });
    const w = await t.watch(`${CM}?watch=true&resourceVersion=2`);
    expect(w.res.status).toBe(200);
    const frames = await w.take(2);
    expect(frames).toHaveLength(1);
    expect(frames[0].type).toBe("ERROR");
    expect(frames[0].object).toMatchObject({ kind: "Status", status: "Failure", reason: "Expired", code: 410 });
    expect(frames[0].object.message).toMatch(/^too old resource version: 2 \(\d+\)$/);
  });

  it("answers 410 for a continue token whose snapshot was compacted, with a fresh token", async () => {
    for (const n of ["c1", "c2", "c3"]) await t.post("/api/v1/namespaces/kube-system/configmaps", cm(n));
    const first = await t.get("/api/v1/namespaces/kube-system/configmaps?limit=1");
    for (let i = 0; i < 60; i++) await t.patch(`${CM}/w1`, { data: { j: String(i) } });
    const expired = await t.get(`/api/v1/namespaces/kube-system/configmaps?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(expired.status).toBe(410);
    expect(expired.body.reason).toBe("Expired");
    expect(expired.body.message).toMatch(/^The provided continue parameter is too old/);
    expect(expired.body.metadata.continue).toBeTruthy();
    const exactOld = await t.get(`/api/v1/namespaces/kube-system/configmaps?resourceVersion=2&resourceVersionMatch=Exact`);
    expect(exactOld.status).toBe(410);
    expect(exactOld.body.message).toBe("The resourceVersion for the provided list is too old.");
  });

  it("rejects bad selectors before the stream starts", async () => {
    const r = await t.get(`${CM}?watch=true&fieldSelector=spec.x%3D1`);
    expect(r.status).toBe(400);
  });
});
