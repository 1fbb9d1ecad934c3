/**
 * Benchmark processes: every server, ceiling, client under test and load generator runs in its
 * own Node process, started from a *role* — a named factory exported by a bench module — and
 * driven over IPC by the orchestrator (bench/run.ts, which does nothing else while a figure is
 * measured).
 *
 * A role module exports `roles: Record<string, RoleFactory>`. The child process (bench/child.ts)
 * imports the module, calls the factory with the parameters it was given and answers calls to the
 * methods the factory returned. Every process also answers three built-in calls: its CPU time
 * (process.cpuUsage, user + system, in seconds; a role that starts processes of its own answers
 * `__cpu` itself to count them too), its heap after a full GC, and stop.
 *
 * Profiling: BENCH_PROF=<dir> starts the processes whose label matches BENCH_PROF_ROLES (a
 * regular expression, default: every process) with --cpu-prof, writing <label>-<orchestrator pid>-<n>.cpuprofile
 * into <dir> when they stop. `node dist-bench/bench/profsummary.js <file>` prints its hottest
 * functions.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The methods of a running role; arguments and results cross the IPC channel as JSON. */
export type RoleMethods = Record<string, (...args: never[]) => unknown>;
export type RoleFactory = (params: never) => Promise<RoleMethods> | RoleMethods;

interface CallMessage {
  id: number;
  method: string;
  args: unknown[];
}
type ReplyMessage = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
type ReadyMessage = { ready: true } | { ready: false; error: string };

export interface HeapUsage {
  /** V8 heap in use after three full collections (bytes). */
  heapUsed: number;
  /** Memory of ArrayBuffers and Buffers (outside the V8 heap), after the same collections. */
  arrayBuffers: number;
  rss: number;
}

export interface StartOptions {
  /** A short name for logs and profiles, e.g. "kubeloop-apiserver". */
  label: string;
  /** Extra Node flags. --expose-gc is always given (heap figures need it). */
  execArgv?: string[];
  env?: Record<string, string>;
}

const here = dirname(fileURLToPath(import.meta.url));
const childEntry = join(here, "child.js");

let profiles = 0;

function profileArgs(label: string): string[] {
  const dir = process.env.BENCH_PROF;
  if (!dir) return [];
  const only = process.env.BENCH_PROF_ROLES;
  if (only && !new RegExp(only).test(label)) return [];
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true });
  return ["--cpu-prof", `--cpu-prof-dir=${abs}`, `--cpu-prof-name=${label.replace(/[^\w.+-]/g, "_")}-${process.pid}-${++profiles}.cpuprofile`];
}

/** A benchmark process, seen from the orchestrator. */
export class Proc {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private exited: Promise<number | null>;
  private stopping = false;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((r) => child.once("exit", (code) => r(code)));
    child.on("message", (m: ReplyMessage | ReadyMessage) => {
      if (!("id" in m)) return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(`${label}: ${m.error}`));
    });
    void this.exited.then((code) => {
      for (const p of this.pending.values()) p.reject(new Error(`${label} exited (code ${code}) during a call`));
      this.pending.clear();
      if (!this.stopping && code !== 0) process.stderr.write(`[bench] ${label} exited unexpectedly with code ${code}\n`);
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /**
   * Starts `role` of the bench module `moduleUrl` (pass `import.meta.url`) with `params`;
   * resolves once the role's factory has finished (servers listening, fixtures created).
   */
  static async start(moduleUrl: string, role: string, params: unknown, opts: StartOptions): Promise<Proc> {
    const modulePath = fileURLToPath(moduleUrl);
    const child = fork(childEntry, [modulePath, role], {
      execArgv: ["--expose-gc", ...(opts.execArgv ?? []), ...profileArgs(opts.label)],
      env: { ...process.env, ...opts.env, BENCH_PROC_LABEL: opts.label },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    const proc = new Proc(opts.label, child);
    await new Promise<void>((resolveReady, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${opts.label} exited with code ${code} while starting`));
      child.once("exit", onExit);
      child.on("message", function onReady(m: ReplyMessage | ReadyMessage) {
        if (!("ready" in m)) return;
        child.off("message", onReady);
        child.off("exit", onExit);
        if (m.ready) resolveReady();
        else reject(new Error(`${opts.label} failed to start: ${m.error}`));
      });
      child.send({ params });
    });
    return proc;
  }

  call<T = unknown>(method: string, ...args: unknown[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolveCall, reject) => {
      this.pending.set(id, { resolve: resolveCall as (v: unknown) => void, reject });
      this.child.send({ id, method, args } satisfies CallMessage);
    });
  }

  /** CPU-seconds (user + system) the process has used since it started. */
  cpu(): Promise<number> {
    return this.call<number>("__cpu");
  }

  heap(): Promise<HeapUsage> {
    return this.call<HeapUsage>("__heap");
  }

  /** Calls the role's own `stop` (if any), then lets the process exit (writing its profile). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.stopping = true;
    await this.call("__stop").catch(() => undefined);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 30_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** The processes a benchmark started, stopped together at its end. */
export class ProcGroup {
  private readonly procs: Proc[] = [];

  /** Starts `role` of `modulePath` in a process of its own and keeps it for stop(). */
  async start(modulePath: string, role: string, params: unknown, label: string): Promise<Proc> {
    const p = await Proc.start(modulePath, role, params, { label });
    this.procs.push(p);
    return p;
  }

  /** Keeps a process started elsewhere, so stop() stops it too. */
  add(p: Proc): Proc {
    this.procs.push(p);
    return p;
  }

  stop(): Promise<void> {
    return stopAll(...this.procs);
  }
}

/** Stops every process given (ignoring the ones that are undefined). */
export async function stopAll(...procs: Array<Proc | undefined>): Promise<void> {
  await Promise.all(procs.map((p) => p?.stop()));
}

/** What `measured` returns: the result, the wall-clock time and each process's CPU-seconds. */
export interface Measured<T> {
  result: T;
  wallMs: number;
  /** CPU-seconds per process label over the measurement. */
  cpu: Record<string, number>;
}

/** Runs `fn`, reading the CPU time of each process right before and right after it. */
export async function measured<T>(procs: readonly Proc[], fn: () => Promise<T>): Promise<Measured<T>> {
  const before = await Promise.all(procs.map((p) => p.cpu()));
  const t0 = performance.now();
  const result = await fn();
  const wallMs = performance.now() - t0;
  const after = await Promise.all(procs.map((p) => p.cpu()));
  const cpu: Record<string, number> = {};
  procs.forEach((p, i) => (cpu[p.label] = after[i] - before[i]));
  return { result, wallMs, cpu };
}

// ---- the child side ------------------------------------------------------------------------

/** Used by bench/child.ts: runs the role and answers calls until stopped. */
export async function serveRole(modulePath: string, role: string): Promise<void> {
  const send = (m: ReplyMessage | ReadyMessage) => process.send!(m);
  const params = await new Promise<unknown>((r) => process.once("message", (m: { params: unknown }) => r(m.params)));
  let methods: RoleMethods;
  try {
    const mod = (await import(new URL(`file://${modulePath}`).href)) as { roles?: Record<string, RoleFactory> };
    const factory = mod.roles?.[role];
    if (!factory) throw new Error(`${modulePath} has no role ${role}`);
    methods = await factory(params as never);
  } catch (err) {
    send({ ready: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exit(1);
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  const builtins: RoleMethods = {
    __cpu: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    },
    __heap: () => {
      for (let i = 0; i < 3; i++) gc?.();
      const m = process.memoryUsage();
      return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, rss: m.rss } satisfies HeapUsage;
    },
    /** Starts a CPU profile of this process (node:inspector), for a window chosen by the caller. */
    __profStart: async () => {
      const { Session } = await import("node:inspector/promises");
      const session = new Session();
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 100 });
      await session.post("Profiler.start");
      (globalThis as { __benchProfiler?: unknown }).__benchProfiler = session;
    },
    /** Stops the profile started by __profStart and writes it to `file` (a .cpuprofile). */
    __profStop: async (file: string) => {
      const session = (globalThis as { __benchProfiler?: import("node:inspector/promises").Session }).__benchProfiler;
      if (!session) throw new Error("no profile running");
      const { profile } = await session.post("Profiler.stop");
      const { writeFile } = await import("node:fs/promises");
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
    __stop: async () => {
      await (methods.stop as (() => Promise<void>) | undefined)?.();
      // Exit once the reply has gone out (the CPU profile is written on exit).
      setImmediate(() => process.exit(0));
    },
  };
  process.on("message", (m: CallMessage) => {
    if (typeof m !== "object" || m === null || typeof m.id !== "number") return;
    // A role may answer __cpu itself, to count processes of its own (a control plane's API server child).
    const fn = (m.method === "__cpu" ? methods.__cpu : undefined) ?? builtins[m.method] ?? methods[m.method];
    void (async () => {
      try {
        if (!fn) throw new Error(`no method ${m.method}`);
        const value = await (fn as (...a: unknown[]) => unknown)(...m.args);
        send({ id: m.id, ok: true, value });
      } catch (err) {
        send({ id: m.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      }
    })();
  });
  send({ ready: true });
}
