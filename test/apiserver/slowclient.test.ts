/**
 * Slow and idle clients cannot hold the server: hundreds of half-open connections — nothing
 * sent, headers half sent, a body half sent, idle keep-alive, a TLS handshake never begun or
 * headers never finished after it — are all closed by the server's own timeouts (set small
 * here), each answered with a Status when it gets an answer at all, while /healthz and the API
 * keep answering everyone else. Behaviour is asserted, not timing: the timeouts are
 * configurable and the test waits for the closes to happen.
 */
import { request as httpsRequest } from "node:https";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { builtinServerConfig, startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import type { ServingOptions } from "../../src/apiserver/server/serving.js";
import { TestServer } from "./harness.js";
import { RawConnection } from "./raw.js";

// Long enough that /healthz is asked while every slow connection is still open, short enough
// for the test to end soon after.
const serving: Partial<ServingOptions> = { headerReadTimeoutMs: 3000, idleTimeoutMs: 3000, requestTimeoutMs: 3000 };

const CM = "/api/v1/namespaces/default/configmaps";

/** Waits (without a deadline of its own: the test's timeout bounds it) until `cond` holds. */
async function eventually(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

describe("slow clients over http", () => {
  // No authentication: every request takes an in-flight seat.
  const t = new TestServer(builtinServerConfig({ serving, maxMutatingInFlight: 200 }));
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("closes hundreds of half-open connections by its timeouts while /healthz and the API keep answering", async () => {
    const kinds = {
      silent: () => new RawConnection(t.url),
      halfHeaders: () => new RawConnection(t.url, `GET ${CM} HTTP/1.1\r\nHost: x\r\nX-Slow: `),
      halfBody: () =>
        new RawConnection(t.url, `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":"v1",`),
      idleKeepAlive: () => new RawConnection(t.url, `GET /version HTTP/1.1\r\nHost: x\r\n\r\n`),
    };
    const conns: { kind: keyof typeof kinds; c: RawConnection }[] = [];
    for (let i = 0; i < 80; i++) for (const kind of Object.keys(kinds) as (keyof typeof kinds)[]) conns.push({ kind, c: kinds[kind]() });
    let closed = 0;
    for (const { c } of conns) void c.closed.then(() => closed++);
    await Promise.all(conns.map(({ c }) => new Promise<void>((resolve) => (c.socket.connecting ? c.socket.once("connect", () => resolve()) : resolve()))));

    // While they hang, the server serves others.
    const during: number[] = [];
    for (let i = 0; i < 5; i++) {
      const h = await t.get("/healthz");
      expect(h.status).toBe(200);
      expect(h.text).toBe("ok");
      during.push(closed);
    }
    expect((await t.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "during" } })).status).toBe(201);
    expect((await t.get(`${CM}/during`)).status).toBe(200);
    // The answers came while (nearly) all of the slow connections were still open.
    expect(during[0]).toBeLessThan(conns.length / 2);

    // Every one of them is closed by the server, without the client doing anything.
    await Promise.all(conns.map(({ c }) => c.closed));
    for (const { kind, c } of conns) {
      const r = c.reply();
      switch (kind) {
        case "idleKeepAlive":
          // Answered, then dropped once idle.
          expect(r.status).toBe(200);
          break;
        case "halfBody":
          // The request deadline: 504 Timeout (or 429 once the mutating seats were taken).
          expect([504, 429]).toContain(r.status);
          expect(r.body).toMatchObject({ kind: "Status", code: r.status });
          break;
        default:
          // Header read timeout: closed, with a 408 Status if anything is said.
          if (r.status !== 0) expect(r.body).toMatchObject({ kind: "Status", code: 408 });
      }
    }
    expect(conns.filter((x) => x.kind === "halfBody" && x.c.reply().status === 504).length).toBeGreaterThan(0);
    // The seats of the timed-out requests are given back once their handlers have ended.
    await eventually(() => t.server.inFlight.inFlight("mutating") === 0);
    expect((await t.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after" } })).status).toBe(201);
  }, 60_000);

  it("honours the timeout parameter: a request still running at it is answered 504 and its connection closed", async () => {
    const long = new TestServer(builtinServerConfig({ serving: { requestTimeoutMs: 60_000 } }));
    await long.start();
    try {
      const c = new RawConnection(long.url, `PUT ${CM}/x?timeout=300ms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
      await c.closed;
      expect(c.reply().status).toBe(504);
      expect(c.reply().body).toMatchObject({
        kind: "Status",
        reason: "Timeout",
        code: 504,
        message: "Timeout: request did not complete within requested timeout - context deadline exceeded",
      });
      await eventually(() => long.server.inFlight.inFlight("mutating") === 0);
    } finally {
      await long.stop();
    }
  });

  it("answers 429 with Retry-After once the mutating seats are taken, while reads and probes go on", async () => {
    const limited = new TestServer(builtinServerConfig({ serving, maxMutatingInFlight: 2, maxInFlight: 50 }));
    await limited.start();
    try {
      const slow = [0, 1].map(
        () => new RawConnection(limited.url, `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`),
      );
      await Promise.all(slow.map((c) => new Promise<void>((resolve) => c.socket.once("connect", () => resolve()))));
      // Wait until both hold their seat (their headers have been read).
      while (limited.server.inFlight.inFlight("mutating") < 2) await new Promise((r) => setTimeout(r, 10));
      const refused = await limited.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.body).toMatchObject({ kind: "Status", reason: "TooManyRequests", message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } });
      expect((await limited.get(CM)).status).toBe(200);
      expect((await limited.get("/healthz")).status).toBe(200);
      // A watch is long-running: it takes no seat.
      const w = await limited.watch(`${CM}?watch=true`);
      expect(w.res.status).toBe(200);
      w.close();
      for (const c of slow) c.close();
      while (limited.server.inFlight.inFlight("mutating") > 0) await new Promise((r) => setTimeout(r, 10));
      expect((await limited.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } })).status).toBe(201);
    } finally {
      await limited.stop();
    }
  }, 60_000);
});

describe("slow clients over https", () => {
  let running: RunningApiServer;
  let ca = "";
  beforeAll(async () => {
    running = await startApiServer({ server: { serving } });
    const kc = parse(await import("node:fs/promises").then((fs) => fs.readFile(running.kubeconfigPath, "utf8"))) as {
      clusters: { cluster: { "certificate-authority-data": string } }[];
    };
    ca = Buffer.from(kc.clusters[0].cluster["certificate-authority-data"], "base64").toString();
  });
  afterAll(() => running.stop());

  it("closes connections that never start or never finish the TLS handshake, or never send headers after it", async () => {
    const noHandshake = Array.from({ length: 60 }, () => new RawConnection(running.url.replace("https:", "http:")));
    const halfHello = Array.from({ length: 20 }, () => new RawConnection(running.url.replace("https:", "http:"), "\x16\x03\x01\x00\xff\x01"));
    const u = new URL(running.url);
    const afterHandshake: TLSSocket[] = [];
    for (let i = 0; i < 40; i++) {
      const s = tlsConnect({ host: u.hostname, port: Number(u.port), ca, servername: "localhost" });
      s.on("error", () => undefined);
      s.resume(); // read, so that the server's close is seen
      afterHandshake.push(s);
    }
    // (Under load, a handshake may itself outlast the timeout: then it is closed before it ends.)
    await Promise.all(afterHandshake.map((s) => new Promise<void>((resolve) => (s.once("secureConnect", () => resolve()), s.once("close", () => resolve())))));
    for (const [i, s] of afterHandshake.entries()) if (i % 2 === 0 && !s.destroyed) s.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");

    // Anonymous probes are still answered.
    const health = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(`${running.url}/healthz`, { ca }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(health).toBe(200);

    await Promise.all([...noHandshake, ...halfHello].map((c) => c.closed));
    await Promise.all(afterHandshake.map((s) => (s.closed ? Promise.resolve() : new Promise<void>((resolve) => s.once("close", () => resolve())))));
  }, 60_000);
});
