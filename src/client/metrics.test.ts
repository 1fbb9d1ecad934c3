import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restClientLatencyBuckets, restClientMetricNames } from "./metrics.js";
import { Transport } from "./transport.js";

const server = createServer((req, res) => {
  if (req.url?.startsWith("/ok")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  } else {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: "nope" }));
  }
});
let host: string;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function values(registry: Registry, name: string) {
  return (await registry.getSingleMetric(name)!.get()).values as Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;
}

describe("rest_client_* metrics (client-go's names and labels)", () => {
  it("count every attempt by code, method and host, and time requests and rate-limiter waits by verb and host", async () => {
    const registry = new Registry();
    const t = new Transport({ host: `http://${host}`, metricsRegistry: registry, qps: -1 });
    const refused = new Transport({ host: "http://127.0.0.1:1", metricsRegistry: registry, qps: -1, maxRetries: 0 });
    try {
      await t.request({ method: "GET", path: "/ok" });
      await t.request({ method: "GET", path: "/ok" });
      await expect(t.request({ method: "DELETE", path: "/missing" })).rejects.toThrow("nope");
      await expect(refused.request({ method: "POST", path: "/x" })).rejects.toThrow();
    } finally {
      await t.close();
      await refused.close();
    }
    const requests = await values(registry, restClientMetricNames.requests);
    expect(requests.map((v) => [v.labels, v.value])).toEqual([
      [{ code: "200", method: "GET", host }, 2],
      [{ code: "404", method: "DELETE", host }, 1],
      [{ code: "<error>", method: "POST", host: "127.0.0.1:1" }, 1],
    ]);
    const latency = await values(registry, restClientMetricNames.requestDuration);
    const count = (verb: string, h: string) => latency.find((v) => v.metricName?.endsWith("_count") && v.labels.verb === verb && v.labels.host === h)?.value;
    expect(count("GET", host)).toBe(2);
    expect(count("DELETE", host)).toBe(1);
    expect(count("POST", "127.0.0.1:1")).toBe(1);
    expect(latency.filter((v) => v.metricName?.endsWith("_bucket") && v.labels.verb === "GET").map((v) => v.labels.le)).toEqual([...restClientLatencyBuckets, "+Inf"]);
    const limiter = await values(registry, restClientMetricNames.rateLimiterDuration);
    expect(limiter.find((v) => v.metricName?.endsWith("_count") && v.labels.verb === "GET")?.value).toBe(2);
  });

  it("can be turned off", async () => {
    const registry = new Registry();
    const t = new Transport({ host: `http://${host}`, metricsRegistry: false, qps: -1 });
    await t.request({ method: "GET", path: "/ok" });
    await t.close();
    expect(registry.getSingleMetric(restClientMetricNames.requests)).toBeUndefined();
  });
});
