/**
 * The API server's side of an isolated control plane (isolation.ts is the control plane's side):
 * this module is the entry point of the child process or worker thread that runs
 * `startApiServer` for `startControlPlane({ apiServerIsolation: "process" | "thread" })`.
 *
 * Protocol, one message at a time over the IPC channel (process) or the worker's port (thread):
 *
 *   control plane → host   { type: "start", options }   once, first
 *                          { type: "stop" }             stop the server, then end
 *   host → control plane   { type: "ready", ... }       listening, kubeconfig written
 *                          { type: "failed", error }    startApiServer rejected (then the host ends)
 *                          { type: "log", ... }         a line of the server's logger
 *                          { type: "stopped" }          stop() finished (then the host ends)
 *
 * A child process also ends when its parent goes away (the IPC channel disconnects), so a killed
 * `kubeloop up` leaves no API server behind; it ignores SIGINT (a terminal's Ctrl-C reaches the
 * whole process group: the parent orchestrates the stop).
 */
import { isMainThread, parentPort, workerData, type MessagePort } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { startApiServer, type RunningApiServer, type StartApiServerOptions } from "../apiserver/index.js";
import type { Logger } from "../apiserver/server/server.js";
import { simulatedContainerLog } from "../controllers/podlifecycle/logs.js";
import { simulatedResourceMetrics } from "../controllers/podlifecycle/usage.js";

/** The worker's `workerData` marker that makes this module serve (thread isolation). */
export const API_SERVER_HOST_MARK = "kubeloopApiServerHost";

/** What crosses to the host: the API server's options, data only (isolation.ts checks). */
export interface HostStartOptions extends Omit<StartApiServerOptions, "logger" | "clock"> {
  /**
   * Serve pods/log with the simulated kubelet's lines and metrics.k8s.io with its containers'
   * usage (the functions themselves cannot cross; they are built here from these settings).
   */
  simulatedKubelet?: { speedFactor?: number };
  /** The parent's logger is on: forward the server's log lines. */
  log?: boolean;
}

/** An error as data (name, message, stack, code), rebuilt on the other side. */
export interface ErrorData {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

export type ToHost = { type: "start"; options: HostStartOptions } | { type: "stop" };

export type FromHost =
  | {
      type: "ready";
      url: string;
      kubeconfigPath: string;
      startupWarnings: string[];
      ca?: { certPem: string; keyPem: string };
      /** The service-account signing key pair, for the token controller (kube-controller-manager holds it too). */
      serviceAccountKey?: { privateKeyPem: string; publicKeyPem: string };
    }
  | { type: "failed"; error: ErrorData }
  | { type: "log"; level: "info" | "warn" | "error"; obj: unknown; msg?: string }
  | { type: "stopped" };

export function errorData(err: unknown): ErrorData {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return { name: err.name, message: err.message, stack: err.stack, ...(typeof code === "string" ? { code } : {}) };
  }
  return { name: "Error", message: String(err) };
}

/** A log object as plain data: errors become `{ type, message, stack }`, anything else JSON. */
function logData(obj: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(obj, (_k, v: unknown) => (v instanceof Error ? { type: v.name, message: v.message, stack: v.stack } : v))) as unknown;
  } catch {
    return String(obj);
  }
}

interface Channel {
  send(m: FromHost): void;
  onMessage(fn: (m: ToHost) => void): void;
  /** Ends the host once everything sent has gone out. */
  end(code: number): void;
}

function processChannel(): Channel {
  return {
    send: (m) => {
      if (process.connected) process.send!(m);
    },
    onMessage: (fn) => process.on("message", (m: ToHost) => fn(m)),
    end: (code) => {
      process.exitCode = code;
      // Exit once the last message is flushed (disconnect waits for the queue).
      if (process.connected) process.disconnect();
      setImmediate(() => process.exit(code));
    },
  };
}

function threadChannel(port: MessagePort): Channel {
  return {
    send: (m) => port.postMessage(m),
    onMessage: (fn) => port.on("message", (m: ToHost) => fn(m)),
    end: () => port.close(),
  };
}

/** Runs the host: waits for "start", serves until "stop" (or, for a child process, the parent's exit). */
export function serveApiServerHost(channel: Channel, isProcess: boolean): void {
  let running: RunningApiServer | undefined;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (then: () => void) =>
    (stopping ??= (async () => {
      await starting?.catch(() => undefined);
      await running?.stop();
      then();
    })());
  channel.onMessage((m) => {
    if (m.type === "start" && !starting) {
      starting = (async () => {
        const { simulatedKubelet, log, ...options } = m.options;
        const logger: Logger | undefined = log
          ? {
              info: (obj, msg) => channel.send({ type: "log", level: "info", obj: logData(obj), msg }),
              warn: (obj, msg) => channel.send({ type: "log", level: "warn", obj: logData(obj), msg }),
              error: (obj, msg) => channel.send({ type: "log", level: "error", obj: logData(obj), msg }),
            }
          : undefined;
        try {
          running = await startApiServer({
            ...options,
            logger,
            server: simulatedKubelet
              ? { ...options.server, podLogs: simulatedContainerLog, resourceMetrics: simulatedResourceMetrics({ speedFactor: simulatedKubelet.speedFactor }) }
              : options.server,
          });
        } catch (err) {
          channel.send({ type: "failed", error: errorData(err) });
          channel.end(1);
          return;
        }
        const ca = running.clusterCA;
        const saTokens = running.server.access?.serviceAccountTokens;
        channel.send({
          type: "ready",
          url: running.url,
          kubeconfigPath: running.kubeconfigPath,
          startupWarnings: [...running.server.startupWarnings],
          ...(ca ? { ca: { certPem: ca.certPem, keyPem: ca.keyPem } } : {}),
          ...(saTokens ? { serviceAccountKey: saTokens.exportSigningKey() } : {}),
        });
      })();
    } else if (m.type === "stop") {
      void stop(() => {
        channel.send({ type: "stopped" });
        channel.end(0);
      });
    }
  });
  if (isProcess) {
    // The parent is gone (exited, killed): stop serving and end, leaving no orphan.
    process.once("disconnect", () => void stop(() => process.exit(0)));
    process.on("SIGINT", () => undefined);
  }
}

function isProcessEntry(): boolean {
  const main = process.argv[1];
  return isMainThread && typeof process.send === "function" && main !== undefined && resolve(main) === fileURLToPath(import.meta.url);
}

if (!isMainThread && parentPort && (workerData as Record<string, unknown> | undefined)?.[API_SERVER_HOST_MARK] === true) {
  serveApiServerHost(threadChannel(parentPort), false);
} else if (isProcessEntry()) {
  serveApiServerHost(processChannel(), true);
}
