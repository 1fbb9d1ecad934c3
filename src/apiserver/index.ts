/**
 * kubeloop/apiserver: the embedded Kubernetes-compatible API server.
 *
 * `startApiServer({ port: 0 })` serves the built-in resources on a loopback port, writes a
 * kubeconfig that stock kubectl accepts, and resolves to `{ url, kubeconfigPath, stop }`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StatusError } from "../apimachinery/errors.js";
import type { Clock } from "../apimachinery/clock.js";
import { builtinStrategies, clusterAPIStrategies } from "./registry/index.js";
import { assertBuiltinsMatchCatalog } from "./registry/catalogcheck.js";
import { decodeProtobufBody, ProtobufDecodeError, UnsupportedProtobufKindError } from "./protobuf/index.js";
import { openAPIV2, openAPIV3GroupVersion, openAPIV3Paths } from "./openapi/index.js";
import { toTable } from "./tables/index.js";
import { ApiServer, type ApiServerConfig } from "./apiserver.js";
import { writeKubeconfig } from "./kubeconfig.js";
import type { ProtobufDecoder } from "./server/body.js";
import type { TableConverter } from "./server/env.js";
import type { Logger } from "./server/server.js";
import { rbacStrategies } from "./rbac/strategies.js";
import { customResourceDefinitionStrategy } from "./crd/crdstrategy.js";
import { kubeconfigForUser, prepareSecurity, type AuthOptions } from "./auth/setup.js";
import type { CertificateAndKey } from "./auth/x509.js";

export { ApiServer, type ApiServerConfig } from "./apiserver.js";
export { kubeconfigFor, writeKubeconfig, type KubeconfigCredentials } from "./kubeconfig.js";
export { MemoryStorage, type MemoryStorageOptions, type StorageListener } from "./storage/memory.js";
export { SqliteStorage, DataDirInUseError, type SqliteStorageOptions, type Durability } from "./storage/sqlite.js";
export { FieldManager, SchemaTypes, type FieldManagerOptions, type TypeNode } from "./ssa/index.js";
export type { Storage, StorageEvent, StorageEventType, StoredObject, StorageWatch, WatchEndReason, ListRequest, ListResult, WatchRequest } from "./storage/interface.js";
export type { Logger } from "./server/server.js";
export { AccessControl, type SecurityOptions, type TLSMaterial } from "./auth/access.js";
export type { AuthOptions } from "./auth/setup.js";
export type { UserInfo } from "./auth/user.js";
export type { PodLogSource, PodLogLine, ContainerInstance } from "./core/podlogs.js";
export type { ResourceMetricsSource, ContainerResourceUsage } from "./core/resourcemetrics.js";
export { parseTokenFile } from "./auth/tokenfile.js";
export { generateCA, issueCertificate, type CertificateAndKey, type LeafOptions, type Validity, type DistinguishedName } from "./auth/x509.js";
export { rbacStrategies } from "./rbac/strategies.js";
// Admission webhooks: the MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins over a
// server's webhook machinery (`{ webhooks: server.webhooks, objects: server.objectInterfaces }`).
export {
  webhookAdmissionPlugins,
  webhookAdmissionRegistrations,
  MutatingWebhookPlugin,
  ValidatingWebhookPlugin,
  type WebhookAdmissionDeps,
  type WebhookAdmissionRegistration,
} from "./admission/webhook/index.js";

export interface StartApiServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Persistence directory: state is kept in SQLite there and survives restarts (absent: in memory). */
  dataDir?: string;
  /** Where to write the kubeconfig (default: a fresh temporary directory, removed on stop). */
  kubeconfigPath?: string;
  logger?: Logger;
  clock?: Clock;
  /** Tuning passed to the server (history size, in-flight cap, watch bookmarks, ...). */
  server?: Omit<ApiServerConfig, "strategies" | "clock" | "logger" | "security">;
  /**
   * Serve plain http instead of HTTPS. client-go sends no credentials over http, so every
   * request without a bearer token runs as `auth.insecureUser` (default kubeloop-admin in
   * system:masters); RBAC and impersonation (kubectl --as) still apply.
   */
  insecureHttp?: boolean;
  /** Static tokens, the insecure-mode identity, anonymous paths, ServiceAccount token issuer. */
  auth?: AuthOptions;
}

export interface RunningApiServer {
  url: string;
  kubeconfigPath: string;
  stop(): Promise<void>;
  /** The server object, for in-process access to storage and resources. */
  server: ApiServer;
  /**
   * HTTPS only: a kubeconfig (YAML text) for `username` in `groups`, authenticating with a
   * client certificate signed by the cluster CA (envtest's AddUser). Undefined on plain http.
   */
  kubeconfigForUser?: (username: string, groups?: readonly string[], namespace?: string) => string;
  /** HTTPS only: the cluster CA (certificate and private key) that signs those client certificates and approved CSRs. */
  clusterCA?: CertificateAndKey;
}

/** The protobuf decoder with its typed errors mapped to 400 / 415 Status errors. */
export const builtinProtobufDecoder: ProtobufDecoder = (body) => {
  try {
    return decodeProtobufBody(body);
  } catch (err: unknown) {
    if (err instanceof UnsupportedProtobufKindError) {
      throw new StatusError({
        message: `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml: ${err.message}`,
        reason: "UnsupportedMediaType",
        code: 415,
      });
    }
    if (err instanceof ProtobufDecodeError) throw StatusError.badRequest(`protobuf decoding error: ${err.message}`);
    throw err;
  }
};

export const builtinTableConverter: TableConverter = (gk, objects, opts) => toTable(gk, objects, opts);

/** The server configuration with every built-in strategy and codec. */
export function builtinServerConfig(overrides: Partial<ApiServerConfig> = {}): ApiServerConfig {
  const strategies = [...builtinStrategies(), ...rbacStrategies(), customResourceDefinitionStrategy, ...clusterAPIStrategies()];
  // Each is the 1.36 resource it stands for, and its bodies are decoded against its 1.36 schema.
  assertBuiltinsMatchCatalog(strategies);
  return {
    strategies,
    decodeProtobuf: builtinProtobufDecoder,
    toTable: builtinTableConverter,
    openapi: { v2: openAPIV2, v3Paths: openAPIV3Paths, v3GroupVersion: openAPIV3GroupVersion },
    ...overrides,
  };
}

export async function startApiServer(options: StartApiServerOptions = {}): Promise<RunningApiServer> {
  const dataDir = options.dataDir ?? options.server?.dataDir;
  const sec = await prepareSecurity({ insecureHttp: options.insecureHttp, dataDir, host: options.host, auth: options.auth });
  const server = new ApiServer(
    builtinServerConfig({ ...options.server, clock: options.clock, logger: options.logger, dataDir, security: sec.security, csrSigningCA: sec.pki?.ca }),
  );
  let url: string;
  try {
    url = await server.start(options.port ?? 0, options.host ?? "127.0.0.1");
  } catch (err) {
    // Release the storage (the data directory's lock) when listening or bootstrapping fails.
    await server.stop();
    throw err;
  }
  let tempDir: string | undefined;
  let kubeconfigPath = options.kubeconfigPath;
  try {
    if (!kubeconfigPath) {
      tempDir = await mkdtemp(join(tmpdir(), "kubeloop-"));
      kubeconfigPath = join(tempDir, "kubeconfig");
    }
    await writeKubeconfig(kubeconfigPath, url, sec.credentials);
  } catch (err) {
    await server.stop();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    url,
    kubeconfigPath,
    server,
    clusterCA: sec.pki?.ca,
    kubeconfigForUser: sec.pki ? (username, groups = [], namespace = "default") => kubeconfigForUser(sec.pki!, url, username, groups, namespace) : undefined,
    stop: () =>
      (stopped ??= (async () => {
        await server.stop();
        if (tempDir) await rm(tempDir, { recursive: true, force: true });
      })()),
  };
}
