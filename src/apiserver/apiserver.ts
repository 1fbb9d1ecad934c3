/**
 * ApiServer: the assembled embedded API server — storage, one ResourceStore per strategy with
 * its stateful hooks, the system controllers, and the HTTP handler — independent of which
 * strategies and codecs are plugged in (index.ts plugs in the built-in ones).
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { realClock, type Clock } from "../apimachinery/clock.js";
import type { ResourceStrategy } from "./registry/strategy.js";
import type { ResourceHooks } from "./rest/context.js";
import { ResourceStore } from "./rest/store.js";
import type { WatchSettings } from "./rest/watch.js";
import { MemoryStorage, type MemoryStorageOptions } from "./storage/memory.js";
import type { Storage } from "./storage/interface.js";
import { SqliteStorage, type SqliteStorageOptions } from "./storage/sqlite.js";
import { FieldManager } from "./ssa/fieldmanager.js";
import { bootstrapCluster } from "./core/bootstrap.js";
import { SystemControllers } from "./core/controllers.js";
import { namespaceHooks } from "./core/namespaces.js";
import { podHooks } from "./core/pods.js";
import { IPAllocator, PortAllocator, recordExistingService, serviceHooks } from "./core/services.js";
import { defaultMaxBodyBytes, type ProtobufDecoder } from "./server/body.js";
import type { HandlerEnv, TableConverter } from "./server/env.js";
import type { PodLogSource } from "./core/podlogs.js";
import { OpenAPIServer, type OpenAPISource } from "./server/openapiserve.js";
import { ResourceRegistry } from "./server/resources.js";
import { createRequestHandler, type Logger } from "./server/server.js";
import { writeError } from "./server/respond.js";
import { ApiServerMetrics, instrumentRequests } from "./metrics/index.js";
import { InFlightLimiter } from "./server/inflight.js";
import { answerProtocolErrorsWithStatus, defaultServingOptions, nodeServerOptions, type ServingOptions } from "./server/serving.js";
import { AccessControl, type SecurityOptions } from "./auth/access.js";
import { CustomResourceController } from "./crd/controller.js";
import type { CertificateAndKey } from "./auth/x509.js";
import { ClusterAPIControllers, clusterAPIHooks } from "./core/clusterapis.js";
import { Admission, type AdmissionPluginRegistration } from "./admission/chain.js";
import { defaultAdmissionPlugins } from "./admission/defaults.js";
import type { SignerAuthorizer } from "./registry/certificates.js";
import { Webhooks } from "./webhook/index.js";
import { webhookAdmissionRegistrations, type WebhookAdmissionDeps } from "./admission/webhook/index.js";
import { registryObjectInterfaces, type ObjectInterfaces } from "./admission/objects.js";
// ---- workload-side resources (issue 14)
import { BindingStore } from "./core/binding.js";
import { ComponentStatusStore } from "./core/componentstatuses.js";
import { NodeMetricsStore, PodMetricsStore, ResourceMetricsReader, type ResourceMetricsSource } from "./core/resourcemetrics.js";
import { resourceMetricsStrategies } from "./registry/resourcemetrics.js";
import { persistentVolumeHooks } from "./core/volumes.js";
import { preparePrivateDir } from "./privatefiles.js";

export interface ApiServerConfig {
  strategies: ResourceStrategy[];
  clock?: Clock;
  storage?: MemoryStorageOptions;
  /** Persist everything in SQLite in this directory (absent: in memory). */
  dataDir?: string;
  /** Persistence tuning (durability, group commit) when `dataDir` is set. */
  persistence?: Omit<SqliteStorageOptions, keyof MemoryStorageOptions>;
  decodeProtobuf?: ProtobufDecoder;
  toTable?: TableConverter;
  /** Containers' log lines for pods/log (the simulated kubelet's; absent: pods/log answers 400). */
  podLogs?: PodLogSource;
  /**
   * What pods' containers use, for metrics.k8s.io (the simulated kubelet's; core/resourcemetrics.ts).
   * Absent: the metrics API is not served, as on a cluster without metrics-server.
   */
  resourceMetrics?: ResourceMetricsSource;
  openapi?: OpenAPISource;
  /** Read-only requests served at once before 429 (default 400; watches do not count). */
  maxInFlight?: number;
  /** Mutating requests served at once before 429 (default 200). */
  maxMutatingInFlight?: number;
  /** Timeouts and header limits of the listening server (server/serving.ts; upstream's defaults). */
  serving?: Partial<ServingOptions>;
  maxBodyBytes?: number;
  watch?: Omit<WatchSettings, "clock">;
  /** Service cluster IP range (default 10.96.0.0/12). */
  serviceCIDR?: string;
  logger?: Logger;
  /**
   * Authentication, impersonation and RBAC, and HTTPS when `security.tls` is set (auth/).
   * Absent: plain http and no authentication or authorization at all (embedding and tests).
   */
  security?: SecurityOptions;
  /**
   * The CA that signs approved kubernetes.io/kube-apiserver-client CertificateSigningRequests
   * (the cluster CA, whose client certificates the server accepts). Absent: no signing.
   */
  csrSigningCA?: CertificateAndKey;
  /**
   * The admission plugins that can run (default: `defaultAdmissionPlugins()`); whatever order
   * they are given in, they run in kube-apiserver's (admission/chain.ts). `false`: no admission
   * at all. The webhook and policy plugins are added here.
   */
  admissionPlugins?: readonly AdmissionPluginRegistration[] | false;
  /** Default-off plugins to turn on (--enable-admission-plugins). */
  enableAdmissionPlugins?: readonly string[];
  /** Plugins to turn off (--disable-admission-plugins). */
  disableAdmissionPlugins?: readonly string[];
  /** The server's own metrics on /metrics (metrics/); default true. */
  metrics?: boolean;
}

/** The default service cluster IP range (the IPAllocator's and the `kubernetes` ServiceCIDR's). */
const defaultServiceCIDR = "10.96.0.0/12";

// Resources whose DELETE answers with the object rather than a Status (upstream ReturnDeletedObject).
const returnsDeletedObject = new Set(["/pods", "/services", "/serviceaccounts", "/namespaces"]);

/**
 * The plugins a server runs: the given ones plus MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook (default-on in kube-apiserver; turned off with
 * `disableAdmissionPlugins`), unless the list already names them.
 */
function withWebhookPlugins(plugins: readonly AdmissionPluginRegistration[], deps: WebhookAdmissionDeps): AdmissionPluginRegistration[] {
  const names = new Set(plugins.map((p) => p.name));
  return [...plugins, ...webhookAdmissionRegistrations(deps).filter((r) => !names.has(r.name))];
}

export class ApiServer {
  readonly registry = new ResourceRegistry();
  readonly storage: Storage;
  readonly clock: Clock;
  readonly controllers: SystemControllers;
  /** managedFields bookkeeping and server-side apply for every resource. */
  readonly fieldManager: FieldManager;
  /** Authentication and authorization, when configured. */
  readonly access: AccessControl | undefined;
  /** CustomResourceDefinitions: names, conditions, cleanup and the serving of custom resources (crd/). */
  readonly customResources: CustomResourceController;
  /** Bootstrap objects and upkeep loops of the cluster-side API groups (core/clusterapis.ts). */
  readonly clusterAPIs: ClusterAPIControllers;
  /** The admission chain every write passes (undefined with `admissionPlugins: false`). */
  readonly admission: Admission | undefined;
  /**
   * The webhook machinery (webhook/): the cache of services, endpoints, namespaces and webhook
   * configurations, and the HTTPS client; used by CRD conversion webhooks and the admission
   * webhook plugins (MutatingAdmissionWebhook, ValidatingAdmissionWebhook in the chain).
   */
  readonly webhooks: Webhooks;
  /** Equivalent resources, conversion and defaults of the served kinds, for admission. */
  readonly objectInterfaces: ObjectInterfaces;
  /** What an operator should hear about at start (a data directory others can read, an accepted data loss); also logged. */
  readonly startupWarnings: string[] = [];
  /** Seats of requests being served (the max-in-flight limit), for metrics. */
  readonly inFlight: InFlightLimiter;
  private readonly serving: ServingOptions;
  private readonly ips: IPAllocator;
  private readonly ports = new PortAllocator();
  private http: Server | undefined;
  /** Every open TCP connection (HTTP or still in the TLS handshake), closed by stop(). */
  private readonly sockets = new Set<Socket>();
  private address = "127.0.0.1:0";
  private readonly handler: ReturnType<typeof createRequestHandler>;
  /** kube-apiserver's request, watch and storage metrics, served on /metrics (absent when disabled). */
  readonly metrics: ApiServerMetrics | undefined;
  private stopMetrics: (() => void) | undefined;

  constructor(private readonly config: ApiServerConfig) {
    this.clock = config.clock ?? realClock;
    this.fieldManager = new FieldManager({ clock: this.clock });
    if (config.dataDir) {
      const warning = preparePrivateDir(config.dataDir);
      if (warning) this.startupWarnings.push(warning);
      const sqlite = SqliteStorage.open(config.dataDir, { clock: this.clock, ...config.storage, ...config.persistence });
      this.startupWarnings.push(...sqlite.startupWarnings);
      this.storage = sqlite;
    } else {
      this.storage = new MemoryStorage({ clock: this.clock, ...config.storage });
    }
    for (const w of this.startupWarnings) config.logger?.warn({ dataDir: config.dataDir }, w);
    this.ips = new IPAllocator(config.serviceCIDR);
    this.webhooks = new Webhooks(this.storage, { clock: this.clock });
    // Closes over customResources (assigned below): conversion is only called once serving.
    this.objectInterfaces = registryObjectInterfaces(this.registry, (obj, apiVersion, signal) => this.customResources.convert(obj, apiVersion, signal));
    this.access = config.security
      ? new AccessControl(config.security, {
          storage: this.storage,
          registry: () => this.registry,
          clock: this.clock,
          decodeProtobuf: config.decodeProtobuf,
          maxBodyBytes: config.maxBodyBytes ?? defaultMaxBodyBytes,
          log: (msg, err) => config.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg),
        })
      : undefined;
    const access = this.access;
    this.admission =
      config.admissionPlugins === false
        ? undefined
        : Admission.build(
            { plugins: withWebhookPlugins(config.admissionPlugins ?? defaultAdmissionPlugins(), { webhooks: this.webhooks, objects: this.objectInterfaces }), enable: config.enableAdmissionPlugins, disable: config.disableAdmissionPlugins },
            {
              storage: this.storage,
              registry: () => this.registry,
              clock: this.clock,
              authorize: access ? (attrs) => access.decide(attrs) : undefined,
              log: (msg, err) => config.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg),
            },
          );
    this.customResources = new CustomResourceController({
      registry: this.registry,
      storage: this.storage,
      clock: this.clock,
      fieldTracker: this.fieldManager,
      admission: this.admission,
      webhookClient: this.webhooks.client,
      log: (msg, err) => config.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg),
    });
    const metricsReader = config.resourceMetrics
      ? new ResourceMetricsReader(
          config.resourceMetrics,
          () => this.registry.byGroupResource("", "pods"),
          () => this.registry.byGroupResource("", "nodes"),
        )
      : undefined;
    for (const given of [...config.strategies, ...(this.access?.strategies() ?? []), ...(metricsReader ? resourceMetricsStrategies : [])]) {
      let strategy = given;
      const n = strategy.names;
      const id = `${n.group}/${n.resource}`;
      let hooks: ResourceHooks | undefined;
      if (id === "/namespaces") hooks = namespaceHooks();
      else if (id === "/services") hooks = serviceHooks(this.ips, this.ports);
      else if (id === "/pods") hooks = podHooks();
      else if (id === "apiextensions.k8s.io/customresourcedefinitions") hooks = this.customResources.crdHooks();
      // ---- workload-side resources (issue 14)
      else if (id === "/persistentvolumes") hooks = persistentVolumeHooks(this.clock);
      // ---- cluster-side API groups (priorityclasses, certificatesigningrequests, apiservices) ----
      hooks ??= clusterAPIHooks(id, { registry: () => this.registry, clock: this.clock, authorize: this.signerAuthorizer() });
      // serviceaccounts/token is served (by access control) only when there is security.
      if (id === "/serviceaccounts" && this.access) {
        strategy = { ...strategy, subresources: { ...strategy.subresources, extra: [...(strategy.subresources.extra ?? []), "token"] } };
      }
      // ---- end of workload-side resources
      hooks ??= this.access?.hooksFor(id);
      const deps = {
        storage: this.storage,
        clock: this.clock,
        hooks,
        admission: this.admission,
        returnDeletedObject: returnsDeletedObject.has(id),
        fieldTracker: this.fieldManager,
        log: (msg: string, err: unknown) => config.logger?.warn({ err: err instanceof Error ? (err.stack ?? err.message) : String(err) }, msg),
      };
      // Resources without storage of their own (issue 14): component statuses are computed,
      // bindings assign pods.
      let store: ResourceStore;
      if (id === "/componentstatuses") store = new ComponentStatusStore(strategy, deps);
      else if (id === "metrics.k8s.io/pods" && metricsReader) store = new PodMetricsStore(strategy, deps, metricsReader);
      else if (id === "metrics.k8s.io/nodes" && metricsReader) store = new NodeMetricsStore(strategy, deps, metricsReader);
      else if (id === "/bindings") store = new BindingStore(strategy, deps, () => this.registry.byGroupResource("", "pods"));
      else store = new ResourceStore(strategy, deps);
      this.registry.add(store);
    }
    this.clusterAPIs = new ClusterAPIControllers({
      storage: this.storage,
      registry: this.registry,
      clock: this.clock,
      builtinGroupVersions: new Set(this.registry.all().map((st) => `${st.strategy.names.group}/${st.strategy.names.version}`)),
      signingCA: config.csrSigningCA,
      log: (msg, err) => config.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg),
    });
    const namespaces = this.registry.byGroupResource("", "namespaces");
    if (!namespaces) throw new Error("the API server needs a strategy for core/v1 namespaces");
    this.controllers = new SystemControllers({
      storage: this.storage,
      namespaces,
      serviceAccounts: this.registry.byGroupResource("", "serviceaccounts"),
      log: (msg, err) => config.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg),
    });
    this.metrics = config.metrics === false ? undefined : new ApiServerMetrics();
    const metrics = this.metrics;
    const env: HandlerEnv = {
      watchEvents: metrics ? (g, v, r) => metrics.watchEventCounter(g, v, r) : undefined,
      registry: this.registry,
      clock: this.clock,
      decodeProtobuf: config.decodeProtobuf,
      toTable: this.customResources.tableConverter(config.toTable),
      maxBodyBytes: config.maxBodyBytes ?? defaultMaxBodyBytes,
      watch: { clock: this.clock, ...config.watch },
      podLogs: config.podLogs,
    };
    this.serving = { ...defaultServingOptions, ...config.serving };
    this.inFlight = new InFlightLimiter({ readOnly: config.maxInFlight, mutating: config.maxMutatingInFlight });
    const openapi = config.openapi ? new OpenAPIServer(config.openapi, () => ({ generation: this.registry.generation, served: this.registry.served() })) : undefined;
    const handler = createRequestHandler({
      env,
      openapi,
      inFlight: this.inFlight,
      requestTimeoutMs: this.serving.requestTimeoutMs,
      logger: config.logger,
      serverAddress: () => this.address,
      guard: this.access ? (req, url) => this.access!.guard(req, url) : undefined,
      intercept: this.access ? (req, res, info, url) => this.access!.intercept(req, res, info, url) : undefined,
    });
    this.handler = metrics
      ? instrumentRequests(metrics, handler, { authorize: this.access ? (req, url) => this.access!.guard(req, url) : undefined, writeError })
      : handler;
  }

  /** `approve` / `sign` on certificates.k8s.io signers, through RBAC (undefined without access control). */
  private signerAuthorizer(): SignerAuthorizer | undefined {
    const access = this.access;
    if (!access) return undefined;
    return (user, verb, signerName) =>
      access.decide({ user, verb, resourceRequest: true, path: "", apiGroup: "certificates.k8s.io", apiVersion: "*", namespace: "", resource: "signers", subresource: "", name: signerName }).allowed;
  }

  /** The Node request listener (for embedding in another server). */
  get requestListener(): ReturnType<typeof createRequestHandler> {
    return this.handler;
  }

  /** Listens, creates the initial objects and starts the system controllers; resolves to the URL. */
  async start(port = 0, host = "127.0.0.1"): Promise<string> {
    const tls = this.access?.tls;
    const { handshakeTimeout, ...httpOptions } = nodeServerOptions(this.serving);
    const server: Server = tls
      ? (createHttpsServer(
          { ...httpOptions, handshakeTimeout, cert: tls.certPem, key: tls.keyPem, ca: tls.clientCAPem, requestCert: true, rejectUnauthorized: false },
          this.handler,
        ) as unknown as Server)
      : createServer(httpOptions, this.handler);
    answerProtocolErrorsWithStatus(server);
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    this.http = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const addr = server.address() as AddressInfo;
    const urlHost = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    this.address = `${urlHost}:${addr.port}`;
    this.stopMetrics = await this.metrics?.observeStorage(this.storage);
    for (const svc of (await this.storage.list("/registry/core/services/")).items) {
      try {
        recordExistingService(svc.object, this.ips, this.ports);
      } catch (err) {
        // Whatever is stored, the server starts: a Service it cannot read keeps no IP or port.
        this.config.logger?.warn({ err: err instanceof Error ? err.message : String(err), key: svc.key }, "cannot record the addresses of a stored Service");
      }
    }
    await bootstrapCluster(
      {
        namespaces: this.registry.byGroupResource("", "namespaces"),
        services: this.registry.byGroupResource("", "services"),
        serviceCIDRs: this.registry.byGroupResource("networking.k8s.io", "servicecidrs"),
      },
      { serviceIP: this.ips.first(), port: addr.port, serviceCIDR: this.config.serviceCIDR ?? defaultServiceCIDR },
    );
    await this.access?.start();
    await this.admission?.start();
    await this.controllers.start();
    await this.clusterAPIs.start();
    await this.webhooks.start();
    await this.customResources.start();
    return `${tls ? "https" : "http"}://${this.address}`;
  }

  async stop(): Promise<void> {
    await this.customResources.stop();
    await this.webhooks.stop();
    await this.clusterAPIs.stop();
    await this.controllers.stop();
    await this.admission?.stop();
    await this.access?.stop();
    this.stopMetrics?.();
    await this.storage.close();
    const server = this.http;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const socket of this.sockets) socket.destroy();
    });
    this.http = undefined;
  }
}
