/**
 * getConfig: the one place a program finds its cluster, in controller-runtime's GetConfig order
 * (sigs.k8s.io/controller-runtime/pkg/client/config):
 *
 *   1. the `--kubeconfig` flag (an explicit file; nothing else is read),
 *   2. the KUBECONFIG variable (its list of files, merged as kubectl merges them),
 *   3. the in-cluster config, when the process runs in a pod (KUBERNETES_SERVICE_HOST/PORT and the
 *      mounted service-account token), tried only when KUBECONFIG is unset or empty,
 *   4. ~/.kube/config.
 *
 * As controller-runtime does, a config with no QPS/burst of its own gets 20 QPS and a burst of 30
 * (client-go's bare default, 5/10, throttles a controller at startup).
 *
 * `KubeClient.fromConfig()` wraps this. The flag is read from `process.argv` when the caller does
 * not pass `kubeconfig` (controller-runtime registers `--kubeconfig` on the global flag set), so a
 * program that never parses flags still honours `--kubeconfig`.
 */
import { ConfigError } from "./errors.js";
import { loadClientConfig, type ClientConfig, type KubeconfigOverrides, type RestConfig } from "./config.js";
import { inClusterConfig, isInCluster, type InClusterOptions } from "./incluster.js";

/** controller-runtime's defaults when the loaded config sets no rate limit. */
export const DEFAULT_CONTROLLER_QPS = 20;
export const DEFAULT_CONTROLLER_BURST = 30;

export type ConfigSource = "kubeconfig-flag" | "KUBECONFIG" | "in-cluster" | "home";

export interface GetConfigOptions extends KubeconfigOverrides {
  /** The --kubeconfig value; when absent it is looked up in `argv`. */
  kubeconfig?: string;
  /** Where `--kubeconfig FILE` / `--kubeconfig=FILE` is looked up (default process.argv.slice(2); [] to ignore). */
  argv?: readonly string[];
  /** Environment (default process.env): KUBECONFIG and the in-cluster service variables. */
  env?: Record<string, string | undefined>;
  /** Home directory for ~/.kube/config (default os.homedir()). */
  homeDir?: string;
  /** Where the in-cluster token, CA and namespace are read from (tests). */
  inCluster?: Omit<InClusterOptions, "env" | "rest">;
  /** Settings copied into the RestConfig (qps, burst, clock, userAgent…); an unset qps gets 20/30. */
  rest?: Partial<Omit<RestConfig, "host">>;
}

export interface ResolvedClientConfig extends ClientConfig {
  /** Which rule produced the config. */
  source: ConfigSource;
}

/** The value of `--kubeconfig` in an argument list (Go flag syntax: `--kubeconfig F`, `--kubeconfig=F`, one dash too). */
export function kubeconfigFlag(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    const m = /^--?kubeconfig(?:=(.*))?$/.exec(a);
    if (!m) continue;
    found = m[1] ?? argv[i + 1];
    if (m[1] === undefined) i++;
  }
  return found;
}

function withRateDefaults(cc: ClientConfig, rest: GetConfigOptions["rest"]): ClientConfig {
  const config: RestConfig = { ...rest, ...cc.config };
  if (!config.rateLimiter && (config.qps === undefined || config.qps === 0)) {
    config.qps = DEFAULT_CONTROLLER_QPS;
    config.burst = config.burst || DEFAULT_CONTROLLER_BURST;
  }
  return { ...cc, config };
}

/**
 * Resolves the cluster configuration in controller-runtime's order (see the module comment).
 * Throws ConfigError; when nothing is found, the message names every place that was tried.
 */
export function getConfig(opts: GetConfigOptions = {}): ResolvedClientConfig {
  const env = opts.env ?? process.env;
  const overrides: KubeconfigOverrides = { context: opts.context, cluster: opts.cluster, user: opts.user, namespace: opts.namespace, server: opts.server };
  const flag = opts.kubeconfig || kubeconfigFlag(opts.argv ?? process.argv.slice(2));
  if (flag) {
    const cc = loadClientConfig({ ...overrides, kubeconfigPath: flag });
    return { ...withRateDefaults(cc, opts.rest), source: "kubeconfig-flag" };
  }
  const kubeconfigEnv = env.KUBECONFIG ?? "";
  let inClusterError: ConfigError | undefined;
  if (kubeconfigEnv === "") {
    if (isInCluster(env)) {
      try {
        const cc = inClusterConfig({ ...opts.inCluster, env });
        if (opts.namespace) cc.namespace = opts.namespace;
        return { ...withRateDefaults(cc, opts.rest), source: "in-cluster" };
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        inClusterError = err;
      }
    }
  }
  try {
    const cc = loadClientConfig({ ...overrides, kubeconfigEnv, homeDir: opts.homeDir });
    return { ...withRateDefaults(cc, opts.rest), source: kubeconfigEnv === "" ? "home" : "KUBECONFIG" };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    if (err.reason === "EmptyConfig") {
      const tried = kubeconfigEnv === "" ? ["--kubeconfig (not set)", "KUBECONFIG (not set)", inClusterError ? `in-cluster (${inClusterError.message})` : "in-cluster (not in a pod)", "~/.kube/config (missing or empty)"] : [`KUBECONFIG=${kubeconfigEnv} (no configuration in those files)`];
      throw new ConfigError("EmptyConfig", `no cluster configuration found: tried ${tried.join(", ")}`, { cause: err });
    }
    throw err;
  }
}
