#!/usr/bin/env node
/**
 * The `kubeloop` command.
 *
 *   kubeloop apiserver [--port N] [--host H] [--kubeconfig-out FILE] [--insecure-http] [--token-auth-file F]
 *   kubeloop up [--port N] [--host H] [--data-dir DIR] [--kubeconfig-out FILE] [--no-demo]
 *
 * Both run until SIGINT/SIGTERM and stop cleanly. Bad input prints one line and exits non-zero.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import type { RunningApiServer } from "../apiserver/index.js";

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopSignal(): Promise<string>;
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

async function serve(io: CliIO, mode: "apiserver" | "up", opts: ServeOptions): Promise<void> {
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
  if (mode === "up") {
    io.out("controllers (deployment, replicaset, garbage collector, simulated kubelet) are not part of this release yet: only the API server runs");
  }
  io.out(`kubeconfig: ${running.kubeconfigPath}`);
  io.out(`try: kubectl --kubeconfig ${running.kubeconfigPath} get namespaces`);
  const signal = await io.stopSignal();
  io.out(`received ${signal}, stopping`);
  await running.stop();
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
    .action(async (opts: ServeOptions) => serve(io, "apiserver", opts));

  common(program.command("up").description("run the control plane (API server; controllers come in later releases)"))
    .option("--no-demo", "do not create the demo objects")
    .exitOverride()
    .action(async (opts: ServeOptions) => serve(io, "up", opts));

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
