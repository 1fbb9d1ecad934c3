/**
 * The control plane's side of an API server in a process or thread of its own
 * (`startControlPlane({ apiServerIsolation })`; apiserverhost.ts is the other side).
 *
 * The controllers already reach the API server only over HTTP(S) through its kubeconfig, so
 * moving the server out of their event loop changes nothing they see; it gives the server a core
 * of its own. What crosses is data: the server's start options (checked here: a function — a
 * custom admission plugin, pods/log source, codec, clock — cannot cross, and is refused with an
 * {@link ApiServerIsolationError}), its log lines (forwarded to the control plane's logger) and
 * what RunningApiServer carries (URL, kubeconfig path, startup warnings, the cluster CA for
 * `kubeconfigForUser`).
 *
 * Lifecycle (states: starting → running → stopping → stopped, or → crashed):
 * - start resolves once the server listens and wrote its kubeconfig, and rejects with the
 *   server's own error (name, message, code) when it cannot start, or when the host ends first;
 * - stop() asks the host to stop the server (storage closed, temporary kubeconfig removed) and
 *   waits for the process or thread to end; after 30 s it kills it;
 * - an end the control plane did not ask for is a crash: logged, and `crashed` resolves with it;
 * - a child process ends when its parent goes away (apiserverhost.ts), so none is left behind.
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { loadCertificateAndKey } from "../apimachinery/pki/x509.js";
import type { Logger, StartApiServerOptions } from "../apiserver/index.js";
import { kubeconfigForUser } from "../apiserver/auth/setup.js";
import { legacyTokenSigner } from "../apiserver/auth/serviceaccount.js";
import type { LegacyTokenGenerator } from "../controllers/serviceaccount/tokens.js";
import { API_SERVER_HOST_MARK, type ErrorData, type FromHost, type HostStartOptions, type ToHost } from "./apiserverhost.js";

/**
 * Where the control plane runs its API server:
 * - `"inline"`: in the control plane's own event loop (the default of `startControlPlane`, and
 *   what test environments use: the fastest start, and the server object is in reach);
 * - `"thread"`: in a worker thread of the same process (its own event loop and core; one heap
 *   limit shared with the controllers);
 * - `"process"`: in a child Node process (its own core and heap, as a real kube-apiserver; the
 *   default of `kubeloop up` on machines with more than one CPU).
 */
export type ApiServerIsolation = "inline" | "thread" | "process";

/** The API server's options cannot go to its own process or thread (they hold a function or a live object). */
export class ApiServerIsolationError extends Error {
  override readonly name = "ApiServerIsolationError";
}

/** An API server running in a process or thread of its own, as the control plane sees it. */
export interface IsolatedApiServer {
  isolation: "thread" | "process";
  url: string;
  kubeconfigPath: string;
  /** What an operator should hear about at start (the server's `startupWarnings`). */
  startupWarnings: readonly string[];
  /** The child process's pid (`"process"`), or the worker's thread id (`"thread"`). */
  pid?: number;
  threadId?: number;
  /** HTTPS only: a kubeconfig for `username` in `groups` (as RunningApiServer's). */
  kubeconfigForUser?: (username: string, groups?: readonly string[], namespace?: string) => string;
  /** Signs legacy service-account tokens with the server's key (for the token controller); absent without authentication. */
  legacyTokens?: LegacyTokenGenerator;
  /** Resolves with the reason if the API server ends without stop() being called; never rejects. */
  crashed: Promise<Error>;
  /** Stops the server and waits for its process or thread to end. */
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 30_000;

/**
 * The first value in `value` that structured cloning would drop or refuse (a function, a class
 * instance other than Map, Set, Date, RegExp, Buffer or an array), by its path; undefined when
 * everything is plain data.
 */
export function nonDataPath(value: unknown, path = "options"): string | undefined {
  if (typeof value === "function") return path;
  if (value === null || typeof value !== "object") return undefined;
  if (value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value)) return undefined;
  if (value instanceof Map) {
    for (const [k, v] of value) {
      const p = nonDataPath(v, `${path}.get(${JSON.stringify(k)})`);
      if (p) return p;
    }
    return undefined;
  }
  if (value instanceof Set) {
    for (const v of value) {
      const p = nonDataPath(v, `${path}[…]`);
      if (p) return p;
    }
    return undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = nonDataPath(value[i], `${path}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return path;
  for (const [k, v] of Object.entries(value)) {
    const p = nonDataPath(v, `${path}.${k}`);
    if (p) return p;
  }
  return undefined;
}

function rebuildError(e: ErrorData): Error {
  const err = new Error(e.message);
  err.name = e.name;
  if (e.stack) err.stack = e.stack;
  if (e.code) (err as NodeJS.ErrnoException).code = e.code;
  return err;
}

const hostEntryPath = (): string => fileURLToPath(new URL("./apiserverhost.js", import.meta.url));

/** Whether this build can run an isolated API server: its host module is built JavaScript (not TypeScript sources run by a test runner). */
export function isolatedApiServerAvailable(): boolean {
  return existsSync(hostEntryPath());
}

/** The host module beside this one (dist/controlplane/apiserverhost.js once built). */
function hostEntry(): string {
  const entry = hostEntryPath();
  if (!existsSync(entry)) {
    throw new ApiServerIsolationError(`the API server host ${entry} does not exist: an isolated API server runs from the built package (npm run build), not from TypeScript sources`);
  }
  return entry;
}

/**
 * The parent's Node flags the child process keeps: only those about memory, profiling and
 * diagnostics. Anything else could make it run something other than the host (`-e`, `-p`,
 * `--import`, `--input-type`) or clash with the parent (an inspector port, a fixed profile file
 * name: the child's --cpu-prof writes a file of its own name).
 */
export function childExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  return execArgv.filter((a) => /^--(cpu-prof|cpu-prof-dir|cpu-prof-interval|heap-prof|heap-prof-dir|max-old-space-size|max-semi-space-size|stack-size|enable-source-maps|expose-gc|no-warnings)(=|$)/.test(a));
}

interface HostHandle {
  send(m: ToHost): void;
  onMessage(fn: (m: FromHost) => void): void;
  /** Resolves with a description of how it ended (exit code, or the thread's error). */
  ended: Promise<{ code: number | null; error?: Error }>;
  kill(): void;
  pid?: number;
  threadId?: number;
}

function startProcess(): HostHandle {
  const child: ChildProcess = fork(hostEntry(), [], {
    execArgv: childExecArgv(),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "advanced",
  });
  const ended = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, error: signal ? new Error(`killed by ${signal}`) : undefined }));
    child.once("error", (error) => resolve({ code: null, error }));
  });
  return {
    send: (m) => {
      if (child.connected) child.send(m);
    },
    onMessage: (fn) => child.on("message", (m: FromHost) => fn(m)),
    ended,
    kill: () => child.kill("SIGKILL"),
    pid: child.pid,
  };
}

function startThread(): HostHandle {
  const worker = new Worker(hostEntry(), { workerData: { [API_SERVER_HOST_MARK]: true } });
  let error: Error | undefined;
  worker.once("error", (e) => (error = e));
  const ended = new Promise<{ code: number | null; error?: Error }>((resolve) => worker.once("exit", (code) => resolve({ code, error })));
  return {
    send: (m) => worker.postMessage(m),
    onMessage: (fn) => worker.on("message", (m: FromHost) => fn(m)),
    ended,
    kill: () => void worker.terminate(),
    threadId: worker.threadId,
  };
}

/** Starts the API server in a process or thread of its own; see the module comment. */
export async function startIsolatedApiServer(
  isolation: "thread" | "process",
  options: StartApiServerOptions & { simulatedKubelet?: { speedFactor?: number } },
): Promise<IsolatedApiServer> {
  const { logger: log, clock, ...rest } = options;
  if (clock) throw new ApiServerIsolationError(`an injected clock stays in the control plane: apiServerIsolation "${isolation}" runs the API server on the real clock (use "inline")`);
  const start: HostStartOptions = { ...rest, log: log !== undefined };
  const bad = nonDataPath(start);
  if (bad) throw new ApiServerIsolationError(`${bad} is not plain data and cannot go to the API server's own ${isolation}: use apiServerIsolation "inline" to run it in the control plane`);

  const host = isolation === "process" ? startProcess() : startThread();
  let state: "starting" | "running" | "stopping" | "stopped" | "crashed" = "starting";
  let onStopped: (() => void) | undefined;
  const stoppedMessage = new Promise<void>((r) => (onStopped = r));
  let settle: { resolve(m: Extract<FromHost, { type: "ready" }>): void; reject(e: Error): void } | undefined;
  const ready = new Promise<Extract<FromHost, { type: "ready" }>>((resolve, reject) => (settle = { resolve, reject }));
  host.onMessage((m) => {
    switch (m.type) {
      case "ready":
        state = "running";
        settle?.resolve(m);
        break;
      case "failed":
        settle?.reject(rebuildError(m.error));
        break;
      case "log":
        (log as Logger | undefined)?.[m.level](m.obj as object, m.msg);
        break;
      case "stopped":
        onStopped?.();
        break;
    }
  });
  let crash!: (e: Error) => void;
  const crashed = new Promise<Error>((r) => (crash = r));
  void host.ended.then(({ code, error }) => {
    const how = error ? `${error.message}` : `exit code ${code}`;
    if (state === "starting") {
      settle?.reject(new Error(`the API server's ${isolation} ended while starting (${how})`));
    } else if (state === "running") {
      state = "crashed";
      const err = new Error(`the API server's ${isolation} ended unexpectedly (${how})`, { cause: error });
      log?.error({ err, isolation }, "the API server stopped");
      crash(err);
    } else {
      state = "stopped";
    }
  });

  host.send({ type: "start", options: start });
  let r: Extract<FromHost, { type: "ready" }>;
  try {
    r = await ready;
  } catch (err) {
    state = "stopped";
    host.kill();
    await host.ended;
    throw err;
  }
  const ca = r.ca ? loadCertificateAndKey(r.ca.certPem, r.ca.keyPem) : undefined;
  let stopping: Promise<void> | undefined;
  return {
    isolation,
    url: r.url,
    kubeconfigPath: r.kubeconfigPath,
    startupWarnings: r.startupWarnings,
    ...(host.pid !== undefined ? { pid: host.pid } : {}),
    ...(host.threadId !== undefined ? { threadId: host.threadId } : {}),
    ...(r.serviceAccountKey ? { legacyTokens: legacyTokenSigner(r.serviceAccountKey) } : {}),
    kubeconfigForUser: ca ? (username, groups = [], namespace = "default") => kubeconfigForUser({ ca }, r.url, username, groups, namespace) : undefined,
    crashed,
    stop: () =>
      (stopping ??= (async () => {
        if (state === "running") state = "stopping";
        host.send({ type: "stop" });
        const timer = setTimeout(() => host.kill(), STOP_TIMEOUT_MS);
        // A thread whose server stopped may still hold handles: it is done once "stopped" is in.
        await (isolation === "thread" ? Promise.race([stoppedMessage.then(() => host.kill()), host.ended]) : host.ended);
        await host.ended;
        clearTimeout(timer);
      })()),
  };
}
