/**
 * The webhook part of `startTestEnv()`, in the manner of envtest's WebhookInstallOptions: the
 * test's admission handlers are registered on a runtime `WebhookServer` that the environment
 * serves on a free loopback port, with a throw-away CA and a serving certificate written to a
 * temporary certificate directory (`tls.crt`, `tls.key`, `ca.crt` — controller-runtime's CertDir
 * layout); the webhook configurations — given as objects, read from YAML files such as deploy/'s,
 * or, when none are given, generated from the server's handlers — are rewritten to call that
 * server (a `clientConfig.service` becomes `url: https://<host>:<port><service.path>`, as envtest
 * does, and every `caBundle` becomes the generated CA), installed, and awaited until the API
 * server's admission chain sees them.
 *
 * Invariant: once `installTestEnvWebhooks` resolves, every installed configuration is in the
 * admission chain's view (the server's watch-fed webhook cache has caught up with the writes), so
 * the next request is admitted by them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig } from "../apimachinery/api/admissionregistration/v1.js";
import type { KubeObject } from "../apimachinery/types.js";
import type { ApiServer } from "../apiserver/apiserver.js";
import type { KubeClient } from "../client/kubeclient.js";
import type { Logger } from "../runtime/logging.js";
import { generateServingCertificate } from "../runtime/webhook/certs.js";
import { mutatingWebhookConfigurations, validatingWebhookConfigurations, webhookConfigurations } from "../runtime/webhook/install.js";
import { WebhookServer } from "../runtime/webhook/server.js";
import type { Registry } from "prom-client";
import { TestEnvError } from "./testenverror.js";

/** What `startTestEnv({ webhooks })` takes (envtest's WebhookInstallOptions). */
export interface TestEnvWebhookOptions {
  /** Registers the test's handlers on the environment's webhook server (e.g. `addApplicationWebhooks`). */
  setup?: (server: WebhookServer) => void;
  /** MutatingWebhookConfigurations to install (their clientConfig is rewritten to the server). */
  mutating?: readonly MutatingWebhookConfiguration[];
  /** ValidatingWebhookConfigurations to install (their clientConfig is rewritten to the server). */
  validating?: readonly ValidatingWebhookConfiguration[];
  /** Files or directories of YAML webhook configurations (documents of other kinds are skipped). */
  paths?: readonly string[];
  /**
   * With no configurations given (mutating, validating, paths), the environment installs the ones
   * `webhookConfigurations(server)` generates from the handlers, named `<name>-mutating` /
   * `<name>-validating` (default "kubeloop-testenv-webhooks").
   */
  name?: string;
  /** The serving address (default 127.0.0.1, in the certificate with localhost and ::1). */
  host?: string;
  /** The serving port (default 0: a free one). */
  port?: number;
}

/** What the environment hands back about its webhook server (envtest's LocalServing*). */
export interface TestEnvWebhooks {
  /** The running server (started and stopped by the environment). */
  server: WebhookServer;
  host: string;
  port: number;
  /** `https://<host>:<port>`. */
  url: string;
  /** The directory with `tls.crt`, `tls.key` and `ca.crt` (removed on stop). */
  certDir: string;
  /** The generated CA, PEM (its base64 is every installed caBundle). */
  caPem: string;
  /** Names of the configurations installed. */
  mutating: string[];
  validating: string[];
}

export type WebhookConfiguration = MutatingWebhookConfiguration | ValidatingWebhookConfiguration;
type Configuration = WebhookConfiguration;

/** A copy of `cc` pointing at `base` with `caBundle` (envtest's updateClientConfig). */
export function rewriteClientConfig(cc: WebhookClientConfig | undefined, base: string, caBundle: string): WebhookClientConfig {
  if (cc?.service) return { url: `${base}${cc.service.path ?? "/"}`, caBundle };
  if (cc?.url !== undefined) return { url: cc.url, caBundle };
  return { url: `${base}/`, caBundle };
}

/** `config` with every webhook's clientConfig rewritten (a copy; the input is not changed). */
export function pointAtServer<C extends Configuration>(config: C, base: string, caBundle: string): C {
  const copy = structuredClone(config);
  for (const w of copy.webhooks ?? []) w.clientConfig = rewriteClientConfig(w.clientConfig, base, caBundle);
  return copy;
}

export interface InstallDeps {
  client: KubeClient;
  server: ApiServer;
  /** Webhook configuration documents read from `paths` (already filtered by kind). */
  fromFiles: readonly Configuration[];
  registry: Registry;
  logger: Logger;
  signal?: AbortSignal;
}

/** Starts the webhook server and installs its configurations; `stop()` undoes both. */
export async function installTestEnvWebhooks(opts: TestEnvWebhookOptions, deps: InstallDeps): Promise<{ webhooks: TestEnvWebhooks; stop(): Promise<void> }> {
  const host = opts.host ?? "127.0.0.1";
  const certDir = await mkdtemp(join(tmpdir(), "kubeloop-testenv-webhook-"));
  let server: WebhookServer | undefined;
  const stop = async () => {
    await server?.stop();
    await rm(certDir, { recursive: true, force: true });
  };
  try {
    const cert = generateServingCertificate(isIP(host) ? { ipAddresses: [host] } : { dnsNames: [host] });
    const caPem = cert.caPem!;
    await Promise.all([writeFile(join(certDir, "tls.crt"), cert.certPem), writeFile(join(certDir, "tls.key"), cert.keyPem, { mode: 0o600 }), writeFile(join(certDir, "ca.crt"), caPem)]);
    server = new WebhookServer({ host, port: opts.port ?? 0, certDir, registry: deps.registry, logger: deps.logger });
    opts.setup?.(server);
    await server.start();
    const port = server.port!;
    const url = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
    const caBundle = Buffer.from(caPem).toString("base64");

    const flavor = (c: Configuration, d: "mutating" | "validating") => ({ config: c, mutating: (c.kind ?? (d === "mutating" ? "MutatingWebhookConfiguration" : "")) === "MutatingWebhookConfiguration" });
    const given = [
      ...(opts.mutating ?? []).map((c) => flavor(c, "mutating")),
      ...(opts.validating ?? []).map((c) => flavor(c, "validating")),
      ...deps.fromFiles.map((c) => flavor(c, "validating")),
    ];
    if (opts.paths === undefined && opts.mutating === undefined && opts.validating === undefined) {
      // Generated from the handlers: they already name the server's paths.
      const generated = webhookConfigurations(server, { name: opts.name ?? "kubeloop-testenv-webhooks" });
      if (generated.mutating) given.push({ config: generated.mutating as Configuration, mutating: true });
      if (generated.validating) given.push({ config: generated.validating as Configuration, mutating: false });
    }
    const installed: TestEnvWebhooks = { server, host, port, url, certDir, caPem, mutating: [], validating: [] };
    for (const { config, mutating } of given) {
      const desc = mutating ? mutatingWebhookConfigurations : validatingWebhookConfigurations;
      const name = config.metadata?.name;
      if (!name) throw new TestEnvError(`a ${desc.kind} without metadata.name cannot be installed`);
      const body = pointAtServer(config, url, caBundle) as KubeObject;
      delete body.metadata!.resourceVersion;
      await deps.client.resource(desc).patch(name, "apply", { ...body, apiVersion: "admissionregistration.k8s.io/v1", kind: desc.kind }, { fieldManager: "kubeloop-testenv", force: true, signal: deps.signal });
      (mutating ? installed.mutating : installed.validating).push(name);
    }
    // Effective: the admission chain reads configurations from this watch-fed cache.
    await deps.server.webhooks.cache.synced();
    return { webhooks: installed, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
