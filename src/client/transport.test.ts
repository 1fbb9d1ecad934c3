import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { isNotFound, StatusError } from "../apimachinery/errors.js";
import { driveClock, json, status, TestServer } from "../../test/client/server.js";
import type { CredentialProvider, Credentials } from "./auth.js";
import type { RestConfig } from "./config.js";
import { TransportError } from "./errors.js";
import { Transport } from "./transport.js";
import type { WarningHeader } from "./warnings.js";

const server = new TestServer();
const transports: Transport[] = [];
beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  await server.stop();
});
afterEach(() => {
  server.requests.length = 0;
});

function transport(over: Partial<RestConfig> = {}): Transport {
  const t = new Transport({ host: server.url, qps: -1, ...over });
  transports.push(t);
  return t;
}

const target = { group: "apps", resource: "deployments", name: "web" };

describe("error mapping", () => {
  it("a Status body becomes a StatusError with its reason, message and details", async () => {
    server.handler = (_r, res) => json(res, 404, status(404, "NotFound", 'deployments.apps "web" not found', { details: { name: "web", group: "apps", kind: "deployments" } }));
    const err = (await transport().request({ method: "GET", path: "/apis/apps/v1/namespaces/d/deployments/web", target }).catch((e: unknown) => e)) as StatusError;
    expect(err).toBeInstanceOf(StatusError);
    expect(err.status).toMatchObject({ code: 404, reason: "NotFound", message: 'deployments.apps "web" not found', details: { name: "web" } });
    expect(isNotFound(err)).toBe(true);
  });

  it.each([
    { code: 404, method: "GET", reason: "NotFound", message: "the server could not find the requested resource (get deployments.apps web)" },
    { code: 409, method: "POST", reason: "AlreadyExists", message: "the server reported a conflict (post deployments.apps web)" },
    { code: 409, method: "PUT", reason: "Conflict", message: "the server reported a conflict (put deployments.apps web)" },
    { code: 400, method: "GET", reason: "BadRequest", message: "the server rejected our request for an unknown reason (get deployments.apps web)" },
    { code: 401, method: "GET", reason: "Unauthorized", message: "the server has asked for the client to provide credentials (get deployments.apps web)" },
    { code: 403, method: "GET", reason: "Forbidden", message: "nope (get deployments.apps web)" },
    { code: 405, method: "GET", reason: "MethodNotAllowed", message: "the server does not allow this method on the requested resource (get deployments.apps web)" },
    { code: 422, method: "GET", reason: "Invalid", message: "the server rejected our request due to an error in our request (get deployments.apps web)" },
    { code: 503, method: "GET", reason: "ServiceUnavailable", message: "the server is currently unable to handle the request (get deployments.apps web)" },
    { code: 504, method: "GET", reason: "Timeout", message: "the server was unable to return a response in the time allotted, but may still be processing the request (get deployments.apps web)" },
    { code: 500, method: "GET", reason: "InternalError", message: 'an error on the server ("nope") has prevented the request from succeeding (get deployments.apps web)' },
    { code: 418, method: "GET", reason: "", message: "the server responded with the status code 418 but did not return more information (get deployments.apps web)" },
  ])("non-Status $code body on $method → $reason", async ({ code, method, reason, message }) => {
    server.handler = (_r, res) => {
      res.writeHead(code, { "content-type": "text/plain" }).end("nope\n");
    };
    const err = (await transport({ maxRetries: 0 })
      .request({ method: method as "GET", path: "/x", target })
      .catch((e: unknown) => e)) as StatusError;
    expect(err).toBeInstanceOf(StatusError);
    expect(err.status.code).toBe(code);
    expect(err.status.reason).toBe(reason);
    expect(err.status.message).toBe(message);
    expect(err.status.details?.causes).toEqual([{ reason: "UnexpectedServerResponse", message: "nope" }]);
  });

  it("a non-text, non-Status body is reported as 'unknown'", async () => {
    server.handler = (_r, res) => {
      res.writeHead(500, { "content-type": "application/octet-stream" }).end(Buffer.from([1, 2, 3]));
    };
    const err = (await transport({ maxRetries: 0 }).request({ method: "GET", path: "/x" }).catch((e: unknown) => e)) as StatusError;
    expect(err.status.message).toBe('an error on the server ("unknown") has prevented the request from succeeding');
  });

  it("a 2xx Failure Status body is an error too", async () => {
    server.handler = (_r, res) => json(res, 200, status(409, "Conflict", "conflicted"));
    await expect(transport().requestJSON({ method: "GET", path: "/x" })).rejects.toMatchObject({ status: { reason: "Conflict" } });
  });

  it("connection refused → TransportError", async () => {
    const t = transport({ host: "http://127.0.0.1:1" });
    const err = await t.request({ method: "GET", path: "/x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe("ECONNREFUSED");
  });
});

describe("retries", () => {
  it("429 with Retry-After is retried after that many seconds (clock), then succeeds", async () => {
    const clock = new FakeClock();
    let n = 0;
    server.handler = (_r, res) => {
      if (++n <= 2) json(res, 429, status(429, "TooManyRequests", "slow down"), { "retry-after": "3" });
      else json(res, 200, { kind: "Pod" });
    };
    const t = transport({ clock });
    const start = clock.now();
    const doc = await driveClock(clock, t.requestJSON({ method: "POST", path: "/api/v1/namespaces/d/pods", body: "{}", contentType: "application/json" }));
    expect(doc).toEqual({ kind: "Pod" });
    expect(server.requests.map((r) => r.body)).toEqual(["{}", "{}", "{}"]);
    expect(clock.now() - start).toBe(6000);
    expect(t.stats.retries).toBe(2);
  });

  it("5xx with Retry-After is retried; without it, it is not", async () => {
    const clock = new FakeClock();
    let n = 0;
    server.handler = (_r, res) => {
      n++;
      if (n === 1) json(res, 503, status(503, "ServiceUnavailable", "later"), { "retry-after": "1" });
      else json(res, 500, status(500, "InternalError", "broken"));
    };
    const err = await driveClock(clock, transport({ clock }).request({ method: "GET", path: "/x" })).catch((e: unknown) => e);
    expect((err as StatusError).status.reason).toBe("InternalError");
    expect(n).toBe(2);
  });

  it("gives up after maxRetries and returns the last error", async () => {
    const clock = new FakeClock();
    server.handler = (_r, res) => json(res, 429, status(429, "TooManyRequests", "slow down"), { "retry-after": "1" });
    const err = await driveClock(clock, transport({ clock, maxRetries: 3 }).request({ method: "GET", path: "/x" })).catch((e: unknown) => e);
    expect((err as StatusError).status.reason).toBe("TooManyRequests");
    expect(server.requests).toHaveLength(4);
  });

  it("a GET cut by a connection reset is retried; a POST is not", async () => {
    const clock = new FakeClock();
    let n = 0;
    server.handler = (_r, res) => {
      if (++n === 1) res.socket?.destroy();
      else json(res, 200, { ok: true });
    };
    expect(await driveClock(clock, transport({ clock }).requestJSON({ method: "GET", path: "/x" }))).toEqual({ ok: true });
    expect(n).toBe(2);

    n = 0;
    const err = await driveClock(clock, transport({ clock }).request({ method: "POST", path: "/x", body: "{}" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(n).toBe(1);
  });

  it("a 401 refreshes refreshable credentials and repeats the request once", async () => {
    let version = 1;
    const creds: CredentialProvider = {
      get: () => Promise.resolve({ authorization: `Bearer v${version}` }),
      refreshAfterUnauthorized: (used: Credentials) => {
        expect(used.authorization).toBe(`Bearer v${version}`);
        version++;
        return Promise.resolve(true);
      },
    };
    server.handler = (r, res) => {
      if (r.headers.authorization === "Bearer v2") json(res, 200, { ok: true });
      else json(res, 401, status(401, "Unauthorized", "Unauthorized"));
    };
    expect(await transport({ credentials: creds }).requestJSON({ method: "GET", path: "/x" })).toEqual({ ok: true });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer v1", "Bearer v2"]);
  });
});

describe("requests", () => {
  it("sends the user agent, accept, auth and impersonation headers; adds ?timeout when a timeout is set", async () => {
    server.handler = (_r, res) => json(res, 200, {});
    await transport({ bearerToken: "tok", impersonate: { userName: "jane", groups: ["a", "b"], extra: { "scopes/x": ["1"] } }, timeoutMs: 32_000 }).request({
      method: "GET",
      path: "/api",
    });
    const r = server.requests[0];
    expect(r.headers["user-agent"]).toMatch(/^kubeloop\/\d+\.\d+\.\d+ \(/);
    expect(r.headers.accept).toBe("application/json, */*");
    expect(r.headers.authorization).toBe("Bearer tok");
    expect(r.headers["impersonate-user"]).toBe("jane");
    expect(r.headers["impersonate-group"]).toBe("a, b");
    expect(r.headers["impersonate-extra-scopes%2fx"]).toBe("1");
    expect(r.query.get("timeout")).toBe("32s");
  });

  it("basic auth and the host's path prefix", async () => {
    server.handler = (_r, res) => json(res, 200, {});
    await transport({ host: `${server.url}/prefix/`, username: "u", password: "p" }).request({ method: "GET", path: "/api/v1/pods", query: { limit: 5 } });
    expect(server.requests[0].url).toBe("/prefix/api/v1/pods?limit=5");
    expect(server.requests[0].headers.authorization).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
  });

  it("token files are read at request time", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "kubeloop-tf-")), "token");
    writeFileSync(file, "from-file\n");
    server.handler = (_r, res) => json(res, 200, {});
    await transport({ bearerToken: "static", bearerTokenFile: file }).request({ method: "GET", path: "/x" });
    expect(server.requests[0].headers.authorization).toBe("Bearer from-file");
  });

  it("passes Warning headers to the handler", async () => {
    const seen: WarningHeader[] = [];
    server.handler = (_r, res) => {
      res.setHeader("warning", ['299 - "first"', '299 - "second"']);
      json(res, 200, {});
    };
    await transport({ warningHandler: (w) => seen.push(w) }).request({ method: "GET", path: "/x" });
    expect(seen.map((w) => w.text)).toEqual(["first", "second"]);
  });

  it("an aborted request rejects with the signal's reason", async () => {
    server.handler = () => {
      /* never answers */
    };
    const ac = new AbortController();
    const p = transport().request({ method: "GET", path: "/slow", signal: ac.signal });
    setImmediate(() => ac.abort(new Error("caller gave up")));
    await expect(p).rejects.toThrow("caller gave up");
  });

  it("many requests on one caller signal: one listener on it (no MaxListenersExceededWarning), all abort with it", async () => {
    server.handler = () => {
      /* never answers */
    };
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const ac = new AbortController();
      const t = transport();
      const inflight = Array.from({ length: 30 }, (_, i) => t.request({ method: "GET", path: `/slow/${i}`, signal: ac.signal }).catch((e: unknown) => e));
      // Every request has reached the server before the abort: none arrives late in another test.
      while (server.requests.length < 30) await new Promise((r) => setTimeout(r, 5));
      ac.abort(new Error("manager stopped"));
      const errs = await Promise.all(inflight);
      expect(errs.every((e) => e instanceof Error && e.message.includes("manager stopped"))).toBe(true);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("the per-request timeout runs on the injected clock → TransportError(timeout)", async () => {
    const clock = new FakeClock();
    server.handler = () => {
      /* never answers */
    };
    const p = transport({ clock, timeoutMs: 5000 }).request({ method: "GET", path: "/slow" });
    const err = await driveClock(clock, p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).timeout).toBe(true);
  });

  it("is throttled by the rate limiter on the injected clock", async () => {
    const clock = new FakeClock();
    server.handler = (_r, res) => json(res, 200, {});
    const t = transport({ clock, qps: 1, burst: 2 });
    const start = clock.now();
    await driveClock(clock, Promise.all([1, 2, 3, 4].map(() => t.request({ method: "GET", path: "/x" }))));
    expect(clock.now() - start).toBe(2000);
    expect(server.requests).toHaveLength(4);
  });
});

describe("proxy-url", () => {
  it("tunnels requests through an http proxy with CONNECT", async () => {
    const connects: string[] = [];
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on("connect", (req, socket, head) => {
      connects.push(req.url ?? "");
      const [host, port] = (req.url ?? "").split(":");
      const upstream = connect(Number(port), host, () => {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    server.handler = (_r, res) => json(res, 200, { via: "proxy" });
    const t = transport({ proxyUrl });
    expect(await t.requestJSON({ method: "GET", path: "/x" })).toEqual({ via: "proxy" });
    expect(connects).toEqual([new URL(server.url).host]);
    await t.close();
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
  });
});
