/**
 * A scripted HTTP server on 127.0.0.1 for client tests: records every request and answers with
 * the handler the test installs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Clock } from "../../src/apimachinery/clock.js";
import type { FakeClock } from "../../src/apimachinery/clock.js";

export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export class TestServer {
  readonly requests: RecordedRequest[] = [];
  private server: Server;
  private sockets = new Set<Socket>();
  handler: Handler = (_req, res) => {
    res.writeHead(404).end();
  };
  url = "";

  constructor() {
    this.server = createServer((raw, res) => {
      const chunks: Buffer[] = [];
      raw.on("data", (c: Buffer) => chunks.push(c));
      raw.on("end", () => {
        const u = new URL(raw.url ?? "/", "http://x");
        const rec: RecordedRequest = {
          method: raw.method ?? "",
          url: raw.url ?? "",
          path: u.pathname,
          query: u.searchParams,
          headers: raw.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        };
        this.requests.push(rec);
        Promise.resolve(this.handler(rec, res, raw)).catch((e: unknown) => {
          res.writeHead(599).end(String(e));
        });
      });
    });
    this.server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function json(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function status(code: number, reason: string, message: string, extra: Record<string, unknown> = {}) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code, ...extra };
}

/**
 * Awaits `p` while moving the fake clock to each pending deadline as soon as something waits on
 * it, letting real I/O proceed in between (the clock never moves while nothing waits).
 */
export async function driveClock<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let settled = false;
  const done = p.then(
    (v) => {
      settled = true;
      return v;
    },
    (e: unknown) => {
      settled = true;
      throw e;
    },
  );
  done.catch(() => undefined);
  while (!settled) {
    await new Promise((r) => setImmediate(r));
    const next = clock.nextDeadline();
    if (next !== undefined) clock.setTime(Math.max(next, clock.now()));
  }
  return done;
}

export type { Clock };
