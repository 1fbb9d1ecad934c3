/**
 * Manager: runs many controllers in one process (controller-runtime's manager).
 *
 * It owns one SharedInformerFactory, one EventBroadcaster recording core/v1 Events to the API,
 * one leader election (a coordination.k8s.io/v1 Lease), and the HTTP endpoints /metrics,
 * /healthz and /readyz.
 *
 * Phases (explicit): Created → Starting → Running → ShuttingDown → Stopped.
 * - Starting: the HTTP servers listen (healthz answers 200 from here on), runnables that do not
 *   need leader election start, informers start; readyz turns 200 once the informers started so
 *   far have synced.
 * - Running: with leader election, runnables that need it (controllers) start when this process
 *   becomes leader, with a signal that aborts when leadership ends; without it, they start at
 *   once.
 * - ShuttingDown: entered when the start signal aborts, a runnable rejects, or leadership is
 *   lost. Every runnable's signal aborts; the manager waits up to gracefulShutdownTimeoutMs for
 *   them to return (not at all when leadership was lost: another leader may already act, as
 *   controller-runtime skips the graceful wait), then closes the servers and the broadcaster.
 * - Stopped: start() resolves after a requested shutdown, or rejects with the error that caused
 *   it (LeaderElectionLostError, a runnable's error, GracefulShutdownTimeoutError).
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { register as globalRegistry } from "prom-client";
import type { Registry } from "prom-client";
import { holdProcessOpen, realClock } from "../apimachinery/clock.js";
import type { Clock } from "../apimachinery/clock.js";
import type { ObjectName } from "../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../client/interfaces.js";
import { builtin } from "../client/typed.js";
import { EventBroadcaster } from "../events/broadcaster.js";
import type { EventRecorder, Subscription } from "../events/broadcaster.js";
import { ClientEventSink } from "../events/sink.js";
import { SharedInformerFactory } from "../informers/factory.js";
import { LeaderElector } from "../leaderelection/leaderelector.js";
import { LeaseLock } from "../leaderelection/resourcelock.js";
import { leaderElectionMetrics } from "../leaderelection/metrics.js";
import { ControllerBuilder, ControllerBuilderError, type BuilderHost } from "./builder.js";
import { Cache } from "./cache.js";
import { defaultLogger } from "./logging.js";
import { registerProcessMetrics } from "./metrics.js";
import type { Logger } from "./logging.js";

/** Where leader election keeps its Lease. */
export const leasesResource = builtin.leases;

export interface LeaderElectionOptions {
  /** This candidate's identity; default hostname + "_" + a random UUID. */
  id?: string;
  namespace: string;
  /** The Lease's name. */
  name: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Give the lease up when the manager stops while leading (default false, as upstream). */
  releaseOnCancel?: boolean;
}

export interface ManagerOptions {
  /** A KubeClient or FakeClient. */
  client: ResourceClientFactory;
  /** Created from `client` when absent. */
  informers?: SharedInformerFactory;
  /** Leader election; absent or false runs leader-election runnables at once. */
  leaderElection?: LeaderElectionOptions | false;
  /** ":8080", "127.0.0.1:0", "[::1]:9090"; "0", "" or absent: no metrics server. */
  metricsBindAddress?: string;
  /** Same forms; serves /healthz and /readyz. May equal metricsBindAddress (one server then). */
  healthProbeBindAddress?: string;
  /** How long shutdown waits for runnables (default 30_000). */
  gracefulShutdownTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** The registry /metrics serves (default: prom-client's global registry). */
  registry?: Registry;
  /**
   * Where controllers' event recorders come from (default: the manager's broadcaster, which
   * records core/v1 Events through `client` once started). Tests pass a FakeRecorder's factory.
   */
  recorderProvider?: (component: string) => EventRecorder;
}

/** Anything the manager runs: resolves when done; the signal asks it to stop. */
export interface Runnable {
  name: string;
  run(signal: AbortSignal): Promise<void>;
}

export interface RunnableOptions {
  /** Run only while this process leads (default true, as controller-runtime). */
  needLeaderElection?: boolean;
}

/** A health or readiness check: throws (or rejects) when failing. */
export type HealthCheck = () => void | Promise<void>;

export type ManagerPhase = "Created" | "Starting" | "Running" | "ShuttingDown" | "Stopped";

export const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS = 30_000;

export class LeaderElectionLostError extends Error {
  constructor(lease: string) {
    super(`leader election lost (lease ${lease})`);
    this.name = "LeaderElectionLostError";
  }
}

export class GracefulShutdownTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly pending: string[],
  ) {
    super(`failed waiting for all runnables to end within grace period of ${timeoutMs}ms: still running: ${pending.join(", ")}`);
    this.name = "GracefulShutdownTimeoutError";
  }
}

export class RunnableError extends Error {
  constructor(
    readonly runnable: string,
    cause: unknown,
  ) {
    super(`runnable ${runnable} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "RunnableError";
  }
}

export class InvalidBindAddressError extends Error {
  constructor(address: string) {
    super(`invalid bind address "${address}": want host:port, :port, or "0" to disable`);
    this.name = "InvalidBindAddressError";
  }
}

/** Parses a bind address; undefined when disabled ("0", "" or absent). */
export function parseBindAddress(address: string | undefined): { host: string | undefined; port: number } | undefined {
  if (address === undefined || address === "" || address === "0") return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  if (!m) throw new InvalidBindAddressError(address);
  const port = Number(m[3]);
  if (port > 65535) throw new InvalidBindAddressError(address);
  const host = m[1] ?? m[2];
  return { host: host === "" ? undefined : host, port };
}

function formatAddress(info: AddressInfo): string {
  return info.family === "IPv6" || info.address.includes(":") ? `[${info.address}]:${info.port}` : `${info.address}:${info.port}`;
}

interface Entry {
  runnable: Runnable;
  needLeaderElection: boolean;
  /** Set once started: settles when run() returns. */
  done?: Promise<void>;
  finished: boolean;
}

type Endpoint = "metrics" | "health";

export class Manager implements BuilderHost {
  readonly informers: SharedInformerFactory;
  /** Typed reads of the informer caches (what reconciles get as ctx.cache). */
  readonly cache: Cache;
  /** Records to the API (core/v1 Events) once started. */
  readonly eventBroadcaster: EventBroadcaster;
  readonly registry: Registry;
  readonly identity: string;
  /** The client controllers write through (each reconcile gets it bound to its signal). */
  readonly client: ResourceClientFactory;
  readonly clock: Clock;
  /** The logger the manager and its controllers log to. */
  readonly logger: Logger;
  private readonly opts: ManagerOptions;
  private readonly log: Logger;
  private readonly controllerNames = new Set<string>();
  private readonly gracefulShutdownTimeoutMs: number;
  private readonly entries: Entry[] = [];
  private readonly healthzChecks = new Map<string, HealthCheck>();
  private readonly readyzChecks = new Map<string, HealthCheck>();
  private readonly servers: Server[] = [];
  private phaseValue: ManagerPhase = "Created";
  private cachesSynced = false;
  /** Settles when the elector's run() returned (after releasing the lease, if configured). */
  private electorDone: Promise<void> | undefined;
  private leading = false;
  /** Aborts every runnable that does not need leader election, and the informers. */
  private readonly stopAll = new AbortController();
  /** The signal of the current leadership term (runnables needing leader election get it). */
  private leaderSignal: AbortSignal | undefined;
  /** The first error that ended (or will end) the manager. */
  private fatal: { err: unknown; skipGraceful: boolean } | undefined;
  private wakeShutdown: (() => void) | undefined;
  private metricsAddr: string | undefined;
  private healthAddr: string | undefined;
  private eventsSubscription: Subscription | undefined;
  /** Resolves once start() has started the informers. */
  private readonly informersStarted: { promise: Promise<void>; resolve: () => void };

  constructor(opts: ManagerOptions) {
    this.opts = opts;
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? defaultLogger();
    this.logger = this.log;
    this.registry = opts.registry ?? globalRegistry;
    registerProcessMetrics(this.registry);
    this.gracefulShutdownTimeoutMs = opts.gracefulShutdownTimeoutMs ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS;
    this.informers =
      opts.informers ??
      new SharedInformerFactory(opts.client, {
        clock: this.clock,
        logger: this.log,
      });
    this.cache = new Cache(this.informers);
    this.eventBroadcaster = new EventBroadcaster({ clock: this.clock, logger: this.log, registry: this.registry });
    this.identity = (opts.leaderElection && opts.leaderElection.id) || `${hostname()}_${randomUUID()}`;
    // Validate bind addresses early: a typo fails construction, not start.
    parseBindAddress(opts.metricsBindAddress);
    parseBindAddress(opts.healthProbeBindAddress);
    // Every informer, watch and controller listens on these signals.
    setMaxListeners(0, this.stopAll.signal);
    let resolveStarted!: () => void;
    this.informersStarted = { promise: new Promise<void>((r) => (resolveStarted = r)), resolve: resolveStarted };
    this.addHealthzCheck("ping", () => {});
    this.addReadyzCheck("informers", () => {
      if (!this.cachesSynced) throw new Error("caches not synced");
    });
  }

  get phase(): ManagerPhase {
    return this.phaseValue;
  }

  /** The bound metrics address ("host:port") once started. */
  get metricsAddress(): string | undefined {
    return this.metricsAddr;
  }

  /** The bound health-probe address ("host:port") once started. */
  get healthAddress(): string | undefined {
    return this.healthAddr;
  }

  /** Whether this process currently leads (always true once running without leader election). */
  isLeader(): boolean {
    return this.leading;
  }

  /** An event recorder for `component` (the event source), from `recorderProvider` or the broadcaster. */
  eventRecorder(component: string): EventRecorder {
    if (this.opts.recorderProvider) return this.opts.recorderProvider(component);
    return this.eventBroadcaster.newRecorder({ component, host: hostname() });
  }

  /**
   * Starts building a controller named `name` (unique in this manager): the one way to compose
   * one. See builder.ts.
   *
   *   mgr.controller("app").for(apps).owns(builtin.deployments).reconcile(async (req, ctx) => …)
   */
  controller<R = ObjectName>(name: string): ControllerBuilder<R> {
    return new ControllerBuilder<R>(this, name);
  }

  /** BuilderHost: adds a built controller's runnable. */
  registerController(name: string, run: (signal: AbortSignal) => Promise<void>, needLeaderElection: boolean): void {
    if (this.controllerNames.has(name)) {
      throw new ControllerBuilderError(name, "a controller with this name already exists in the manager: names must be unique (they label metrics and logs)");
    }
    this.controllerNames.add(name);
    this.add({ name, run }, { needLeaderElection });
  }

  /**
   * Resolves true once the manager has started and every informer of its controllers has synced
   * (what /readyz reports), false if `signal` aborts first.
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const aborted = new Promise<"aborted">((resolve) => {
      if (signal?.aborted) resolve("aborted");
      signal?.addEventListener("abort", () => resolve("aborted"), { once: true });
    });
    if ((await Promise.race([this.informersStarted.promise, aborted])) === "aborted") return false;
    const synced = await this.informers.waitForCacheSync(signal);
    return [...synced.values()].every(Boolean);
  }

  /** Adds a runnable; after start it starts at once (when its leader-election condition holds). */
  add(runnable: Runnable, opts: RunnableOptions = {}): void {
    if (this.phaseValue === "ShuttingDown" || this.phaseValue === "Stopped") {
      throw new Error(`manager is stopping: cannot add runnable ${runnable.name}`);
    }
    const entry: Entry = { runnable, needLeaderElection: opts.needLeaderElection ?? true, finished: false };
    this.entries.push(entry);
    if (this.phaseValue === "Created") return;
    if (!entry.needLeaderElection) this.startEntry(entry, this.stopAll.signal);
    else if (this.leaderSignal && !this.leaderSignal.aborted) this.startEntry(entry, this.leaderSignal);
  }

  /**
   * Adds the webhook server: it runs whether or not this process leads (webhooks must answer on
   * every replica, as controller-runtime's), starts and stops with the manager, and is a
   * readiness check ("webhook") until it listens.
   */
  addWebhookServer(server: Runnable & { startedChecker(): HealthCheck }): void {
    this.add(server, { needLeaderElection: false });
    this.addReadyzCheck("webhook", server.startedChecker());
  }

  /** Adds a check served under /healthz (and /healthz/<name>). */
  addHealthzCheck(name: string, check: HealthCheck): void {
    this.healthzChecks.set(name, check);
  }

  /** Adds a check served under /readyz (and /readyz/<name>). */
  addReadyzCheck(name: string, check: HealthCheck): void {
    this.readyzChecks.set(name, check);
  }

  /** Starts informers, servers, leader election; runs controllers while leading; resolves on shutdown. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.phaseValue !== "Created") throw new Error("manager already started");
    this.phaseValue = "Starting";
    const shutdownRequested = new Promise<void>((resolve) => (this.wakeShutdown = resolve));
    const onAbort = () => this.wakeShutdown?.();
    signal.addEventListener("abort", onAbort, { once: true });
    // Start blocks until the manager stops, as controller-runtime's: the process stays up meanwhile
    // (a standby replica waiting for its lease has nothing else holding it open).
    const release = holdProcessOpen();
    try {
      await this.startServers();
      if (!signal.aborted && !this.fatal) {
        // With a recorderProvider, events go wherever it sends them; the broadcaster stays idle.
        if (!this.opts.recorderProvider) this.eventsSubscription = this.eventBroadcaster.startRecordingToSink(new ClientEventSink(this.client));
        for (const e of this.entries) if (!e.needLeaderElection) this.startEntry(e, this.stopAll.signal);
        this.informers.start(this.stopAll.signal);
        this.informersStarted.resolve();
        void this.informers.waitForCacheSync(this.stopAll.signal).then((synced) => {
          if (!this.stopAll.signal.aborted && [...synced.values()].every(Boolean)) {
            this.cachesSynced = true;
            this.log.info("Caches are synced");
          }
        });
        this.phaseValue = "Running";
        this.startLeaderElection();
        await shutdownRequested;
      }
    } catch (err) {
      this.fail(err, false);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    try {
      await this.shutdown();
    } finally {
      release();
    }
  }

  // --- running ----------------------------------------------------------------------------------

  private startLeaderElection(): void {
    const le = this.opts.leaderElection;
    if (!le) {
      this.onStartedLeading(this.stopAll.signal);
      return;
    }
    const lockName = `${le.namespace}/${le.name}`;
    // LeaderElection events ("<id> became leader" / "stopped leading") under the identity as source, as controller-runtime's.
    const lock = new LeaseLock(this.client.resource(leasesResource, le.namespace), le.name, this.identity, this.eventRecorder(this.identity));
    const elector = new LeaderElector({
      lock,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      releaseOnCancel: le.releaseOnCancel,
      clock: this.clock,
      name: lockName,
      metrics: leaderElectionMetrics(this.registry, le.name),
      onError: (message, err) => this.log.error({ err, lease: lockName }, message),
      callbacks: {
        onStartedLeading: (leaderSignal) => this.onStartedLeading(leaderSignal),
        onStoppedLeading: () => {
          const wasLeading = this.leading;
          this.leading = false;
          if (this.stopAll.signal.aborted) return; // we asked it to stop
          if (wasLeading) {
            this.log.error({ lease: lockName, identity: this.identity }, "Leader election lost");
            this.fail(new LeaderElectionLostError(lockName), true);
          }
        },
        onNewLeader: (id) => this.log.info({ lease: lockName, leader: id, self: id === this.identity }, "New leader elected"),
      },
    });
    // Leader election health: failing when we lead but have not renewed for too long.
    this.addHealthzCheck("leaderElection", () => {
      const err = elector.check(20_000);
      if (err) throw err;
    });
    this.log.info({ lease: lockName, identity: this.identity }, "Attempting to acquire leader lease");
    this.electorDone = elector.run(this.stopAll.signal).catch((err: unknown) => this.fail(err, true));
  }

  private onStartedLeading(leaderSignal: AbortSignal): void {
    if (this.stopAll.signal.aborted) return;
    this.leading = true;
    this.leaderSignal = leaderSignal;
    setMaxListeners(0, leaderSignal);
    if (this.opts.leaderElection) this.log.info({ identity: this.identity }, "Successfully acquired lease");
    for (const e of this.entries) if (e.needLeaderElection && !e.done) this.startEntry(e, leaderSignal);
  }

  private startEntry(e: Entry, signal: AbortSignal): void {
    if (e.done) return;
    this.log.info({ runnable: e.runnable.name }, "Starting runnable");
    e.done = (async () => {
      try {
        await e.runnable.run(signal);
      } catch (err) {
        if (!signal.aborted || !isAbortError(err)) {
          this.log.error({ err, runnable: e.runnable.name }, "Runnable failed");
          this.fail(new RunnableError(e.runnable.name, err), false);
        }
      } finally {
        e.finished = true;
      }
    })();
  }

  /** Records the first fatal error and wakes start() to shut down. */
  private fail(err: unknown, skipGraceful: boolean): void {
    this.fatal ??= { err, skipGraceful };
    this.wakeShutdown?.();
  }

  // --- shutdown ---------------------------------------------------------------------------------

  private async shutdown(): Promise<void> {
    if (this.phaseValue === "ShuttingDown" || this.phaseValue === "Stopped") return;
    this.phaseValue = "ShuttingDown";
    this.log.info("Stopping and waiting for runnables");
    this.stopAll.abort();
    let timeoutErr: GracefulShutdownTimeoutError | undefined;
    const skipGraceful = this.fatal?.skipGraceful ?? false;
    if (!skipGraceful) timeoutErr = await this.waitForRunnables();
    try {
      await this.eventsSubscription?.stop();
      await this.eventBroadcaster.shutdown();
    } catch (err) {
      this.log.error({ err }, "Stopping the event broadcaster failed");
    }
    await this.closeServers();
    this.phaseValue = "Stopped";
    this.log.info("Manager stopped");
    if (this.fatal) throw this.fatal.err;
    if (timeoutErr) throw timeoutErr;
  }

  /** Waits for started runnables and informers; the timeout error when they take too long. */
  private async waitForRunnables(): Promise<GracefulShutdownTimeoutError | undefined> {
    const pending = [...this.entries.filter((e) => e.done).map((e) => e.done!), this.informers.shutdown()];
    if (this.electorDone) pending.push(this.electorDone);
    let timer: { cancel(): boolean } | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = this.clock.setTimer(this.gracefulShutdownTimeoutMs, () => resolve("timeout"));
    });
    const outcome = await Promise.race([Promise.all(pending).then(() => "done" as const), timedOut]);
    timer?.cancel();
    if (outcome === "done") return undefined;
    const still = this.entries.filter((e) => e.done && !e.finished).map((e) => e.runnable.name);
    const err = new GracefulShutdownTimeoutError(this.gracefulShutdownTimeoutMs, still);
    this.log.error({ err }, "Graceful shutdown timed out");
    return err;
  }

  // --- HTTP -------------------------------------------------------------------------------------

  private async startServers(): Promise<void> {
    const metrics = parseBindAddress(this.opts.metricsBindAddress);
    const health = parseBindAddress(this.opts.healthProbeBindAddress);
    const same = metrics && health && metrics.host === health.host && metrics.port === health.port && metrics.port !== 0;
    if (metrics) {
      const addr = await this.listen(metrics, same ? ["metrics", "health"] : ["metrics"]);
      this.metricsAddr = addr;
      if (same) this.healthAddr = addr;
      this.log.info({ bindAddress: addr }, "Serving metrics server");
    }
    if (health && !same) {
      this.healthAddr = await this.listen(health, ["health"]);
      this.log.info({ bindAddress: this.healthAddr }, "Starting health probe server");
    }
  }

  private listen(bind: { host: string | undefined; port: number }, serve: Endpoint[]): Promise<string> {
    const server = createServer((req, res) => {
      this.handle(req, res, serve).catch((err: unknown) => {
        this.log.error({ err }, "HTTP handler failed");
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(bind.port, bind.host, () => {
        server.off("error", reject);
        server.on("error", (err) => this.log.error({ err }, "HTTP server error"));
        resolve(formatAddress(server.address() as AddressInfo));
      });
    });
  }

  private async closeServers(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (!s.listening) return resolve();
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse, serve: Endpoint[]): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" });
      res.end("method not allowed\n");
      return;
    }
    if (serve.includes("metrics") && path === "/metrics") {
      const body = await this.registry.metrics();
      res.writeHead(200, { "Content-Type": this.registry.contentType });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    if (serve.includes("health")) {
      for (const [prefix, checks] of [
        ["/healthz", this.healthzChecks],
        ["/readyz", this.readyzChecks],
      ] as const) {
        if (path === prefix || path === `${prefix}/`) return this.serveChecks(res, prefix.slice(1), checks, url.searchParams.has("verbose"));
        if (path.startsWith(`${prefix}/`)) {
          const name = path.slice(prefix.length + 1);
          const check = checks.get(name);
          if (!check) break;
          return this.serveChecks(res, prefix.slice(1), new Map([[name, check]]), url.searchParams.has("verbose"));
        }
      }
    }
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("404 page not found\n");
  }

  /** controller-runtime's healthz format: "ok", or per-check lines and "<kind> check failed" with 500. */
  private async serveChecks(res: ServerResponse, kind: string, checks: Map<string, HealthCheck>, verbose: boolean): Promise<void> {
    const lines: string[] = [];
    let failed = false;
    const notStarted = this.phaseValue === "Created" || this.phaseValue === "Stopped";
    for (const [name, check] of [...checks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      try {
        if (notStarted) throw new Error("manager not running");
        await check();
        lines.push(`[+]${name} ok`);
      } catch (err) {
        failed = true;
        const msg = err instanceof Error ? err.message : String(err);
        lines.push(`[-]${name} failed: ${msg}`);
      }
    }
    res.setHeader("Content-Type", "text/plain; charset=utf-8");
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (failed) {
      res.writeHead(500);
      res.end(`${lines.join("\n")}\n${kind} check failed\n`);
      return;
    }
    res.writeHead(200);
    res.end(verbose ? `${lines.join("\n")}\n${kind} check passed\n` : "ok");
  }
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

export interface RunUntilSignalOptions {
  /** Default SIGINT and SIGTERM. */
  signals?: NodeJS.Signals[];
  /** What a second signal does (default: exit the process with code 1, as controller-runtime). */
  onSecondSignal?: () => void;
  logger?: Logger;
}

/**
 * Starts the manager and stops it gracefully on the first SIGINT/SIGTERM; a second signal exits
 * at once. Resolves (or rejects) with start()'s outcome; the handlers are removed afterwards.
 */
export async function runUntilSignal(manager: Manager, opts: RunUntilSignalOptions = {}): Promise<void> {
  const signals = opts.signals ?? ["SIGINT", "SIGTERM"];
  const stop = new AbortController();
  const log = opts.logger ?? defaultLogger();
  const onSignal = (sig: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      log.info({ signal: sig }, "Received signal, shutting down gracefully");
      stop.abort();
      return;
    }
    log.info({ signal: sig }, "Received second signal, exiting immediately");
    (opts.onSecondSignal ?? (() => process.exit(1)))();
  };
  for (const s of signals) process.on(s, onSignal);
  try {
    await manager.start(stop.signal);
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}
