/**
 * The HTTP load generator, a process of its own (role "http"): undici with keep-alive
 * connections, `concurrency` workers each sending its next request as soon as the previous
 * answer has been read in full. Requests are described as data (templates), so the same
 * generator drives kubeloop and the ceilings alike:
 *
 * - `{w}` is the worker number, `{i}` the worker's request counter (it keeps counting across
 *   calls, so names stay unique), `{r}` the caller's tag (e.g. the round);
 * - `{rv}` is the resourceVersion the worker last read from an answer (`metadata.resourceVersion`
 *   of the JSON body; seeded by `rvs`), which makes PUTs conditional updates.
 *
 * `fanout` opens `watchers` watch streams, waits for a probe event on every one of them, then
 * sends `events` writes and waits until every watcher has read every frame.
 */
import { Agent, request, type Dispatcher } from "undici";
import { setMaxListeners } from "node:events";
import { cpuSeconds } from "./harness.js";
import type { RoleFactory } from "./proc.js";

export interface TLSFiles {
  ca: string;
  cert?: string;
  key?: string;
}

export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  body?: string;
  headers?: Record<string, string>;
  /** Expected status (a mismatch fails the run): default any 2xx. */
  expect?: number;
  /** Initial `{rv}` per worker. */
  rvs?: string[];
  tag?: string;
}

export interface LoadResult {
  count: number;
  ms: number;
  /** CPU-seconds of the load generator. */
  cpu: number;
  bytes: number;
}

export interface FanoutSpec {
  watchUrl: string;
  /** The writes; `{i}` counts 0..events-1 (the probe is sent first with i = "probe"). */
  write: RequestSpec;
  watchers: number;
  events: number;
  concurrency: number;
}

/** A compiled template: literal parts with placeholders between them. */
type Piece = string | { hole: "w" | "i" | "r" | "rv" };

function compile(t: string): Piece[] {
  const out: Piece[] = [];
  const re = /\{(w|i|r|rv)\}/g;
  let last = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    if (m.index > last) out.push(t.slice(last, m.index));
    out.push({ hole: m[1] as "w" | "i" | "r" | "rv" });
    last = m.index + m[0].length;
  }
  if (last < t.length) out.push(t.slice(last));
  return out;
}

function fill(p: Piece[], v: { w: number; i: number | string; r: string; rv: string }): string {
  let s = "";
  for (const x of p) s += typeof x === "string" ? x : String(v[x.hole]);
  return s;
}

const rvPattern = /"resourceVersion":"(\d+)"/;

class Generator {
  private readonly agent: Agent;
  private counters: number[] = [];

  constructor(tls: TLSFiles | undefined, connections: number) {
    this.agent = new Agent({
      connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: tls ? { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: true } : undefined,
    });
  }

  private async send(d: Dispatcher, method: string, url: string, body: string | undefined, headers: Record<string, string> | undefined, expect: number | undefined): Promise<string> {
    const res = await request(url, { method: method as Dispatcher.HttpMethod, dispatcher: d, body, headers });
    const text = await res.body.text();
    const ok = expect === undefined ? res.statusCode >= 200 && res.statusCode < 300 : res.statusCode === expect;
    if (!ok) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 300)}`);
    return text;
  }

  async throughput(spec: RequestSpec, concurrency: number, durationMs: number): Promise<LoadResult> {
    const url = compile(spec.url);
    const body = spec.body === undefined ? undefined : compile(spec.body);
    const rvs = spec.rvs ? [...spec.rvs] : [];
    const needsRv = spec.body?.includes("{rv}") || spec.url.includes("{rv}");
    while (this.counters.length < concurrency) this.counters.push(0);
    const r = spec.tag ?? "";
    const cpu0 = cpuSeconds();
    const start = performance.now();
    const deadline = start + durationMs;
    let count = 0;
    let bytes = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        while (performance.now() < deadline) {
          const v = { w, i: this.counters[w]++, r, rv: rvs[w] ?? "" };
          const text = await this.send(this.agent, spec.method, fill(url, v), body && fill(body, v), spec.headers, spec.expect);
          bytes += text.length;
          if (needsRv) {
            const m = rvPattern.exec(text);
            if (!m) throw new Error(`no resourceVersion in the answer: ${text.slice(0, 200)}`);
            rvs[w] = m[1];
          }
          count++;
        }
      }),
    );
    const ms = performance.now() - start;
    return { count, ms, cpu: cpuSeconds() - cpu0, bytes };
  }

  /** Sends `n` requests with `concurrency` in flight (e.g. fixtures, churn); `{i}` = 0..n-1. */
  async many(spec: RequestSpec, n: number, concurrency: number): Promise<LoadResult> {
    const url = compile(spec.url);
    const body = spec.body === undefined ? undefined : compile(spec.body);
    const r = spec.tag ?? "";
    const cpu0 = cpuSeconds();
    const start = performance.now();
    let next = 0;
    let bytes = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, n) }, async (_, w) => {
        for (let i = next++; i < n; i = next++) {
          const v = { w, i, r, rv: "" };
          bytes += (await this.send(this.agent, spec.method, fill(url, v), body && fill(body, v), spec.headers, spec.expect)).length;
        }
      }),
    );
    return { count: n, ms: performance.now() - start, cpu: cpuSeconds() - cpu0, bytes };
  }

  async fanout(spec: FanoutSpec): Promise<LoadResult> {
    const watchAgent = new Agent({ connections: spec.watchers + 8, pipelining: 1, connect: this.tlsOf() });
    const ac = new AbortController();
    setMaxListeners(spec.watchers * 4, ac.signal);
    const expected = spec.events + 1;
    const firsts: Promise<void>[] = [];
    const opened: Promise<void>[] = [];
    const dones: Promise<void>[] = [];
    for (let k = 0; k < spec.watchers; k++) {
      let seenFirst!: () => void;
      let open!: () => void;
      firsts.push(new Promise<void>((r) => (seenFirst = r)));
      opened.push(new Promise<void>((r) => (open = r)));
      dones.push(
        (async () => {
          const res = await request(spec.watchUrl, { method: "GET", dispatcher: watchAgent, signal: ac.signal, bodyTimeout: 60_000 });
          if (res.statusCode !== 200) throw new Error(`watch: ${res.statusCode}`);
          // Headers arrive once the server has registered the watch: from then on it sees every write.
          open();
          let seen = 0;
          for await (const chunk of res.body) {
            const b = chunk as Buffer;
            for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) seen++;
            if (seen > 0) seenFirst();
            if (seen >= expected) break;
          }
          if (seen < expected) throw new Error(`watch ended after ${seen} of ${expected} frames`);
        })(),
      );
    }
    const url = compile(spec.write.url);
    const body = spec.write.body === undefined ? undefined : compile(spec.write.body);
    const send = (i: number | string) => {
      const v = { w: 0, i, r: spec.write.tag ?? "", rv: "" };
      return this.send(this.agent, spec.write.method, fill(url, v), body && fill(body, v), spec.write.headers, spec.write.expect);
    };
    await Promise.race([Promise.all(opened), Promise.all(dones)]);
    await send("probe");
    await Promise.race([Promise.all(firsts), Promise.all(dones)]);
    const cpu0 = cpuSeconds();
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: spec.concurrency }, async () => {
        for (let i = next++; i < spec.events; i = next++) await send(i);
      }),
    );
    await Promise.all(dones);
    const ms = performance.now() - start;
    const cpu = cpuSeconds() - cpu0;
    ac.abort();
    await watchAgent.close().catch(() => undefined);
    return { count: spec.watchers * spec.events, ms, cpu, bytes: 0 };
  }

  private tls: TLSFiles | undefined;
  setTLS(t: TLSFiles | undefined): void {
    this.tls = t;
  }
  private tlsOf() {
    const t = this.tls;
    return t ? { ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: true } : undefined;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

export interface LoadgenParams {
  tls?: TLSFiles;
  connections?: number;
}

export const roles: Record<string, RoleFactory> = {
  http: (params: LoadgenParams) => {
    const gens = new Map<string, Generator>();
    /** One connection pool per TLS identity ("" = plain http). */
    const gen = (tls: TLSFiles | undefined): Generator => {
      const key = tls ? `${tls.cert ?? ""}|${tls.ca}` : "";
      let g = gens.get(key);
      if (!g) {
        g = new Generator(tls, params.connections ?? 64);
        g.setTLS(tls);
        gens.set(key, g);
      }
      return g;
    };
    return {
      throughput: (spec: RequestSpec, concurrency: number, durationMs: number, tls?: TLSFiles) => gen(tls ?? params.tls).throughput(spec, concurrency, durationMs),
      many: (spec: RequestSpec, n: number, concurrency: number, tls?: TLSFiles) => gen(tls ?? params.tls).many(spec, n, concurrency),
      fanout: (spec: FanoutSpec, tls?: TLSFiles) => gen(tls ?? params.tls).fanout(spec),
      fetchText: async (url: string, tls?: TLSFiles) => {
        const res = await request(url, { dispatcher: new Agent({ connect: tls ?? params.tls }) });
        return { status: res.statusCode, text: await res.body.text() };
      },
      stop: async () => {
        for (const g of gens.values()) await g.close();
      },
    };
  },
};
