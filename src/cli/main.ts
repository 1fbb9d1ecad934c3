#!/usr/bin/env node
/**
 * The `kubeloop` command.
 *
 *   kubeloop apiserver [--port N] [--host H] [--kubeconfig-out FILE] [--insecure-http] [--token-auth-file F]
 *   kubeloop up [--port N] [--host H] [--data-dir DIR] [--kubeconfig-out FILE] [--no-demo]
 *   kubeloop controller <name> [--kubeconfig FILE] [--namespace NS] [--workers N] [--leader-elect]
 *                      [--metrics-bind-address :8080] [--health-probe-bind-address :8081] [--log-level L]
 *   kubeloop crd gen [module...] [--out DIR]... [--check]
 *   kubeloop crd types <crd.yaml> [--out FILE]
 *
 * All run until SIGINT/SIGTERM and stop cleanly. Bad input prints one line and exits non-zero.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import type { RunningApiServer } from "../apiserver/index.js";
import type { ViewSink } from "./view.js";

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopSignal(): Promise<string>;
  /** Where `up` draws its live view; default: plain lines through `out`. */
  view?: ViewSink;
}

function parsePort(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError("must be an integer between 0 and 65535");
  const n = Number(v);
  if (n > 65535) throw new InvalidArgumentError("must be an integer between 0 and 65535");
  return n;
}

interface ServeOptions {
  port: number;
  host: string;
  kubeconfigOut?: string;
  dataDir?: string;
  demo?: boolean;
  insecureHttp?: boolean;
  tokenAuthFile?: string;
}

async function serve(io: CliIO, opts: ServeOptions): Promise<void> {
  let running: RunningApiServer;
  try {
    // Loaded on demand so that `--help` and argument errors stay instant.
    const { startApiServer } = await import("../apiserver/index.js");
    running = await startApiServer({
      port: opts.port,
      host: opts.host,
      kubeconfigPath: opts.kubeconfigOut,
      dataDir: opts.dataDir,
      insecureHttp: opts.insecureHttp,
      auth: opts.tokenAuthFile ? { tokenAuthFile: opts.tokenAuthFile } : undefined,
    });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  io.out(`kubeloop API server listening on ${running.url}`);
  io.out(`kubeconfig: ${running.kubeconfigPath}`);
  io.out(`try: kubectl --kubeconfig ${running.kubeconfigPath} get namespaces`);
  const signal = await io.stopSignal();
  io.out(`received ${signal}, stopping`);
  await running.stop();
}

async function up(io: CliIO, opts: ServeOptions & { nodes?: number; heartbeatInterval?: number }): Promise<void> {
  const { runUp } = await import("./up.js");
  const view: ViewSink = io.view ?? {
    isTTY: false,
    write: (text) => {
      for (const line of text.split("\n")) if (line !== "") io.out(line);
    },
  };
  try {
    await runUp({ out: io.out, stopSignal: io.stopSignal, view }, { ...opts, heartbeatIntervalMs: opts.heartbeatInterval });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
}

interface ControllerFlags {
  kubeconfig?: string;
  namespace?: string;
  workers?: number;
  leaderElect?: boolean;
  leaderElectNamespace?: string;
  metricsBindAddress?: string;
  healthProbeBindAddress?: string;
  logLevel?: string;
}

async function controller(io: CliIO, name: string, flags: ControllerFlags): Promise<void> {
  const { isControllerName, runController, CONTROLLER_DEFAULT_WORKERS } = await import("./controller.js");
  if (!isControllerName(name)) {
    throw new CliError(`unknown controller "${name}": expected one of ${Object.keys(CONTROLLER_DEFAULT_WORKERS).join(", ")}`);
  }
  const stop = new AbortController();
  void io.stopSignal().then(() => stop.abort());
  try {
    await runController(name, flags, stop.signal);
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
}

function parseWorkers(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1000) throw new InvalidArgumentError("must be an integer between 1 and 1000");
  return Number(v);
}

function parseMs(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError("must be a number of milliseconds (0 turns it off)");
  return Number(v);
}

export class CliError extends Error {}

export function buildProgram(io: CliIO): Command {
  const program = new Command();
  program
    .name("kubeloop")
    .description("Kubernetes control loops in TypeScript, with an embedded Kubernetes-compatible API server")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .showSuggestionAfterError(true);

  const common = (cmd: Command) =>
    cmd
      .option("--port <n>", "port to listen on (0 picks a free port)", parsePort, 0)
      .option("--host <host>", "address to listen on", "127.0.0.1")
      .option("--kubeconfig-out <file>", "where to write the kubeconfig (default: a temporary file)")
      .option("--data-dir <dir>", "persist state (SQLite) in this directory; default: in memory")
      .option("--insecure-http", "serve plain http (default https); requests without credentials act as kubeloop-admin, since client-go sends none over http")
      .option("--token-auth-file <file>", 'static bearer tokens, CSV lines token,user,uid,"group1,group2"');

  common(program.command("apiserver").description("run the embedded API server alone"))
    .exitOverride()
    .action(async (opts: ServeOptions) => serve(io, opts));

  common(program.command("up").description("run the control plane: API server, every controller and a simulated kubelet, with a live demo"))
    .option("--no-demo", "do not create the demo objects")
    .option("--nodes <n>", "simulated nodes", parseWorkers, 3)
    .option("--heartbeat-interval <ms>", "node heartbeat interval in ms (0 turns heartbeats off)", parseMs, 10_000)
    .exitOverride()
    .action(async (opts: ServeOptions & { nodes?: number; heartbeatInterval?: number }) => up(io, opts));

  program
    .command("controller")
    .description("run one controller against a cluster (deployment, replicaset, garbagecollector, endpoints, podlifecycle, application)")
    .argument("<name>", "the controller to run")
    .option("--kubeconfig <file>", "kubeconfig file (default: KUBECONFIG, ~/.kube/config, then in-cluster)")
    .option("--namespace <ns>", "watch only this namespace (default: all)")
    .option("--workers <n>", "concurrent reconciles (default: the controller's upstream default)", parseWorkers)
    .option("--leader-elect", "elect a leader through a Lease before running")
    .option("--leader-elect-namespace <ns>", "namespace of the leader election Lease", "kube-system")
    .option("--metrics-bind-address <addr>", 'serve /metrics here (":8080"; "0" disables)', "0")
    .option("--health-probe-bind-address <addr>", 'serve /healthz and /readyz here (":8081"; "0" disables)', "0")
    .option("--log-level <level>", "log level (trace, debug, info, warn, error) or klog verbosity 0-10", "info")
    .exitOverride()
    .action(async (name: string, flags: ControllerFlags) => controller(io, name, flags));

  const crd = program.command("crd").description("custom resource definitions: YAML from TypeScript declarations, TypeScript from YAML");
  crd
    .command("gen")
    .description("write the CRD YAML of declared custom resources (default: kubeloop's own) into deploy/crds and deploy/helm/*/crds")
    .argument("[modules...]", "JavaScript modules whose exports include defineCustomResource declarations")
    .option("--out <dir>", "output directory (repeatable; default deploy/crds and each deploy/helm/<chart>/crds)", (v: string, prev: string[] = []) => [...prev, v])
    .option("--check", "write nothing; fail when a generated file is missing or stale")
    .exitOverride()
    .action(async (modules: string[], opts: { out?: string[]; check?: boolean }) => {
      const { crdGen } = await import("./crd.js");
      try {
        for (const line of await crdGen(modules, opts)) io.out(line);
      } catch (err) {
        throw new CliError(err instanceof Error ? err.message : String(err));
      }
    });
  crd
    .command("types")
    .description("print (or write) TypeScript types and typed descriptors for an existing CRD")
    .argument("<file>", "a YAML file with one or more CustomResourceDefinitions")
    .option("--out <file>", "write the TypeScript module here instead of printing it")
    .exitOverride()
    .action(async (file: string, opts: { out?: string }) => {
      const { crdTypes } = await import("./crd.js");
      try {
        for (const line of await crdTypes(file, opts)) io.out(line);
      } catch (err) {
        throw new CliError(err instanceof Error ? err.message : String(err));
      }
    });

  return program;
}

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed its one-line message; help and version exit 0.
      return err.exitCode;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

function processIO(): CliIO {
  return {
    view: { isTTY: process.stdout.isTTY === true, write: (text) => process.stdout.write(text) },
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    stopSignal: () =>
      new Promise((resolve) => {
        const on = (sig: NodeJS.Signals) => {
          process.off("SIGINT", on);
          process.off("SIGTERM", on);
          resolve(sig);
        };
        process.on("SIGINT", on);
        process.on("SIGTERM", on);
      }),
  };
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  runCli(process.argv.slice(2), processIO()).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
