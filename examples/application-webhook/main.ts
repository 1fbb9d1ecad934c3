/**
 * The Application controller with a defaulting and a validating webhook (webhooks.ts), as one
 * process on one Manager: the controller runs while leading, the webhook server always (every
 * replica answers admission requests).
 *
 *   npx tsc -p tsconfig.json --outDir .example
 *   node .example/examples/application-webhook/main.js --kubeconfig ~/.kube/config \
 *     --webhook-generate-certificate --webhook-service kubeloop-system/kubeloop-application-webhook
 *
 * Flags (the controller's, as `kubeloop controller application` names them, and the webhook's):
 *   --kubeconfig FILE                  default $KUBECONFIG, in-cluster, ~/.kube/config
 *   --leader-elect                     run the controller only while holding its Lease
 *   --metrics-bind-address ADDR        default :8080 ("0": off)
 *   --health-probe-bind-address ADDR   default :8081 ("0": off); /readyz waits for the webhook server
 *   --webhook-port N                   default 9443
 *   --webhook-cert-dir DIR             tls.crt, tls.key (and ca.crt) — e.g. a mounted Secret;
 *                                      default <tmp>/k8s-webhook-server/serving-certs
 *   --webhook-generate-certificate     no cert dir: make a CA and a serving certificate at start,
 *                                      valid for the --webhook-service's DNS names
 *   --webhook-service NS/NAME          install (server-side apply) the Mutating/Validating
 *                                      WebhookConfigurations, pointing at this Service, with the
 *                                      caBundle of the serving certificate
 *   --webhook-service-port N           the Service's port (default 443)
 *
 * deploy/README.md explains the in-cluster setup without cert-manager. Stops on SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { installWebhookConfigurations, WebhookServer, type Logger } from "kubeloop";
import { createApplicationManager } from "kubeloop/controllers/application";
import type { Registry } from "prom-client";
import { addApplicationWebhooks } from "./webhooks.js";

/** The base name of the installed configurations: `<name>-mutating`, `<name>-validating`. */
export const WEBHOOK_CONFIGURATION_NAME = "kubeloop-application-webhooks";

export interface ExampleFlags {
  kubeconfig?: string;
  leaderElect: boolean;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  webhookPort: number;
  webhookCertDir?: string;
  webhookGenerateCertificate: boolean;
  webhookService?: { namespace: string; name: string };
  webhookServicePort: number;
}

function port(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--${flag} must be a port number, got ${JSON.stringify(v)}`);
  return n;
}

/** Parses the flags above (a later flag overrides an earlier one, as with pflag). */
export function parseFlags(argv: readonly string[]): ExampleFlags {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      kubeconfig: { type: "string" },
      "leader-elect": { type: "boolean", default: false },
      "metrics-bind-address": { type: "string", default: ":8080" },
      "health-probe-bind-address": { type: "string", default: ":8081" },
      "webhook-port": { type: "string", default: "9443" },
      "webhook-cert-dir": { type: "string" },
      "webhook-generate-certificate": { type: "boolean", default: false },
      "webhook-service": { type: "string" },
      "webhook-service-port": { type: "string", default: "443" },
    },
  });
  let service: ExampleFlags["webhookService"];
  if (values["webhook-service"] !== undefined) {
    const [namespace, name, ...rest] = values["webhook-service"].split("/");
    if (!namespace || !name || rest.length > 0) throw new Error(`--webhook-service must be NAMESPACE/NAME, got ${JSON.stringify(values["webhook-service"])}`);
    service = { namespace, name };
  }
  return {
    kubeconfig: values.kubeconfig,
    leaderElect: values["leader-elect"] ?? false,
    metricsBindAddress: values["metrics-bind-address"] ?? ":8080",
    healthProbeBindAddress: values["health-probe-bind-address"] ?? ":8081",
    webhookPort: port("webhook-port", values["webhook-port"] ?? "9443"),
    webhookCertDir: values["webhook-cert-dir"],
    webhookGenerateCertificate: values["webhook-generate-certificate"] ?? false,
    webhookService: service,
    webhookServicePort: port("webhook-service-port", values["webhook-service-port"] ?? "443"),
  };
}

/** The DNS names a Service is reached by, which the API server verifies the certificate against. */
export function serviceDNSNames(s: { namespace: string; name: string }): string[] {
  return [`${s.name}.${s.namespace}.svc`, `${s.name}.${s.namespace}.svc.cluster.local`];
}

/** Runs controller and webhooks until `signal` aborts. `logger`/`registry`: for embedding and tests. */
export async function runApplicationWithWebhooks(flags: ExampleFlags, signal: AbortSignal, extra: { logger?: Logger; registry?: Registry } = {}): Promise<void> {
  const am = createApplicationManager({
    kubeconfig: flags.kubeconfig,
    leaderElect: flags.leaderElect,
    metricsBindAddress: flags.metricsBindAddress,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    logger: extra.logger,
    registry: extra.registry,
  });
  try {
    const server = new WebhookServer({
      port: flags.webhookPort,
      certDir: flags.webhookCertDir,
      generateCertificate: flags.webhookGenerateCertificate ? { dnsNames: flags.webhookService ? serviceDNSNames(flags.webhookService) : [] } : false,
      logger: extra.logger,
      registry: am.manager.registry,
    });
    addApplicationWebhooks(server);
    am.manager.addWebhookServer(server);
    // Listen first, so the configurations never point at a server that is not there yet.
    await server.start();
    if (flags.webhookService) {
      await installWebhookConfigurations(am.client, server, { name: WEBHOOK_CONFIGURATION_NAME, service: { ...flags.webhookService, port: flags.webhookServicePort }, signal });
    }
    await am.manager.start(signal);
  } finally {
    await am.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stop = new AbortController();
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) process.exit(1);
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await runApplicationWithWebhooks(parseFlags(process.argv.slice(2)), stop.signal);
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
