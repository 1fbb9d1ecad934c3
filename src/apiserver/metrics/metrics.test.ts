import { describe, expect, it } from "vitest";
import { EventEmitter } from "node:events";
import { MemoryStorage } from "../storage/memory.js";
import { ApiServerMetrics, InFlightRequests, equalApartFromVolatile } from "./metrics.js";
import { instrumentRequests } from "./instrument.js";
import { RequestLabelsCache, requestLabels } from "./requestlabels.js";

describe("requestLabels (kube-apiserver's reported verb and scope)", () => {
  const cases: Array<[string, string, string | undefined, Partial<ReturnType<typeof requestLabels>> | undefined]> = [
    ["GET", "/api/v1/namespaces/default/pods/web", undefined, { verb: "GET", scope: "resource", group: "", version: "v1", resource: "pods", subresource: "", longRunning: false }],
    ["GET", "/api/v1/namespaces/default/pods", undefined, { verb: "LIST", scope: "namespace" }],
    ["GET", "/api/v1/pods", undefined, { verb: "LIST", scope: "cluster" }],
    ["GET", "/api/v1/pods?watch=true", undefined, { verb: "WATCH", scope: "cluster", longRunning: true }],
    ["GET", "/api/v1/pods?watch=1&resourceVersion=5", undefined, { verb: "WATCH", longRunning: true }],
    ["GET", "/api/v1/pods?watch=false", undefined, { verb: "LIST", longRunning: false }],
    ["GET", "/api/v1/watch/namespaces/default/pods", undefined, { verb: "WATCH", scope: "namespace", longRunning: true }],
    ["POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", { verb: "POST", scope: "resource", group: "apps" }],
    ["POST", "/api/v1/namespaces", "application/json", { verb: "POST", scope: "resource", resource: "namespaces" }],
    ["PUT", "/apis/apps/v1/namespaces/default/deployments/web/status", "application/json", { verb: "PUT", scope: "resource", subresource: "status" }],
    ["PATCH", "/apis/apps/v1/namespaces/default/deployments/web", "application/merge-patch+json", { verb: "PATCH" }],
    ["PATCH", "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=kubectl", "application/apply-patch+yaml", { verb: "APPLY" }],
    ["DELETE", "/api/v1/namespaces/default/configmaps", undefined, { verb: "DELETE", scope: "namespace" }],
    ["DELETE", "/api/v1/namespaces/default/configmaps/a?dryRun=All", undefined, { verb: "DELETE", dryRun: "All", scope: "resource" }],
    ["POST", "/api/v1/namespaces/default/configmaps?dryRun=Bogus", "application/json", { dryRun: "invalid" }],
    ["GET", "/api/v1/namespaces/default/pods/web/log", undefined, { verb: "CONNECT", subresource: "log", longRunning: true }],
    ["OPTIONS", "/api/v1/pods", undefined, { verb: "other" }],
    ["GET", "/api/v1/nodes/n1", undefined, { verb: "GET", scope: "resource", resource: "nodes" }],
    ["GET", "/apis", undefined, undefined],
    ["GET", "/healthz", undefined, undefined],
    ["GET", "/openapi/v2", undefined, undefined],
  ];
  it.each(cases)("%s %s", (method, target, contentType, want) => {
    const got = requestLabels(method, target, contentType);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toMatchObject(want);
  });
  it.each(cases)("remembered: %s %s", (method, target, contentType, want) => {
    const cache = new RequestLabelsCache();
    const first = cache.labels(method, target, contentType);
    expect(first).toEqual(requestLabels(method, target, contentType));
    expect(cache.labels(method, target, contentType)).toBe(first);
    if (want !== undefined) expect(Object.isFrozen(first)).toBe(true);
  });
  it("keeps PATCH and apply PATCH of one target apart, and forgets the oldest target", () => {
    const cache = new RequestLabelsCache(2);
    const t = "/api/v1/namespaces/default/pods/web";
    expect(cache.labels("PATCH", t, "application/merge-patch+json")?.verb).toBe("PATCH");
    expect(cache.labels("PATCH", t, "application/apply-patch+yaml")?.verb).toBe("APPLY");
    const get = cache.labels("GET", t, undefined);
    expect(cache.labels("GET", t, undefined)).toBe(get);
    expect(cache.labels("PATCH", t, undefined)?.verb).toBe("PATCH");
  });
});

describe("equalApartFromVolatile", () => {
  const base = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a", resourceVersion: "5", managedFields: [{ manager: "m", operation: "Update", time: "2026-01-01T00:00:00Z", fieldsV1: { "f:data": {} } }] },
    data: { k: "v" },
  };
  const cases: Array<[string, unknown, boolean]> = [
    ["identical", base, true],
    ["another resourceVersion", { ...base, metadata: { ...base.metadata, resourceVersion: "6" } }, true],
    ["another managedFields time", { ...base, metadata: { ...base.metadata, managedFields: [{ ...base.metadata.managedFields[0], time: "2026-01-02T00:00:00Z" }] } }, true],
    ["another managedFields manager", { ...base, metadata: { ...base.metadata, managedFields: [{ ...base.metadata.managedFields[0], manager: "n" }] } }, false],
    ["another data value", { ...base, data: { k: "w" } }, false],
    ["a label added", { ...base, metadata: { ...base.metadata, labels: { a: "b" } } }, false],
    ["a field added", { ...base, binaryData: {} }, false],
    ["a field removed", { apiVersion: "v1", kind: "ConfigMap", metadata: base.metadata }, false],
  ];
  it.each(cases)("%s", (_, other, want) => {
    expect(equalApartFromVolatile(base, other as typeof base)).toBe(want);
    expect(equalApartFromVolatile(other as typeof base, base)).toBe(want);
  });
});

describe("InFlightRequests", () => {
  it("reports the highest count since the last read, by kind", () => {
    const f = new InFlightRequests();
    f.enter(false);
    f.enter(false);
    f.enter(true);
    f.leave(false);
    f.leave(false);
    expect(f.watermarks()).toEqual({ readOnly: 2, mutating: 1 });
    expect(f.watermarks()).toEqual({ readOnly: 0, mutating: 1 });
    f.leave(true);
    expect(f.watermarks()).toEqual({ readOnly: 0, mutating: 1 });
    expect(f.watermarks()).toEqual({ readOnly: 0, mutating: 0 });
  });
});

describe("storage series", () => {
  it("counts objects, committed writes and writes that change nothing but volatile metadata", async () => {
    const storage = new MemoryStorage();
    await storage.create("/registry/core/configmaps/default/old", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "old" } });
    const m = new ApiServerMetrics();
    const stop = await m.observeStorage(storage);
    const mf = (time: string) => [{ manager: "m", operation: "Update", time }];
    const key = "/registry/apps/deployments/default/web";
    await storage.create(key, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", managedFields: mf("t1") }, spec: { replicas: 1 } });
    await storage.update(key, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", managedFields: mf("t2") }, spec: { replicas: 1 } });
    await storage.update(key, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", managedFields: mf("t3") }, spec: { replicas: 2 } });
    // Equal in full: storage commits nothing, so nothing is counted.
    await storage.update(key, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", managedFields: mf("t3") }, spec: { replicas: 2 } });
    await storage.delete("/registry/core/configmaps/default/old");
    stop();
    await storage.create("/registry/core/configmaps/default/late", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "late" } });
    const text = (await m.expose()).body;
    expect(text).toContain('apiserver_storage_objects{resource="deployments.apps"} 1');
    expect(text).toContain('apiserver_storage_objects{resource="configmaps"} 0');
    expect(text).toContain('apiserver_resource_objects{group="apps",resource="deployments"} 1');
    expect(text).toContain('kubeloop_apiserver_storage_writes_total{group="apps",resource="deployments",operation="update"} 2');
    expect(text).toContain('kubeloop_apiserver_noop_writes_total{group="apps",resource="deployments"} 1');
    expect(text).toContain('kubeloop_apiserver_storage_writes_total{group="",resource="configmaps",operation="delete"} 1');
    await storage.close();
  });
});


describe("request series through instrumentRequests", () => {
  /** A request through the instrumentation: the handler answers `code`, then the response closes. */
  function request(listener: ReturnType<typeof instrumentRequests>, method: string, url: string, code: number, contentType?: string): void {
    const res = new EventEmitter() as EventEmitter & { statusCode: number };
    res.statusCode = code;
    const req = { method, url, headers: contentType ? { "content-type": contentType } : {} };
    listener(req as never, res as never);
    res.emit("close");
  }

  it("counts repeated request lines in one series per code, and tells apply patches from other patches on the same target", async () => {
    const m = new ApiServerMetrics();
    const listener = instrumentRequests(m, () => undefined, { writeError: () => undefined });
    const cms = "/api/v1/namespaces/default/configmaps";
    request(listener, "POST", cms, 201);
    request(listener, "POST", cms, 201);
    request(listener, "POST", cms, 409);
    request(listener, "POST", `${cms}?dryRun=All`, 201);
    const dep = "/apis/apps/v1/namespaces/default/deployments/web";
    request(listener, "PATCH", dep, 200, "application/apply-patch+yaml");
    request(listener, "PATCH", dep, 200, "application/merge-patch+json");
    request(listener, "PATCH", dep, 200, "application/apply-patch+yaml");
    request(listener, "GET", "/healthz", 200);
    const { body } = await m.expose();
    const line = (labels: string) => body.split("\n").find((l) => l.startsWith(`apiserver_request_total{${labels}}`));
    const common = 'group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver"';
    expect(line(`verb="POST",dry_run="",${common},code="201"`)).toMatch(/ 2$/);
    expect(line(`verb="POST",dry_run="",${common},code="409"`)).toMatch(/ 1$/);
    expect(line(`verb="POST",dry_run="All",${common},code="201"`)).toMatch(/ 1$/);
    const apps = 'group="apps",version="v1",resource="deployments",subresource="",scope="resource",component="apiserver",code="200"';
    expect(line(`verb="APPLY",dry_run="",${apps}`)).toMatch(/ 2$/);
    expect(line(`verb="PATCH",dry_run="",${apps}`)).toMatch(/ 1$/);
    expect(body).toMatch(/apiserver_request_duration_seconds_count\{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver"\} 3/);
    expect(body).not.toMatch(/healthz/);
  });
});
