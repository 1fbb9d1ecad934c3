/**
 * The API server's /metrics over HTTP: kube-apiserver's request, watch, long-running, in-flight
 * and storage series after real requests, and its authorization over HTTPS (system:masters and
 * system:monitoring may read it, others get 403, no credentials 401).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readFile } from "node:fs/promises";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { call, credentialsOf } from "./auth-helpers.js";

/** The value of one sample line of an exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf("}"));
    const got = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

describe("/metrics over HTTP", () => {
  let api: RunningApiServer;
  beforeAll(async () => {
    api = await startApiServer({ port: 0, insecureHttp: true });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it("counts requests, watch events and objects as kube-apiserver names them", async () => {
    const base = `${api.url}/api/v1/namespaces/default/configmaps`;
    const ac = new AbortController();
    const watch = await fetch(`${base}?watch=true`, { signal: ac.signal });
    for (let i = 0; i < 3; i++) {
      const r = await fetch(base, { method: "POST", body: JSON.stringify({ metadata: { name: `m-${i}` } }), headers: { "content-type": "application/json" } });
      expect(r.status).toBe(201);
    }
    expect((await fetch(`${base}/m-0`)).status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(base)).status).toBe(200);
    // Read the three ADDED frames before scraping.
    const reader = watch.body!.getReader();
    let frames = 0;
    while (frames < 3) {
      const { value } = await reader.read();
      frames += [...new TextDecoder().decode(value)].filter((c) => c === "\n").length;
    }
    const during = await (await fetch(`${api.url}/metrics`)).text();
    // The highest in-flight count since the last scrape (the watch is long-running: not counted).
    expect(sample(during, "apiserver_current_inflight_requests", { request_kind: "readOnly" })).toBe(1);
    expect(sample(during, "apiserver_current_inflight_requests", { request_kind: "mutating" })).toBe(1);
    expect(sample(during, "apiserver_longrunning_requests", { verb: "WATCH", resource: "configmaps", scope: "namespace", component: "apiserver" })).toBe(1);
    ac.abort();
    // The server sees the watch's connection close when its socket does: scrape until it has.
    let res!: Response;
    let text = "";
    await vi.waitFor(async () => {
      res = await fetch(`${api.url}/metrics`);
      text = await res.text();
      expect(sample(text, "apiserver_longrunning_requests", { verb: "WATCH", resource: "configmaps" })).toBe(0);
    }, { timeout: 10_000, interval: 20 });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const common = { dry_run: "", group: "", version: "v1", resource: "configmaps", subresource: "", component: "apiserver" };
    expect(sample(text, "apiserver_request_total", { ...common, verb: "POST", scope: "resource", code: "201" })).toBe(3);
    expect(sample(text, "apiserver_request_total", { ...common, verb: "GET", scope: "resource", code: "200" })).toBe(1);
    expect(sample(text, "apiserver_request_total", { ...common, verb: "GET", scope: "resource", code: "404" })).toBe(1);
    expect(sample(text, "apiserver_request_total", { ...common, verb: "LIST", scope: "namespace", code: "200" })).toBe(1);
    expect(sample(text, "apiserver_request_duration_seconds_count", { ...common, verb: "POST", scope: "resource" })).toBe(3);
    expect(sample(text, "apiserver_request_duration_seconds_bucket", { ...common, verb: "POST", scope: "resource", le: "+Inf" })).toBe(3);
    expect(sample(text, "apiserver_watch_events_total", { group: "", version: "v1", resource: "configmaps" })).toBeGreaterThanOrEqual(3);
    expect(sample(text, "apiserver_longrunning_requests", { verb: "WATCH", resource: "configmaps" })).toBe(0);
    expect(sample(text, "apiserver_storage_objects", { resource: "configmaps" })).toBeGreaterThanOrEqual(3);
    expect(sample(text, "apiserver_storage_objects", { resource: "namespaces" })).toBeGreaterThanOrEqual(4);
    expect(text).toContain("# TYPE apiserver_request_duration_seconds histogram");
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).toContain("nodejs_heap_size_used_bytes");
  });

  it("answers 405 to writes", async () => {
    expect((await fetch(`${api.url}/metrics`, { method: "POST", body: "x" })).status).toBe(405);
  });
});

describe("/metrics authorization over HTTPS", () => {
  let api: RunningApiServer;
  beforeAll(async () => {
    api = await startApiServer({ port: 0 });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it("is allowed to system:masters and system:monitoring, forbidden to others, 401 without credentials", async () => {
    const admin = credentialsOf(await readFile(api.kubeconfigPath, "utf8"));
    expect((await call(api.url, admin, "GET", "/metrics")).status).toBe(200);
    const monitor = credentialsOf(api.kubeconfigForUser!("prometheus", ["system:monitoring"]));
    const got = await call(api.url, monitor, "GET", "/metrics");
    expect(got.status).toBe(200);
    expect(got.text).toContain("apiserver_request_total");
    const bob = credentialsOf(api.kubeconfigForUser!("bob"));
    const denied = await call(api.url, bob, "GET", "/metrics");
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ kind: "Status", reason: "Forbidden", message: 'forbidden: User "bob" cannot get path "/metrics"' });
    expect((await call(api.url, { ca: admin.ca }, "GET", "/metrics")).status).toBe(401);
  });
});
