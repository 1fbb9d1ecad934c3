/** A test server on a free loopback port, with small HTTP and watch-stream helpers. */
import { ApiServer, type ApiServerConfig } from "../../src/apiserver/apiserver.js";
import { testStrategies } from "./fixtures.js";

export interface Reply {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export class TestServer {
  server: ApiServer;
  url = "";

  constructor(config: Partial<ApiServerConfig> = {}) {
    this.server = new ApiServer({ strategies: testStrategies(), ...config });
  }

  async start(): Promise<this> {
    this.url = await this.server.start(0, "127.0.0.1");
    await this.server.controllers.idle();
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  async req(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const h: Record<string, string> = { ...headers };
    let data: string | Buffer | undefined;
    if (body !== undefined) {
      data = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      if (!Object.keys(h).some((k) => k.toLowerCase() === "content-type")) h["Content-Type"] = "application/json";
    }
    const res = await fetch(this.url + path, { method, headers: h, body: data });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get = (path: string, headers?: Record<string, string>) => this.req("GET", path, undefined, headers);
  post = (path: string, body: unknown, headers?: Record<string, string>) => this.req("POST", path, body, headers);
  put = (path: string, body: unknown, headers?: Record<string, string>) => this.req("PUT", path, body, headers);
  del = (path: string, body?: unknown) => this.req("DELETE", path, body);
  patch = (path: string, body: unknown, type = "application/merge-patch+json") => this.req("PATCH", path, body, { "Content-Type": type });

  async watch(path: string, headers: Record<string, string> = {}): Promise<WatchReader> {
    const ac = new AbortController();
    const res = await fetch(this.url + path, { headers, signal: ac.signal });
    return new WatchReader(res, ac);
  }
}

export interface WatchFrame {
  type: string;
  object: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export class WatchReader {
  private buf = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  ended = false;

  constructor(
    readonly res: Response,
    private readonly ac: AbortController,
  ) {
    this.reader = res.body!.getReader();
  }

  /** The next event, or undefined when the stream ends. */
  async next(): Promise<WatchFrame | undefined> {
    for (;;) {
      const nl = this.buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        if (line.trim() !== "") return JSON.parse(line) as WatchFrame;
        continue;
      }
      const r = await this.reader.read();
      if (r.done) {
        this.ended = true;
        return undefined;
      }
      this.buf += this.decoder.decode(r.value, { stream: true });
    }
  }

  async take(n: number): Promise<WatchFrame[]> {
    const out: WatchFrame[] = [];
    while (out.length < n) {
      const f = await this.next();
      if (!f) break;
      out.push(f);
    }
    return out;
  }

  close(): void {
    this.ac.abort();
  }
}

export const cm = (name: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...extra },
  data,
});

export const deployment = (name: string, replicas = 1) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
  },
});
