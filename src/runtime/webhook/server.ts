/**
 * WebhookServer: the HTTPS server of a controller's admission and conversion webhooks
 * (controller-runtime's webhook.Server with the builder's defaulter/validator/conversion
 * registration).
 *
 *   const server = new WebhookServer({ port: 9443 });                 // certs from <tmp>/k8s-webhook-server/serving-certs
 *   server.mutating(applications, (app) => { app.spec.replicas ??= 1; });
 *   server.validating(applications, (app) => app.spec.image ? undefined : denied("spec.image is required"));
 *   server.conversion({ group: "stable.example.com", kind: "CronTab" }, (obj, to) => convert(obj, to));
 *   manager.addWebhookServer(server);                                 // starts and stops with the manager
 *
 * Paths, as controller-runtime's builder names them: `/mutate-<group with dashes>-<version>-<kind>`,
 * `/validate-...`, and `/convert`; `GET /healthz` answers "ok". Certificates: `tls.crt` and
 * `tls.key` in `certDir` (re-read when they change), or, with `generateCertificate`, a
 * throw-away CA and serving certificate made at start (its CA is `caBundle`) — for local runs
 * and tests.
 *
 * Metrics (prom-client, the manager's registry): controller_runtime_webhook_requests_total
 * {webhook, code}, controller_runtime_webhook_latency_seconds{webhook},
 * controller_runtime_webhook_requests_in_flight{webhook}; `webhook` is the path.
 *
 * Phases: created (handlers may be registered) → started (listening; no more handlers) →
 * stopped. `run(signal)` makes it a manager Runnable that needs no leader election.
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Gauge, Histogram, register as globalRegistry, type Registry } from "prom-client";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import type { KubeObject, TypedObject } from "../../apimachinery/types.js";
import { defaultLogger, type Logger } from "../logging.js";
import { erroredResponse, runDefaulting, runValidating, type AdmissionRequest, type DefaultingHandler, type ValidatingHandler } from "./admission.js";
import {
  certFilesStamp,
  DEFAULT_CERT_DIR,
  generateServingCertificate,
  readServingCertificate,
  type GenerateOptions,
  type ServingCertificate,
} from "./certs.js";
import { ConversionRegistry, type Converter } from "./conversion.js";

export const DEFAULT_WEBHOOK_PORT = 9443;
/** controller-runtime's maxRequestSize. */
export const MAX_REQUEST_BYTES = 7 * 1024 * 1024;
export const CONVERSION_PATH = "/convert";

export const webhookMetricNames = Object.freeze({
  requestsTotal: "controller_runtime_webhook_requests_total",
  latency: "controller_runtime_webhook_latency_seconds",
  inFlight: "controller_runtime_webhook_requests_in_flight",
});

/** The kind a handler is for; a ResourceDescriptor fits. `resource` (plural) is needed to install it. */
export interface WebhookTarget extends GroupVersionKind {
  resource?: string;
  namespaced?: boolean;
}

/** How an admission handler is installed in a webhook configuration (kubebuilder's marker fields). */
export interface AdmissionWebhookOptions {
  /** Default `/mutate-<group>-<version>-<kind>` or `/validate-...`. */
  path?: string;
  /** The webhook's name (fully qualified); default `m<kind>-<version>.<group>` / `v<kind>-<version>.<group>`. */
  name?: string;
  /** Default ["CREATE", "UPDATE"]. */
  operations?: ("CREATE" | "UPDATE" | "DELETE" | "CONNECT" | "*")[];
  failurePolicy?: "Fail" | "Ignore";
  sideEffects?: "None" | "NoneOnDryRun";
  timeoutSeconds?: number;
  reinvocationPolicy?: "Never" | "IfNeeded";
  matchPolicy?: "Equivalent" | "Exact";
  namespaceSelector?: Record<string, unknown>;
  objectSelector?: Record<string, unknown>;
  matchConditions?: { name: string; expression: string }[];
}

export interface RegisteredAdmissionWebhook {
  type: "mutating" | "validating";
  path: string;
  target: WebhookTarget;
  options: AdmissionWebhookOptions;
}

export interface WebhookServerOptions {
  /** Listen address (default all interfaces, as controller-runtime's ""). */
  host?: string;
  /** Default 9443; 0 picks a free port. */
  port?: number;
  certDir?: string;
  certName?: string;
  keyName?: string;
  /** Generate a CA and a serving certificate at start instead of reading certDir. */
  generateCertificate?: boolean | GenerateOptions;
  registry?: Registry;
  logger?: Logger;
  /** How often certDir is checked for new files (default 10 s). */
  certCheckIntervalMs?: number;
}

export type RawWebhookHandler = (body: unknown, signal: AbortSignal) => Promise<unknown>;

interface Collectors {
  requests: Counter<"webhook" | "code">;
  latency: Histogram<"webhook">;
  inFlight: Gauge<"webhook">;
}

const byRegistry = new WeakMap<Registry, Collectors>();

function collectors(registry: Registry): Collectors {
  let c = byRegistry.get(registry);
  if (c) return c;
  const existing = registry.getSingleMetric(webhookMetricNames.requestsTotal);
  if (existing) throw new Error(`${webhookMetricNames.requestsTotal} is already registered in this registry by something else`);
  const registers = [registry];
  c = {
    requests: new Counter({ name: webhookMetricNames.requestsTotal, help: "Total number of admission requests by HTTP status code.", labelNames: ["webhook", "code"] as const, registers }),
    latency: new Histogram({
      name: webhookMetricNames.latency,
      help: "Histogram of the latency of processing admission requests",
      labelNames: ["webhook"] as const,
      // prometheus.ExponentialBuckets(10e-9, 10, 12)
      buckets: Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1))),
      registers,
    }),
    inFlight: new Gauge({ name: webhookMetricNames.inFlight, help: "Current number of admission requests being served.", labelNames: ["webhook"] as const, registers }),
  };
  byRegistry.set(registry, c);
  return c;
}

/** controller-runtime's generateMutatePath / generateValidatePath. */
export function webhookPath(type: "mutate" | "validate", gvk: GroupVersionKind): string {
  return `/${type}-${gvk.group.replaceAll(".", "-")}-${gvk.version}-${gvk.kind.toLowerCase()}`;
}

function toAdmissionRequest(body: unknown): { version: string; req: AdmissionRequest } | string {
  if (typeof body !== "object" || body === null) return "json: cannot unmarshal into AdmissionReview";
  const b = body as Record<string, unknown>;
  const version = typeof b.apiVersion === "string" && b.apiVersion !== "" ? b.apiVersion : "admission.k8s.io/v1";
  if (b.kind !== undefined && b.kind !== "AdmissionReview") return `no kind "${String(b.kind)}" is registered for version "${version}"`;
  const r = b.request;
  if (typeof r !== "object" || r === null) return "there is no content to decode";
  const req = r as AdmissionRequest;
  return { version, req: { ...req, uid: String(req.uid ?? ""), name: req.name ?? "", namespace: req.namespace ?? "", dryRun: req.dryRun === true, userInfo: req.userInfo ?? {} } };
}

export class WebhookServer {
  private readonly handlers = new Map<string, RawWebhookHandler>();
  private readonly admission: RegisteredAdmissionWebhook[] = [];
  private readonly conversions = new ConversionRegistry();
  private readonly log: Logger;
  private readonly metrics: Collectors;
  private server: Server | undefined;
  private cert: ServingCertificate | undefined;
  private certStamp = "";
  private certTimer: ReturnType<typeof setInterval> | undefined;
  private startedValue = false;
  private startPromise: Promise<void> | undefined;

  constructor(private readonly opts: WebhookServerOptions = {}) {
    this.log = opts.logger ?? defaultLogger();
    this.metrics = collectors(opts.registry ?? globalRegistry);
  }

  // ---- registration ---------------------------------------------------------------------

  /** Registers a raw handler of decoded JSON bodies (answers are written as JSON). */
  register(path: string, handler: RawWebhookHandler): void {
    if (this.startedValue) throw new Error(`webhook server already started: cannot register ${path}`);
    if (this.handlers.has(path)) throw new Error(`can't register duplicate path: ${path}`);
    this.handlers.set(path, handler);
    const lbl = { webhook: path };
    this.metrics.requests.inc({ ...lbl, code: "200" }, 0);
    this.metrics.requests.inc({ ...lbl, code: "500" }, 0);
    this.log.info({ path }, "Registering webhook");
  }

  /** A defaulting webhook for `target`'s kind; returns its path. */
  mutating<T extends TypedObject = KubeObject>(target: WebhookTarget, handler: DefaultingHandler<T>, options: AdmissionWebhookOptions = {}): string {
    const path = options.path ?? webhookPath("mutate", target);
    this.register(path, async (body) => this.review(body, (req) => runDefaulting(handler, req as unknown as AdmissionRequest<T>)));
    this.admission.push({ type: "mutating", path, target, options });
    return path;
  }

  /** A validating webhook for `target`'s kind; returns its path. */
  validating<T extends TypedObject = KubeObject>(target: WebhookTarget, handler: ValidatingHandler<T>, options: AdmissionWebhookOptions = {}): string {
    const path = options.path ?? webhookPath("validate", target);
    this.register(path, async (body) => this.review(body, (req) => runValidating(handler, req as unknown as AdmissionRequest<T>)));
    this.admission.push({ type: "validating", path, target, options });
    return path;
  }

  /** The converter of a kind (every version), served at /convert. */
  conversion(target: { group: string; kind: string }, converter: Converter): string {
    if (this.conversions.size === 0) {
      this.register(CONVERSION_PATH, async (body) => {
        const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
        const request = (typeof b.request === "object" && b.request !== null ? b.request : {}) as Record<string, unknown>;
        const response = await this.conversions.convert(request);
        return { apiVersion: typeof b.apiVersion === "string" ? b.apiVersion : "apiextensions.k8s.io/v1", kind: "ConversionReview", response };
      });
    }
    this.conversions.add(target.group, target.kind, converter);
    return CONVERSION_PATH;
  }

  /** The admission webhooks registered (for installing their configurations). */
  admissionWebhooks(): readonly RegisteredAdmissionWebhook[] {
    return this.admission;
  }

  /** Whether kinds of `group` / `kind` have a converter. */
  hasConverter(group: string, kind: string): boolean {
    return this.conversions.has(group, kind);
  }

  private async review(body: unknown, run: (req: AdmissionRequest) => Promise<unknown>): Promise<unknown> {
    const parsed = toAdmissionRequest(body);
    if (typeof parsed === "string") return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: erroredResponse("", 400, parsed) };
    return { apiVersion: parsed.version, kind: "AdmissionReview", response: await run(parsed.req) };
  }

  // ---- serving --------------------------------------------------------------------------

  /** The bound port once started. */
  get port(): number | undefined {
    const a = this.server?.address() as AddressInfo | null | undefined;
    return a?.port;
  }

  /** https://127.0.0.1:<port> once started (for webhook configurations pointing at this process). */
  get url(): string | undefined {
    return this.port === undefined ? undefined : `https://127.0.0.1:${this.port}`;
  }

  /** The CA bundle (base64 PEM) that verifies this server's certificate, when known. */
  get caBundle(): string | undefined {
    const ca = this.cert?.caPem;
    return ca ? Buffer.from(ca).toString("base64") : undefined;
  }

  get started(): boolean {
    return this.startedValue;
  }

  /** Loads the certificate and listens (idempotent). */
  start(): Promise<void> {
    this.startPromise ??= this.listen();
    return this.startPromise;
  }

  private certFiles() {
    return { certDir: this.opts.certDir ?? DEFAULT_CERT_DIR, certName: this.opts.certName, keyName: this.opts.keyName };
  }

  private async listen(): Promise<void> {
    const gen = this.opts.generateCertificate;
    if (gen) {
      this.cert = generateServingCertificate(gen === true ? {} : gen);
    } else {
      const files = this.certFiles();
      this.cert = await readServingCertificate(files);
      this.certStamp = await certFilesStamp(files);
    }
    const server = createServer({ cert: this.cert.certPem, key: this.cert.keyPem, keepAliveTimeout: 65_000 }, (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.log.error({ err }, "webhook handler failed");
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.opts.port ?? DEFAULT_WEBHOOK_PORT, this.opts.host, () => {
        server.off("error", reject);
        server.on("error", (err) => this.log.error({ err }, "webhook server error"));
        resolve();
      });
    });
    this.startedValue = true;
    if (!gen) {
      this.certTimer = setInterval(() => void this.reloadCertificate(), this.opts.certCheckIntervalMs ?? 10_000);
      this.certTimer.unref();
    }
    this.log.info({ host: this.opts.host ?? "", port: this.port }, "Serving webhook server");
  }

  /** Re-reads the certificate files when they changed (certificate rotation). */
  async reloadCertificate(): Promise<boolean> {
    if (this.opts.generateCertificate || !this.server) return false;
    const files = this.certFiles();
    const stamp = await certFilesStamp(files);
    if (stamp === this.certStamp) return false;
    try {
      const cert = await readServingCertificate(files);
      this.server.setSecureContext({ cert: cert.certPem, key: cert.keyPem });
      this.cert = cert;
      this.certStamp = stamp;
      this.log.info({ certDir: files.certDir }, "Updated current TLS certificate");
      return true;
    } catch (err) {
      this.log.error({ err }, "error reloading the webhook serving certificate");
      return false;
    }
  }

  async stop(): Promise<void> {
    if (this.certTimer) clearInterval(this.certTimer);
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeIdleConnections();
    });
  }

  /** A manager Runnable: serves until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await this.start();
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    await this.stop();
  }

  readonly name = "webhook-server";

  /** A readiness check: fails until the server listens (controller-runtime's StartedChecker). */
  startedChecker(): () => void {
    return () => {
      if (!this.startedValue || !this.server?.listening) throw new Error("webhook server has not been started yet");
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://localhost");
    if (url.pathname === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("ok");
      return;
    }
    const handler = this.handlers.get(url.pathname);
    if (!handler) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("404 page not found\n");
      return;
    }
    const path = url.pathname;
    const started = process.hrtime.bigint();
    this.metrics.inFlight.inc({ webhook: path });
    let code = 200;
    try {
      code = await this.serve(req, res, handler);
    } finally {
      this.metrics.inFlight.dec({ webhook: path });
      this.metrics.requests.inc({ webhook: path, code: String(code) });
      this.metrics.latency.observe({ webhook: path }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse, handler: RawWebhookHandler): Promise<number> {
    const write = (code: number, body: unknown) => {
      res.writeHead(code, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
      return code;
    };
    const errored = (code: number, message: string) => write(200, { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: erroredResponse("", code, message) });
    if (req.method !== "POST") {
      res.writeHead(405, { Allow: "POST", "Content-Type": "text/plain; charset=utf-8" });
      res.end("method not allowed\n");
      return 405;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) return errored(413, `request entity is too large; limit is ${MAX_REQUEST_BYTES} bytes`);
      chunks.push(c);
    }
    if (size === 0) return errored(400, "request body is empty");
    const contentType = req.headers["content-type"] ?? "";
    if (contentType !== "application/json") return errored(400, `contentType=${contentType}, expected application/json`);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (err) {
      return errored(400, `couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
    const ac = new AbortController();
    const onClose = () => ac.abort();
    res.on("close", onClose);
    try {
      return write(200, await handler(body, ac.signal));
    } finally {
      res.off("close", onClose);
    }
  }
}
