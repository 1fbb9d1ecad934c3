import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RestConfig } from "./config.js";
import { TransportError } from "./errors.js";
import { Transport } from "./transport.js";

const fixtures = path.join(import.meta.dirname, "../../test/client/fixtures");
const pem = (f: string) => readFileSync(path.join(fixtures, f), "utf8");

let server: Server;
let url = "";
const transports: Transport[] = [];

beforeAll(async () => {
  server = createServer({ key: pem("server.key"), cert: pem("server.crt"), ca: pem("ca.crt"), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ cn: peer?.subject?.CN ?? null, servername: (req.socket as TLSSocket & { servername?: string }).servername ?? null }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function get(cfg: Omit<RestConfig, "host">): Promise<{ cn: string | null; servername: string | null }> {
  const t = new Transport({ host: url, qps: -1, maxRetries: 0, ...cfg });
  transports.push(t);
  return t.requestJSON({ method: "GET", path: "/x" });
}

describe("TLS", () => {
  it("verifies the server against the CA file and presents the client certificate files", async () => {
    const out = await get({ tls: { caFile: path.join(fixtures, "ca.crt"), certFile: path.join(fixtures, "client.crt"), keyFile: path.join(fixtures, "client.key") } });
    expect(out.cn).toBe("alice");
  });

  it("CA data works too; without client cert the server sees none", async () => {
    expect((await get({ tls: { caData: pem("ca.crt") } })).cn).toBeNull();
  });

  it("an unknown CA is a TransportError; insecure-skip-tls-verify accepts it", async () => {
    const err = await get({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(await get({ tls: { insecure: true } })).toBeDefined();
  });

  it("tls-server-name is sent as SNI and used for verification", async () => {
    expect((await get({ tls: { caData: pem("ca.crt"), serverName: "kubernetes.test" } })).servername).toBe("kubernetes.test");
    const err = await get({ tls: { caData: pem("ca.crt"), serverName: "other.test" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
  });

  it("a client certificate from a credential provider (exec plugin) is used", async () => {
    const out = await get({
      tls: { caData: pem("ca.crt") },
      credentials: { get: () => Promise.resolve({ clientCert: { cert: pem("client.crt"), key: pem("client.key") } }) },
    });
    expect(out.cn).toBe("alice");
  });
});
