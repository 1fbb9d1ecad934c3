/**
 * The ceiling: a bare node:http (or node:https) server in a process of its own (role "bare"),
 * answering every request with bytes fixed in advance — what a server that does no work beyond
 * reading the request and writing the answer can do on this machine.
 *
 * - `route(path, answer)`: requests for `path` (query ignored) read their body in full and get
 *   `answer` (status, content type, body) — the same bytes kubeloop answers, captured first.
 * - Watch fan-out: a GET carrying `watch=` in its query opens a chunked stream that stays open;
 *   a POST to `/fanout` writes the frame given by `fanoutFrame` (serialized once) to every open
 *   stream, then answers 201 with `fanoutAnswer`.
 * - With `tls`, HTTPS with the same settings kubeloop uses (client certificates requested and
 *   verified against the CA by the TLS layer).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { RoleFactory } from "./proc.js";

export interface Answer {
  status: number;
  body: string;
  contentType?: string;
}

export interface BareParams {
  tls?: { cert: string; key: string; ca: string };
}

export const roles: Record<string, RoleFactory> = {
  bare: async (params: BareParams) => {
    const routes = new Map<string, { status: number; headers: Record<string, string | number>; body: Buffer }>();
    const streams = new Set<ServerResponse>();
    let frame = Buffer.from("{}\n");
    let fanoutAnswer = Buffer.from("{}");
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const path = q === -1 ? url : url.slice(0, q);
      if (req.method === "GET" && q !== -1 && url.includes("watch=", q)) {
        res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
        res.flushHeaders();
        streams.add(res);
        res.on("close", () => streams.delete(res));
        return;
      }
      req.on("data", () => {});
      req.on("end", () => {
        if (path === "/fanout") {
          for (const s of streams) s.write(frame);
          res.writeHead(201, { "Content-Type": "application/json", "Content-Length": fanoutAnswer.length });
          res.end(fanoutAnswer);
          return;
        }
        const r = routes.get(path);
        if (!r) {
          res.writeHead(404);
          res.end();
          return;
        }
        res.writeHead(r.status, r.headers);
        res.end(r.body);
      });
    };
    const server: Server = params.tls
      ? (createHttpsServer({ cert: params.tls.cert, key: params.tls.key, ca: params.tls.ca, requestCert: true, rejectUnauthorized: false, keepAliveTimeout: 65_000 }, handler) as unknown as Server)
      : createServer({ keepAliveTimeout: 65_000 }, handler);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `${params.tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      url: () => url,
      route: (path: string, a: Answer) => {
        const body = Buffer.from(a.body);
        routes.set(path, { status: a.status, body, headers: { "Content-Type": a.contentType ?? "application/json", "Content-Length": body.length, "Cache-Control": "no-cache, private" } });
      },
      fanoutFrame: (f: string, answer: string) => {
        frame = Buffer.from(f);
        fanoutAnswer = Buffer.from(answer);
      },
      stop: async () => {
        for (const s of streams) s.end();
        await new Promise<void>((r) => {
          server.close(() => r());
          server.closeAllConnections();
        });
      },
    };
  },
};
