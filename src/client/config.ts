/**
 * RestConfig — what a client needs to talk to one API server (client-go's rest.Config) — and its
 * construction from a kubeconfig (client-go's clientcmd DirectClientConfig).
 */
import type { Clock } from "../apimachinery/clock.js";
import { ConfigError } from "./errors.js";
import type { CredentialProvider } from "./auth.js";
import {
  loadKubeconfig,
  type ExecConfig,
  type Kubeconfig,
  type KubeconfigCluster,
  type KubeconfigLoadOptions,
  type KubeconfigUser,
} from "./kubeconfig.js";
import type { RequestRateLimiter } from "./ratelimit.js";
import type { WarningHandler } from "./warnings.js";
import type { Registry } from "prom-client";

export interface TLSClientConfig {
  /** PEM CA bundle; takes precedence over caFile. */
  caData?: string | Buffer;
  caFile?: string;
  /** PEM client certificate; takes precedence over certFile. */
  certData?: string | Buffer;
  certFile?: string;
  keyData?: string | Buffer;
  keyFile?: string;
  /** SNI and the name the server certificate is checked against (tls-server-name). */
  serverName?: string;
  /** insecure-skip-tls-verify: do not verify the server certificate. */
  insecure?: boolean;
}

export interface ImpersonationConfig {
  userName?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Cluster facts handed to an exec plugin when provideClusterInfo is set (ExecCredential spec.cluster). */
export interface ExecClusterInfo {
  server: string;
  tlsServerName?: string;
  insecureSkipTlsVerify?: boolean;
  certificateAuthorityData?: Buffer;
  proxyUrl?: string;
  disableCompression?: boolean;
  /** The cluster's `client.authentication.k8s.io/exec` extension. */
  config?: unknown;
}

export interface RestExecConfig extends ExecConfig {
  /** Extra data for provideClusterInfo (the cluster's exec extension). */
  clusterConfig?: unknown;
}

export interface RestConfig {
  /** Server URL, e.g. "https://127.0.0.1:6443"; a path suffix is a prefix for every request. */
  host: string;
  tls?: TLSClientConfig;
  bearerToken?: string;
  /** Re-read when it changes (see auth.ts); wins over bearerToken while readable. */
  bearerTokenFile?: string;
  username?: string;
  password?: string;
  exec?: RestExecConfig;
  /** A custom credential source; replaces token/basic/exec when set. */
  credentials?: CredentialProvider;
  impersonate?: ImpersonationConfig;
  /** http://, https:// or socks5:// proxy for every request. */
  proxyUrl?: string;
  /** Defaults to `kubeloop/<version> (<os>/<arch>)`. */
  userAgent?: string;
  /** Client-side rate limit; 0/absent → 5 QPS, burst 10 (client-go's defaults); negative → unlimited. */
  qps?: number;
  burst?: number;
  rateLimiter?: RequestRateLimiter;
  /** Per-request timeout in ms (client-go's Config.Timeout); 0/absent → none. Watches are exempt. */
  timeoutMs?: number;
  /** Retries on 429/5xx with Retry-After (and connection resets for GET); default 10 as in client-go. */
  maxRetries?: number;
  clock?: Clock;
  warningHandler?: WarningHandler;
  /** Where rest_client_* metrics go (default prom-client's global registry); false: none. */
  metricsRegistry?: Registry | false;
}

/** Overrides applied on top of a kubeconfig (kubectl's --context, --cluster, --user, --namespace, --server). */
export interface KubeconfigOverrides {
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  server?: string;
}

export interface ClientConfigOptions extends KubeconfigLoadOptions, KubeconfigOverrides {
  /** An already loaded kubeconfig; when set no file is read. */
  kubeconfig?: Kubeconfig;
  /** Settings copied into the resulting RestConfig (qps, burst, clock, userAgent…). */
  rest?: Partial<Omit<RestConfig, "host">>;
}

export interface ClientConfig {
  config: RestConfig;
  /** The namespace the context selects, "default" when it names none. */
  namespace: string;
  /** The name of the context used. */
  contextName: string;
}

const EMPTY_CONFIG_MESSAGE = "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable";

function isEmpty(kc: Kubeconfig): boolean {
  return kc.clusters.size === 0 && kc.users.size === 0 && kc.contexts.size === 0 && kc.currentContext === "";
}

function execConfigFor(user: KubeconfigUser, userName: string, cluster: KubeconfigCluster): RestExecConfig | undefined {
  const exec = user.exec;
  if (!exec) return undefined;
  if (exec.apiVersion === "client.authentication.k8s.io/v1" && exec.interactiveMode === undefined) {
    throw new ConfigError("Invalid", `interactiveMode must be specified for ${userName} to use exec authentication plugin`);
  }
  const out: RestExecConfig = { ...exec };
  const ext = cluster.extensions["client.authentication.k8s.io/exec"];
  if (ext !== undefined) out.clusterConfig = ext;
  return out;
}

/**
 * Builds the RestConfig of one context of a (loaded, merged, path-resolved) kubeconfig.
 *
 * As clientcmd does, user credentials (token, certificates, basic auth, exec, impersonation) are
 * applied only when the server URL is https: client-go never sends them over plain http.
 */
export function restConfigFromKubeconfig(kc: Kubeconfig, overrides: KubeconfigOverrides = {}): ClientConfig {
  if (isEmpty(kc) && !overrides.server) throw new ConfigError("EmptyConfig", EMPTY_CONFIG_MESSAGE);
  const contextName = overrides.context || kc.currentContext;
  if (!contextName && !overrides.server) {
    throw new ConfigError("NoCurrentContext", "invalid configuration: current-context is not set and no context was given");
  }
  const ctx = contextName ? kc.contexts.get(contextName) : undefined;
  if (contextName && !ctx) {
    throw new ConfigError("ContextNotFound", `context was not found for specified context: ${contextName}`);
  }
  const clusterName = overrides.cluster || ctx?.cluster || "";
  const userName = overrides.user || ctx?.user || "";
  let cluster: KubeconfigCluster | undefined;
  if (clusterName) {
    cluster = kc.clusters.get(clusterName);
    if (!cluster) {
      throw new ConfigError("ClusterNotFound", `cluster "${clusterName}" (of context "${contextName}") does not exist in the kubeconfig`);
    }
  }
  let user: KubeconfigUser | undefined;
  if (userName) {
    user = kc.users.get(userName);
    if (!user) throw new ConfigError("UserNotFound", `user "${userName}" (of context "${contextName}") does not exist in the kubeconfig`);
  }
  const server = overrides.server || cluster?.server || "";
  if (!server) throw new ConfigError("Invalid", `invalid configuration: cluster has no server defined`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new ConfigError("Invalid", `invalid configuration: server "${server}" is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError("Invalid", `invalid configuration: server "${server}" must be an http or https URL`);
  }

  const config: RestConfig = { host: server };
  if (cluster) {
    const tls: TLSClientConfig = {};
    if (cluster.insecureSkipTlsVerify) tls.insecure = true;
    if (cluster.certificateAuthorityData) tls.caData = cluster.certificateAuthorityData;
    else if (cluster.certificateAuthority) tls.caFile = cluster.certificateAuthority;
    if (cluster.tlsServerName) tls.serverName = cluster.tlsServerName;
    if (tls.insecure && (tls.caData || tls.caFile)) {
      throw new ConfigError("Invalid", "specifying a root certificates file with the insecure flag is not allowed");
    }
    if (Object.keys(tls).length > 0) config.tls = tls;
    if (cluster.proxyUrl) config.proxyUrl = cluster.proxyUrl;
  }

  if (user && url.protocol === "https:") {
    if (user.authProvider) {
      throw new ConfigError(
        "Invalid",
        `auth-provider "${user.authProvider.name}" (user "${userName}") is not supported; use an exec credential plugin`,
      );
    }
    if (user.token) config.bearerToken = user.token;
    if (user.tokenFile) config.bearerTokenFile = user.tokenFile;
    if (user.username || user.password) {
      if (config.bearerToken || config.bearerTokenFile) {
        throw new ConfigError("Invalid", `user "${userName}": username/password or bearer token may be set, but not both`);
      }
      if (user.username) config.username = user.username;
      if (user.password) config.password = user.password;
    }
    const tls: TLSClientConfig = config.tls ?? {};
    if (user.clientCertificateData) tls.certData = user.clientCertificateData;
    else if (user.clientCertificate) tls.certFile = user.clientCertificate;
    if (user.clientKeyData) tls.keyData = user.clientKeyData;
    else if (user.clientKey) tls.keyFile = user.clientKey;
    if ((tls.certData || tls.certFile) !== undefined && !(tls.keyData || tls.keyFile)) {
      throw new ConfigError("Invalid", `user "${userName}": client-cert specified without client-key`);
    }
    if (!(tls.certData || tls.certFile) && (tls.keyData || tls.keyFile)) {
      throw new ConfigError("Invalid", `user "${userName}": client-key specified without client-cert`);
    }
    if (Object.keys(tls).length > 0) config.tls = tls;
    if (user.impersonate || user.impersonateGroups.length > 0 || Object.keys(user.impersonateUserExtra).length > 0) {
      const imp: ImpersonationConfig = {};
      if (user.impersonate) imp.userName = user.impersonate;
      if (user.impersonateUid) imp.uid = user.impersonateUid;
      if (user.impersonateGroups.length > 0) imp.groups = [...user.impersonateGroups];
      if (Object.keys(user.impersonateUserExtra).length > 0) imp.extra = { ...user.impersonateUserExtra };
      config.impersonate = imp;
    }
    if (cluster) {
      const exec = execConfigFor(user, userName, cluster);
      if (exec) config.exec = exec;
    }
  }

  return { config, namespace: overrides.namespace || ctx?.namespace || "default", contextName };
}

/** The cluster information an exec plugin gets with provideClusterInfo (client-go's ConfigToExecCluster). */
export function execClusterInfo(config: RestConfig, caData: Buffer | undefined): ExecClusterInfo {
  const info: ExecClusterInfo = { server: config.host };
  if (config.tls?.serverName) info.tlsServerName = config.tls.serverName;
  if (config.tls?.insecure) info.insecureSkipTlsVerify = true;
  if (caData) info.certificateAuthorityData = caData;
  if (config.proxyUrl) info.proxyUrl = config.proxyUrl;
  if (config.exec?.clusterConfig !== undefined) info.config = config.exec.clusterConfig;
  return info;
}

/**
 * Loads the kubeconfig as kubectl does (explicit path, KUBECONFIG list or ~/.kube/config; see
 * kubeconfig.ts) and builds the RestConfig of the selected context. Throws `ConfigError`.
 */
export function loadClientConfig(opts: ClientConfigOptions = {}): ClientConfig {
  const kc = opts.kubeconfig ?? loadKubeconfig(opts).config;
  const cc = restConfigFromKubeconfig(kc, opts);
  if (opts.rest) cc.config = { ...opts.rest, ...cc.config };
  return cc;
}
