#!/usr/bin/env node
/**
 * The `kubeloop` command.
 *
 *   kubeloop apiserver [--port N] [--host H] [--kubeconfig-out FILE] [--data-dir DIR] [--insecure-http] [--token-auth-file F]
 *                      [--accept-data-loss]
 *   kubeloop up [--port N] [--host H] [--data-dir DIR] [--kubeconfig-out FILE] [--no-demo] [-v L] [--accept-data-loss]
 *               [--kubeconfig-update-default=false] [--kubeconfig-switch-context=false] [--apiserver-isolation inline|thread|process]
 *   kubeloop controller <name> [--kubeconfig FILE] [--namespace NS] [--workers N] [--leader-elect] ...
 *   kubeloop crd gen [module...] [--out DIR]... [--check]
 *   kubeloop crd types <crd.yaml> [--out FILE]
 *   kubeloop init <name> [--domain D] [--dir PATH] [--group G] [--version V] [--kind K] [--namespaced|--cluster] [--force]
 *   kubeloop create api --group G --version V --kind K [--namespaced|--cluster] [--force]
 *   kubeloop --version
 *
 * Flags are defined once, in flags.ts, named as kube-controller-manager and controller-runtime name
 * them.
 * All run until SIGINT/SIGTERM and stop cleanly. Bad input prints one line and exits non-zero.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, Option } from "commander";
import type { RunningApiServer } from "../apiserver/index.js";
import { kubeloopVersion } from "../client/version.js";
import {
  addClientFlags,
  addLeaderElectionFlags,
  addLoggingFlags,
  addServerFlags,
  addServingFlags,
  parseBool,
  parseMs,
  parseWorkers,
  type ClientFlags,
  type LeaderElectionFlags,
  type LoggingFlags,
  type ServerFlags,
  type ServingFlags,
} from "./flags.js";
import type { ScaffoldResult } from "./scaffold/index.js";
import type { ViewSink } from "./view.js";
import { UP_PREFERRED_PORT } from "./upport.js";

/** `up --port` unset: the preferred port when free (commander default sentinel). */
const UP_PREFERRED_PORT_FLAG_DEFAULT = -1;

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopSignal(): Promise<string>;
  /** Where `up` draws its live view; default: plain lines through `out`. */
  view?: ViewSink;
}

type ServeOptions = ServerFlags;

interface UpFlags extends ServerFlags, LoggingFlags {
  logLevel?: string;
  demo?: boolean;
  nodes?: number;
  heartbeatInterval?: number;
  controllers?: string;
  kubeconfigUpdateDefault: boolean;
  kubeconfigSwitchContext: boolean;
  apiserverIsolation?: "inline" | "thread" | "process";
}

async function serve(io: CliIO, opts: ServeOptions): Promise<void> {
  let running: RunningApiServer;
  try {
    // Loaded on demand so that `--help` and argument errors stay instant.
    const { startApiServer } = await import("../apiserver/index.js");
    // pods/log answers with the simulated kubelet's lines, which follow from each pod's status:
    // they are right whichever process runs the kubelet (`kubeloop controller podlifecycle`).
    const { simulatedContainerLog } = await import("../controllers/podlifecycle/logs.js");
    // No metrics.k8s.io here: a bare kube-apiserver serves none (metrics-server adds it), and
    // `kubectl api-resources` lists what 1.36 serves by default. `kubeloop up` serves it.
    running = await startApiServer({
      port: opts.port,
      host: opts.host,
      kubeconfigPath: opts.kubeconfigOut,
      dataDir: opts.dataDir,
      insecureHttp: opts.insecureHttp,
      auth: opts.tokenAuthFile ? { tokenAuthFile: opts.tokenAuthFile } : undefined,
      server: { podLogs: simulatedContainerLog, ...(opts.acceptDataLoss ? { persistence: { acceptDataLoss: true } } : {}) },
    });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  for (const w of running.server.startupWarnings) io.err(`warning: ${w}`);
  io.out(`kubeloop API server listening on ${running.url}`);
  io.out(`kubeconfig: ${running.kubeconfigPath}`);
  io.out(`try: kubectl --kubeconfig ${running.kubeconfigPath} get namespaces`);
  const signal = await io.stopSignal();
  io.out(`received ${signal}, stopping`);
  await running.stop();
}

async function up(io: CliIO, opts: UpFlags): Promise<void> {
  const { runUp } = await import("./up.js");
  const view: ViewSink = io.view ?? {
    isTTY: false,
    write: (text) => {
      for (const line of text.split("\n")) if (line !== "") io.out(line);
    },
  };
  try {
    await runUp(
      { out: io.out, err: io.err, stopSignal: io.stopSignal, view },
      { ...opts, logLevel: opts.logLevel ?? opts.v, heartbeatIntervalMs: opts.heartbeatInterval, apiServerIsolation: opts.apiserverIsolation },
    );
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
}

interface ControllerFlags extends ClientFlags, LeaderElectionFlags, ServingFlags, LoggingFlags {
  namespace?: string;
  workers?: number;
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
    await runController(name, { ...flags, logLevel: flags.logLevel ?? flags.v }, stop.signal);
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
}

export class CliError extends Error {}

export function buildProgram(io: CliIO): Command {
  const program = new Command();
  program
    .name("kubeloop")
    .description("Kubernetes control loops in TypeScript, with an embedded Kubernetes-compatible API server")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .showSuggestionAfterError(true)
    // The program's own options (--version) only before a subcommand: `create api --version v1` is the API's.
    .enablePositionalOptions();

  program.version(kubeloopVersion, "--version", "print the version and exit");

  addServerFlags(program.command("apiserver").description("run the embedded API server alone"), 0, "port to listen on (0 picks a free port)")
    .exitOverride()
    .action(async (opts: ServeOptions) => serve(io, opts));

  addLoggingFlags(
    addServerFlags(
      program.command("up").description("run the control plane: API server, every controller and a simulated kubelet, with a live demo"),
      UP_PREFERRED_PORT_FLAG_DEFAULT,
      `port to listen on (default ${UP_PREFERRED_PORT} when free, else a free port; 0 picks a free port)`,
    ),
    "silent",
  )
    .option("--no-demo", "do not create the demo objects")
    .option("--nodes <n>", "simulated nodes", parseWorkers, 3)
    .option("--heartbeat-interval <ms>", "node heartbeat interval in ms (0 turns heartbeats off)", parseMs, 10_000)
    .option(
      "--controllers <list>",
      "controllers to run, as kube-controller-manager's --controllers: '*' all, 'foo' enables foo, '-foo' disables it (kubeloop's or upstream's names)",
      "*",
    )
    .addOption(
      new Option("--kubeconfig-update-default [bool]", "merge a kubeloop context into your kubeconfig (KUBECONFIG's first file or ~/.kube/config)")
        .argParser(parseBool)
        .preset("true")
        .default(true),
    )
    .addOption(new Option("--kubeconfig-switch-context [bool]", "make the kubeloop context the current one").argParser(parseBool).preset("true").default(true))
    .addOption(
      new Option("--apiserver-isolation <mode>", "where the API server runs: inline (the controllers' process), thread, or process (its own core; default when there is more than one CPU)").choices([
        "inline",
        "thread",
        "process",
      ]),
    )
    .exitOverride()
    .action(async (opts: UpFlags) => up(io, opts));

  const controllerCmd = program
    .command("controller")
    .description("run one controller against a cluster (deployment, replicaset, garbagecollector, endpoints, podlifecycle, application)")
    .argument("<name>", "the controller to run")
    .option("--namespace <ns>", "watch only this namespace (default: all)")
    .option("--workers <n>", "concurrent reconciles (default: the controller's upstream default)", parseWorkers);
  addClientFlags(controllerCmd);
  addLeaderElectionFlags(controllerCmd, "kubeloop-<name>-controller");
  addServingFlags(controllerCmd);
  addLoggingFlags(controllerCmd, "info")
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

  addScaffoldCommands(program, io);

  return program;
}

interface ScaffoldFlags {
  group?: string;
  version?: string;
  kind?: string;
  namespaced?: boolean;
  cluster?: boolean;
  force?: boolean;
}

function scopeOf(flags: ScaffoldFlags): "Namespaced" | "Cluster" {
  if (flags.namespaced && flags.cluster) throw new CliError("--namespaced and --cluster exclude each other");
  return flags.cluster ? "Cluster" : "Namespaced";
}

/** The API flags `init` and `create api` share. */
function addApiFlags(cmd: Command, required: boolean): Command {
  const group = required ? "the API group: a full one (widgets.example.com) or a short one the project's domain completes" : "the first API's group (default <name>; the domain completes one without a dot)";
  return cmd
    .option("--group <group>", group)
    .option("--version <version>", "the API version (default v1alpha1)")
    .option("--kind <kind>", required ? "the kind, UpperCamelCase (e.g. Widget)" : "the first API's kind (default: the name in UpperCamelCase)")
    .option("--namespaced", "namespaced objects (the default)")
    .option("--cluster", "cluster-scoped objects")
    .option("--force", "overwrite files that exist");
}

function addScaffoldCommands(program: Command, io: CliIO): void {
  const report = (r: ScaffoldResult) => {
    for (const f of r.created) io.out(`created ${f}`);
    for (const f of r.replaced) io.out(`replaced ${f}`);
    for (const f of r.updated) io.out(`updated ${f}`);
  };
  addApiFlags(
    program
      .command("init")
      .description("create a new controller project: a custom resource declared in TypeScript, its controller, tests, deploy/, a Helm chart, a Dockerfile and CI")
      .argument("<name>", "the project's name (a DNS label: the npm package, the Deployment, the chart)")
      .option("--domain <domain>", "the domain of the project's API groups", "example.com")
      .option("--dir <path>", "where to write the project (default ./<name>)"),
    false,
  )
    .exitOverride()
    .action(async (name: string, flags: ScaffoldFlags & { domain: string; dir?: string }) => {
      const { initProject } = await import("./scaffold/index.js");
      try {
        const r = initProject(name, { ...flags, scope: scopeOf(flags) });
        report(r);
        io.out(`next: cd ${r.root} && npm install && npm test`);
      } catch (err) {
        throw new CliError(err instanceof Error ? err.message : String(err));
      }
    });
  const create = program.command("create").description("add to a project made by kubeloop init");
  addApiFlags(create.command("api").description("add a custom resource, its controller and tests, registered in src/main.ts and the RBAC"), true)
    .exitOverride()
    .action(async (flags: ScaffoldFlags) => {
      const { createApi } = await import("./scaffold/index.js");
      try {
        report(createApi({ ...flags, scope: scopeOf(flags) }));
      } catch (err) {
        throw new CliError(err instanceof Error ? err.message : String(err));
      }
    });
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
