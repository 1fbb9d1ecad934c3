/**
 * What a simulated container does: runs for a while and exits with a code, or runs forever.
 *
 * The simulated kubelet runs no processes; it reads each container's intent from two places.
 *
 * 1. Pod annotations (they win, and apply to every regular container of the pod):
 *
 *    | annotation                     | value                      | default |
 *    |--------------------------------|----------------------------|---------|
 *    | `sim.kubeloop.dev/exit-code`   | integer 0–255              | 0       |
 *    | `sim.kubeloop.dev/run-seconds` | seconds (decimal) ≥ 0      | 0       |
 *
 *    Either one makes the containers finite: they run `run-seconds`, then exit with `exit-code`.
 *    An invalid value is reported and ignored.
 *
 * 2. The container's command and args, when they are a script of simple commands the simulator
 *    understands — `sh -c "<script>"` (also bash, ash, dash, any path, `-c`, `-ec`, `-xc` …) or
 *    the command itself:
 *
 *    | command                       | effect                                  |
 *    |-------------------------------|-----------------------------------------|
 *    | `true`, `:`                   | exit status 0                           |
 *    | `false`                       | exit status 1                           |
 *    | `exit N` (`exit`: last status)| stops the script with status N          |
 *    | `sleep N` (N s, or Ns/Nm/Nh)  | N more seconds of running, status 0     |
 *    | `echo`, `printf`, `date`, `env`, `printenv`, `hostname`, `pwd`, `id`, `whoami` | status 0 |
 *
 *    joined by `;`, newlines, `&&` and `||` (with the shell's short-circuit rules). The script
 *    runs for the sum of its sleeps and exits with the status of the last command run.
 *
 * Anything else — no command at all (the image's entrypoint), an unknown command, pipes, command
 * substitution — runs forever, as every container did before: Deployments' pods are unaffected.
 * Init containers that run forever would block their pod for good, so an init container whose
 * intent is unknown completes at once with 0 (the simulator's behaviour before programs).
 */
import type { Container, Pod } from "../../apimachinery/api/core/v1.js";

export const EXIT_CODE_ANNOTATION = "sim.kubeloop.dev/exit-code";
export const RUN_SECONDS_ANNOTATION = "sim.kubeloop.dev/run-seconds";

/** A container's simulated run. */
export type Program = { kind: "finite"; runMs: number; exitCode: number } | { kind: "forever" };

export const FOREVER: Program = Object.freeze({ kind: "forever" });

export class InvalidProgramAnnotationError extends Error {
  constructor(
    readonly annotation: string,
    readonly value: string,
    want: string,
  ) {
    super(`invalid ${annotation} annotation ${JSON.stringify(value)}: want ${want}`);
    this.name = "InvalidProgramAnnotationError";
  }
}

const SHELLS = new Set(["sh", "bash", "ash", "dash", "zsh", "ksh"]);
const INSTANT = new Set(["echo", "printf", "date", "env", "printenv", "hostname", "pwd", "id", "whoami", "true", ":"]);

function basename(p: string): string {
  const i = p.lastIndexOf("/");
  return i < 0 ? p : p.slice(i + 1);
}

/** Seconds of a `sleep` operand (GNU suffixes s, m, h, d); undefined when not a duration. */
function sleepSeconds(arg: string): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)([smhd]?)$/.exec(arg);
  if (!m) return undefined;
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2]] ?? 1;
  return Number(m[1]) * unit;
}

/** Splits a simple command into words, removing one level of single or double quotes. */
function words(command: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(command); m; m = re.exec(command)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

type Step = { status: number; seconds: number; exit: boolean; output?: string[] } | undefined;

/** What a script's output depends on: the container's environment and the pod's hostname. */
export interface ScriptContext {
  env?: Readonly<Record<string, string>>;
  hostname?: string;
  /**
   * Stop at the first command the simulator does not know and answer what ran until then
   * (`complete: false`) instead of undefined: the lines a container that then runs forever
   * (`echo ready; sleep infinity`) has written.
   */
  partial?: boolean;
}

/** One line a script writes, `atMs` after the container started. */
export interface OutputLine {
  atMs: number;
  text: string;
}

/** `$VAR` and `${VAR}` from the context (HOSTNAME included); unknown variables are empty, as in sh. */
function expand(word: string, ctx: ScriptContext): string {
  const vars: Record<string, string> = { ...(ctx.hostname !== undefined ? { HOSTNAME: ctx.hostname } : {}), ...ctx.env };
  return word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, b: string | undefined) => vars[a ?? b ?? ""] ?? "");
}

/** What echo and printf (a format with %s and the usual escapes) write; undefined for other commands. */
function commandOutput(cmd: string, args: readonly string[], ctx: ScriptContext): string[] | undefined {
  if (cmd === "echo") {
    let rest = args;
    let newline = true;
    while (rest[0] === "-n" || rest[0] === "-e" || rest[0] === "-E") {
      if (rest[0] === "-n") newline = false;
      rest = rest.slice(1);
    }
    const text = rest.join(" ");
    return newline ? text.split("\n") : text === "" ? [] : text.split("\n");
  }
  if (cmd === "printf") {
    if (args.length === 0) return [];
    let i = 1;
    const text = args[0].replace(/%s|%d|\\n|\\t|%%/g, (m) => (m === "\\n" ? "\n" : m === "\\t" ? "\t" : m === "%%" ? "%" : (args[i++] ?? "")));
    const lines = text.split("\n");
    // printf writes no newline of its own: a final partial line still shows.
    if (lines[lines.length - 1] === "") lines.pop();
    return lines;
  }
  if (cmd === "hostname") return ctx.hostname !== undefined ? [ctx.hostname] : undefined;
  if (cmd === "pwd") return ["/"];
  if (cmd === "whoami") return ["root"];
  return undefined;
}

/** One simple command's effect; undefined when the simulator does not know it. */
function simpleCommand(argv: readonly string[], lastStatus: number, ctx: ScriptContext = {}): Step {
  if (argv.length === 0) return { status: lastStatus, seconds: 0, exit: false };
  const cmd = basename(argv[0]);
  if (cmd === "false") return { status: 1, seconds: 0, exit: false };
  if (cmd === "exit") {
    if (argv.length === 1) return { status: lastStatus, seconds: 0, exit: true };
    if (!/^[0-9]+$/.test(argv[1])) return undefined;
    return { status: Number(argv[1]) % 256, seconds: 0, exit: true };
  }
  if (cmd === "sleep") {
    let seconds = 0;
    if (argv.length < 2) return undefined;
    for (const a of argv.slice(1)) {
      const s = sleepSeconds(a);
      if (s === undefined) return undefined;
      seconds += s;
    }
    return { status: 0, seconds, exit: false };
  }
  if (INSTANT.has(cmd)) {
    const output = commandOutput(cmd, argv.slice(1).map((a) => expand(a, ctx)), ctx);
    return { status: 0, seconds: 0, exit: false, ...(output ? { output } : {}) };
  }
  return undefined;
}

/** Runs a script of simple commands joined by ; && || and newlines; undefined when unknown. */
export function runScript(script: string): { runMs: number; exitCode: number } | undefined {
  const r = interpretScript(script);
  return r ? { runMs: r.runMs, exitCode: r.exitCode } : undefined;
}

/**
 * runScript with the lines the script writes (echo, printf, hostname, pwd, whoami; `$VAR`
 * expanded from `ctx`), each at the time it is written: after the sleeps before it. Output
 * redirected with `>` is not written.
 */
export function interpretScript(script: string, ctx: ScriptContext = {}): { runMs: number; exitCode: number; output: OutputLine[]; complete: boolean } | undefined {
  const unknown = (text: string) => /[|`<(){}]|\$\(/.test(text.replace(/\|\|/g, "").replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, ""));
  if (!ctx.partial && unknown(script)) return undefined;
  const parts = script.split(/(&&|\|\||;|\n)/);
  let status = 0;
  let seconds = 0;
  let skip = false;
  const output: OutputLine[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const redirected = />\s*\S+/.test(parts[i]);
    const text = parts[i].replace(/>\s*\S+/g, "").trim();
    const argv = words(text);
    if (!skip) {
      const step = unknown(parts[i]) ? undefined : simpleCommand(argv, status, ctx);
      if (!step) return ctx.partial ? { runMs: Math.round(seconds * 1000), exitCode: status, output, complete: false } : undefined;
      status = step.status;
      if (step.output && !redirected) for (const line of step.output) output.push({ atMs: Math.round(seconds * 1000), text: line });
      seconds += step.seconds;
      if (step.exit) break;
    } else if (argv.length > 0 && !simpleCommand(argv, status, ctx)) {
      // A skipped unknown command still makes the script unknown (it could be reached otherwise).
      if (ctx.partial) return { runMs: Math.round(seconds * 1000), exitCode: status, output, complete: false };
      return undefined;
    }
    const op = parts[i + 1];
    skip = op === "&&" ? status !== 0 : op === "||" ? status === 0 : false;
  }
  return { runMs: Math.round(seconds * 1000), exitCode: status, output, complete: true };
}

/** The script a container runs: the `-c` operand of a shell, or its command and args joined; undefined for a shell without -c. */
export function containerScript(container: Container): string | undefined {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  if (argv.length === 0) return undefined;
  if (SHELLS.has(basename(argv[0]))) return argv.length >= 3 && /^-[a-z]*c[a-z]*$/.test(argv[1]) ? argv[2] : undefined;
  return argv.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(" ");
}

/** The program a container's command and args describe (FOREVER when unknown). */
export function programOf(container: Container): Program {
  const script = containerScript(container);
  const r = script === undefined ? undefined : runScript(script);
  return r ? { kind: "finite", ...r } : FOREVER;
}

/**
 * The pod-level program of the annotations, if either is set; invalid values are reported
 * through `onInvalid` and ignored.
 */
export function annotationProgram(pod: Pod, onInvalid?: (err: InvalidProgramAnnotationError) => void): Program | undefined {
  const a = pod.metadata?.annotations ?? {};
  let exitCode: number | undefined;
  let runMs: number | undefined;
  const code = a[EXIT_CODE_ANNOTATION];
  if (code !== undefined) {
    if (/^\s*[0-9]{1,3}\s*$/.test(code) && Number(code) <= 255) exitCode = Number(code);
    else onInvalid?.(new InvalidProgramAnnotationError(EXIT_CODE_ANNOTATION, code, "an integer from 0 to 255"));
  }
  const run = a[RUN_SECONDS_ANNOTATION];
  if (run !== undefined) {
    if (/^\s*[0-9]+(\.[0-9]+)?\s*$/.test(run)) runMs = Math.round(Number(run) * 1000);
    else onInvalid?.(new InvalidProgramAnnotationError(RUN_SECONDS_ANNOTATION, run, "a non-negative number of seconds"));
  }
  if (exitCode === undefined && runMs === undefined) return undefined;
  return { kind: "finite", runMs: runMs ?? 0, exitCode: exitCode ?? 0 };
}

/** The sidecar form of an init container (restartPolicy Always): it runs beside the pod's containers. */
export function isSidecar(c: Container): boolean {
  return c.restartPolicy === "Always";
}

export interface PodPrograms {
  /** Regular containers, by name. */
  containers: Map<string, Program>;
  /** Sidecars (init containers with restartPolicy Always), by name: what they run (usually forever). */
  sidecars: Map<string, Program>;
  /** Init containers (sidecars excluded), by name: always finite. */
  initContainers: Map<string, Program & { kind: "finite" }>;
}

/**
 * The programs of a pod's containers, or undefined when the pod has no finite regular container
 * and no init container with a known program — the pod then runs as it always did — unless
 * `always` (the pod has probes, sidecars or an active deadline, which only the container state
 * machine models).
 */
export function podPrograms(pod: Pod, onInvalid?: (err: InvalidProgramAnnotationError) => void, always = false): PodPrograms | undefined {
  const fromAnnotations = annotationProgram(pod, onInvalid);
  const containers = new Map<string, Program>();
  let finite = false;
  for (const c of pod.spec?.containers ?? []) {
    const p = fromAnnotations ?? programOf(c);
    if (p.kind === "finite") finite = true;
    containers.set(c.name, p);
  }
  const initContainers = new Map<string, Program & { kind: "finite" }>();
  const sidecars = new Map<string, Program>();
  for (const c of pod.spec?.initContainers ?? []) {
    if (isSidecar(c)) {
      sidecars.set(c.name, programOf(c));
      continue;
    }
    const p = programOf(c);
    if (p.kind === "finite") {
      finite = true;
      initContainers.set(c.name, p);
    } else {
      initContainers.set(c.name, { kind: "finite", runMs: 0, exitCode: 0 });
    }
  }
  return finite || always || sidecars.size > 0 ? { containers, sidecars, initContainers } : undefined;
}
