/**
 * In-cluster configuration (client-go's rest.InClusterConfig): the API server from
 * KUBERNETES_SERVICE_HOST/PORT, the service-account token (re-read as the kubelet rotates it),
 * the cluster CA and the pod's namespace from the mounted service-account directory.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "./errors.js";
import type { ClientConfig, RestConfig } from "./config.js";

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface InClusterOptions {
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Directory holding token, ca.crt and namespace; defaults to SERVICE_ACCOUNT_DIR. */
  serviceAccountDir?: string;
  tokenFile?: string;
  caFile?: string;
  namespaceFile?: string;
  /** Settings copied into the RestConfig (qps, burst, clock…). */
  rest?: Partial<Omit<RestConfig, "host">>;
}

/** True when running in a pod (the service env variables are set). */
export function isInCluster(env: Record<string, string | undefined> = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT);
}

export function inClusterConfig(opts: InClusterOptions = {}): ClientConfig {
  const env = opts.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new ConfigError(
      "NotInCluster",
      "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined",
    );
  }
  const dir = opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const tokenFile = opts.tokenFile ?? path.join(dir, "token");
  const caFile = opts.caFile ?? path.join(dir, "ca.crt");
  const namespaceFile = opts.namespaceFile ?? path.join(dir, "namespace");

  // The token must be readable now (client-go fails fast); it is re-read on use afterwards.
  let token: string;
  try {
    token = readFileSync(tokenFile, "utf8").trim();
  } catch (e) {
    throw new ConfigError("FileNotFound", `unable to read service account token ${tokenFile}: ${(e as Error).message}`, {
      path: tokenFile,
      cause: e,
    });
  }
  // Bracket IPv6 literals (net.JoinHostPort).
  const hostPart = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const config: RestConfig = { ...opts.rest, host: `https://${hostPart}:${port}`, bearerToken: token, bearerTokenFile: tokenFile };
  // A missing CA is not fatal upstream (it logs and falls back to the system roots).
  if (existsSync(caFile)) config.tls = { caFile };
  // clientcmd's inClusterClientConfig: POD_NAMESPACE, then the namespace file, then "default".
  let namespace = env.POD_NAMESPACE || "default";
  if (!env.POD_NAMESPACE) try {
    const ns = readFileSync(namespaceFile, "utf8").trim();
    if (ns) namespace = ns;
  } catch {
    // no namespace file: keep "default"
  }
  return { config, namespace, contextName: "" };
}
