/**
 * The flags of `kubeloop up`, `kubeloop apiserver` and `kubeloop controller`, named and defaulted
 * as kube-controller-manager (component-base) and the kubebuilder / controller-runtime scaffold
 * name them, with their parsing and validation. One definition per flag; the commands add the
 * groups they use.
 *
 * Go's flag package accepts `--flag=value`, `--flag value`, `-flag value`; booleans take
 * `--flag`, `--flag=true|false`. Durations are Go durations ("15s", "1m30s", "500ms").
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { parseLogLevel } from "../runtime/logging.js";

// --- value parsers --------------------------------------------------------------------------------

export function parsePort(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError("must be an integer between 0 and 65535");
  const n = Number(v);
  if (n > 65535) throw new InvalidArgumentError("must be an integer between 0 and 65535");
  return n;
}

export function parseWorkers(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1000) throw new InvalidArgumentError("must be an integer between 1 and 1000");
  return Number(v);
}

export function parseMs(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError("must be a number of milliseconds (0 turns it off)");
  return Number(v);
}

/** Go's strconv.ParseBool. */
export function parseBool(v: string): boolean {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(v)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(v)) return false;
  throw new InvalidArgumentError("must be true or false");
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration ("15s", "1m30s", "1.5h", "250ms") in milliseconds; a bare "0" is zero. */
export function parseGoDuration(v: string): number {
  const s = v.trim();
  if (s === "0") return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) throw new InvalidArgumentError(`invalid duration "${v}": want a Go duration such as 15s, 1m30s or 500ms`);
    ms += Number(m[1]) * DURATION_UNITS[m[2]];
    pos = re.lastIndex;
  }
  if (s.length === 0) throw new InvalidArgumentError(`invalid duration "${v}": want a Go duration such as 15s, 1m30s or 500ms`);
  return ms;
}

function parseQps(v: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError("must be a number (a negative value turns client-side throttling off)");
  return n;
}

function parseBurst(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError("must be a positive integer");
  return Number(v);
}

function parseLevel(v: string): string {
  try {
    parseLogLevel(v);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
  return v;
}

/** A boolean flag in Go's style: `--name` is true, `--name=false` turns it off. */
function boolOption(flags: string, description: string, defaultValue: boolean): Option {
  return new Option(`${flags} [bool]`, description).argParser(parseBool).preset("true").default(defaultValue);
}

// --- groups ----------------------------------------------------------------------------------------

export interface LoggingFlags {
  /** -v / --v / --log-level: a level name or a klog verbosity. */
  v: string;
}

/** `-v, --v` (klog verbosity or level name) with `--log-level` as its other name. */
export function addLoggingFlags(cmd: Command, defaultLevel: string): Command {
  return cmd
    .addOption(new Option("-v, --v <level>", "log verbosity: a klog level 0-10 or a level name (trace, debug, info, warn, error, silent)").argParser(parseLevel).default(defaultLevel))
    .addOption(new Option("--log-level <level>", "the same as -v").argParser(parseLevel));
}

/** The level the logging flags ask for (--log-level wins when both are given). */
export function logLevelOf(flags: { v?: string; logLevel?: string }): string | undefined {
  return flags.logLevel ?? flags.v;
}

export interface ClientFlags {
  kubeconfig?: string;
  kubeApiQps: number;
  kubeApiBurst: number;
}

/** kube-controller-manager's defaults for --kube-api-qps / --kube-api-burst. */
export const DEFAULT_KUBE_API_QPS = 20;
export const DEFAULT_KUBE_API_BURST = 30;

export function addClientFlags(cmd: Command): Command {
  return cmd
    .option("--kubeconfig <file>", "kubeconfig file (default: KUBECONFIG, the in-cluster config in a pod, then ~/.kube/config)")
    .addOption(new Option("--kube-api-qps <qps>", "QPS to use while talking with the API server").argParser(parseQps).default(DEFAULT_KUBE_API_QPS))
    .addOption(new Option("--kube-api-burst <n>", "burst to use while talking with the API server").argParser(parseBurst).default(DEFAULT_KUBE_API_BURST));
}

export interface LeaderElectionFlags {
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceName?: string;
  leaderElectResourceNamespace?: string;
  leaderElectReleaseOnCancel: boolean;
}

/** component-base's LeaderElectionConfiguration defaults. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

export function addLeaderElectionFlags(cmd: Command, defaultResourceName: string): Command {
  return cmd
    .addOption(boolOption("--leader-elect", "run only while holding a Lease (for more than one replica)", false))
    .addOption(
      new Option("--leader-elect-lease-duration <duration>", "how long non-leaders wait after observing a renewal before trying to take over")
        .argParser(parseGoDuration)
        .default(DEFAULT_LEASE_DURATION_MS, "15s"),
    )
    .addOption(
      new Option("--leader-elect-renew-deadline <duration>", "how long the leader retries renewing before it gives up leading")
        .argParser(parseGoDuration)
        .default(DEFAULT_RENEW_DEADLINE_MS, "10s"),
    )
    .addOption(
      new Option("--leader-elect-retry-period <duration>", "how long candidates wait between tries to acquire or renew")
        .argParser(parseGoDuration)
        .default(DEFAULT_RETRY_PERIOD_MS, "2s"),
    )
    .option("--leader-elect-resource-name <name>", `name of the Lease (default "${defaultResourceName}")`)
    .option("--leader-elect-resource-namespace <ns>", "namespace of the Lease (default: the namespace this process runs in: the pod's, else the kubeconfig context's)")
    .addOption(boolOption("--leader-elect-release-on-cancel", "give the Lease up on shutdown, so the next replica need not wait it out", true));
}

export class FlagError extends Error {}

export interface LeaderElectionSettings {
  name: string;
  /** undefined: the namespace the process runs in (resolved with the client). */
  namespace?: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  releaseOnCancel: boolean;
}

/** The leader-election settings the flags ask for, validated as kube-controller-manager does; undefined when off. */
export function leaderElectionOf(flags: Partial<LeaderElectionFlags>, defaultResourceName: string): LeaderElectionSettings | undefined {
  if (!flags.leaderElect) return undefined;
  const s: LeaderElectionSettings = {
    name: flags.leaderElectResourceName || defaultResourceName,
    namespace: flags.leaderElectResourceNamespace || undefined,
    leaseDurationMs: flags.leaderElectLeaseDuration ?? DEFAULT_LEASE_DURATION_MS,
    renewDeadlineMs: flags.leaderElectRenewDeadline ?? DEFAULT_RENEW_DEADLINE_MS,
    retryPeriodMs: flags.leaderElectRetryPeriod ?? DEFAULT_RETRY_PERIOD_MS,
    releaseOnCancel: flags.leaderElectReleaseOnCancel ?? true,
  };
  if (s.leaseDurationMs <= 0) throw new FlagError("--leader-elect-lease-duration must be greater than zero");
  if (s.renewDeadlineMs <= 0) throw new FlagError("--leader-elect-renew-deadline must be greater than zero");
  if (s.retryPeriodMs <= 0) throw new FlagError("--leader-elect-retry-period must be greater than zero");
  if (s.leaseDurationMs <= s.renewDeadlineMs) throw new FlagError("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  if (s.renewDeadlineMs <= 1.2 * s.retryPeriodMs) throw new FlagError("--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period");
  return s;
}

export interface ServingFlags {
  metricsBindAddress: string;
  healthProbeBindAddress: string;
}

/** The kubebuilder scaffold's probe address; metrics on :8080 as deploy/ scrapes them. */
export const DEFAULT_METRICS_BIND_ADDRESS = ":8080";
export const DEFAULT_HEALTH_PROBE_BIND_ADDRESS = ":8081";

export function addServingFlags(cmd: Command): Command {
  return cmd
    .option("--metrics-bind-address <addr>", 'serve /metrics here ("0" turns it off)', DEFAULT_METRICS_BIND_ADDRESS)
    .option("--health-probe-bind-address <addr>", 'serve /healthz and /readyz here ("0" turns it off)', DEFAULT_HEALTH_PROBE_BIND_ADDRESS);
}

export interface ServerFlags {
  port: number;
  host: string;
  kubeconfigOut?: string;
  dataDir?: string;
  insecureHttp?: boolean;
  tokenAuthFile?: string;
  /** With --data-dir: start even if the database lost committed writes. */
  acceptDataLoss?: boolean;
}

/** The API server's flags, shared by `apiserver` and `up`. */
export function addServerFlags(cmd: Command, defaultPort: number, portHelp: string): Command {
  return cmd
    .option("--port <n>", portHelp, parsePort, defaultPort)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--kubeconfig-out <file>", "where to write the kubeconfig (default: a temporary file)")
    .option("--data-dir <dir>", "persist state (SQLite) in this directory; default: in memory")
    .option("--insecure-http", "serve plain http (default https); requests without credentials act as kubeloop-admin, since client-go sends none over http")
    .option("--token-auth-file <file>", 'static bearer tokens, CSV lines token,user,uid,"group1,group2"')
    .option("--accept-data-loss", "with --data-dir: start even if the database lost committed writes (see docs/operations.md)");
}
