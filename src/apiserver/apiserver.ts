/**
 * ApiServer: the assembled embedded API server — storage, one ResourceStore per strategy with
 * its stateful hooks, the system controllers, and the HTTP handler — independent of which
 * strategies and codecs are plugged in (index.ts plugs in the built-in ones).
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
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
import { namespaceGuard, namespaceHooks } from "./core/namespaces.js";
import { podHooks } from "./core/pods.js";
import { IPAllocator, PortAllocator, recordExistingService, serviceHooks } from "./core/services.js";
import { defaultMaxBodyBytes, type ProtobufDecoder } from "./server/body.js";
import type { HandlerEnv, TableConverter } from "./server/env.js";
import { OpenAPIServer, type OpenAPISource } from "./server/openapiserve.js";
import { ResourceRegistry } from "./server/resources.js";
import { createRequestHandler, type Logger } from "./server/server.js";
import { AccessControl, type SecurityOptions } from "./auth/access.js";
import { CustomResourceController } from "./crd/controller.js";

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
  openapi?: OpenAPISource;
  /** Concurrent non-watch requests before 429 (default 400). */
  maxInFlight?: number;
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
}

// Resources whose DELETE answers with the object rather than a Status (upstream ReturnDeletedObject).
const returnsDeletedObject = new Set(["/pods", "/services", "/serviceaccounts", "/namespaces"]);

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
  private readonly ips: IPAllocator;
  private readonly ports = new PortAllocator();
  private http: Server | undefined;
  private address = "127.0.0.1:0";
  private readonly handler: ReturnType<typeof createRequestHandler>;

  constructor(private readonly config: ApiServerConfig) {
    this.clock = config.clock ?? realClock;
    this.fieldManager = new FieldManager({ clock: this.clock });
    this.storage = config.dataDir
      ? SqliteStorage.open(config.dataDir, { ...config.storage, ...config.persistence })
      : new MemoryStorage(config.storage);
    this.ips = new IPAllocator(config.serviceCIDR);
    const guard = namespaceGuard(this.storage);
    this.customResources = new CustomResourceController({
      registry: this.registry,
      storage: this.storage,
      clock: this.clock,
      fieldTracker: this.fieldManager,
      log: (msg, err) => config.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg),
    });
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
    for (const strategy of [...config.strategies, ...(this.access?.strategies() ?? [])]) {
      const n = strategy.names;
      const id = `${n.group}/${n.resource}`;
      let hooks: ResourceHooks | undefined;
      if (id === "/namespaces") hooks = namespaceHooks();
      else if (id === "/services") hooks = serviceHooks(this.ips, this.ports);
      else if (id === "/pods") hooks = podHooks();
      else if (id === "apiextensions.k8s.io/customresourcedefinitions") hooks = this.customResources.crdHooks();
      hooks ??= this.access?.hooksFor(id);
      this.registry.add(
        new ResourceStore(strategy, {
          storage: this.storage,
          clock: this.clock,
          hooks,
          namespaceGuard: n.namespaced ? guard : undefined,
          returnDeletedObject: returnsDeletedObject.has(id),
          fieldTracker: this.fieldManager,
        }),
      );
    }
    const namespaces = this.registry.byGroupResource("", "namespaces");
    if (!namespaces) throw new Error("the API server needs a strategy for core/v1 namespaces");
    this.controllers = new SystemControllers({
      storage: this.storage,
      namespaces,
      serviceAccounts: this.registry.byGroupResource("", "serviceaccounts"),
      log: (msg, err) => config.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg),
    });
    const env: HandlerEnv = {
      registry: this.registry,
      clock: this.clock,
      decodeProtobuf: config.decodeProtobuf,
      toTable: this.customResources.tableConverter(config.toTable),
      maxBodyBytes: config.maxBodyBytes ?? defaultMaxBodyBytes,
      watch: { clock: this.clock, ...config.watch },
    };
    const openapi = config.openapi ? new OpenAPIServer(config.openapi, () => ({ generation: this.registry.generation, served: this.registry.served() })) : undefined;
    this.handler = createRequestHandler({
      env,
      openapi,
      maxInFlight: config.maxInFlight,
      logger: config.logger,
      serverAddress: () => this.address,
      guard: this.access ? (req, url) => this.access!.guard(req, url) : undefined,
      intercept: this.access ? (req, res, info) => this.access!.intercept(req, res, info) : undefined,
    });
  }

  /** The Node request listener (for embedding in another server). */
  get requestListener(): ReturnType<typeof createRequestHandler> {
    return this.handler;
  }

  /** Listens, creates the initial objects and starts the system controllers; resolves to the URL. */
  async start(port = 0, host = "127.0.0.1"): Promise<string> {
    const tls = this.access?.tls;
    const server: Server = tls
      ? (createHttpsServer(
          { keepAliveTimeout: 65_000, requestTimeout: 0, cert: tls.certPem, key: tls.keyPem, ca: tls.clientCAPem, requestCert: true, rejectUnauthorized: false },
          this.handler,
        ) as unknown as Server)
      : createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, this.handler);
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
    for (const svc of (await this.storage.list("/registry/core/services/")).items) recordExistingService(svc.object, this.ips, this.ports);
    await bootstrapCluster(
      {
        namespaces: this.registry.byGroupResource("", "namespaces"),
        services: this.registry.byGroupResource("", "services"),
      },
      { serviceIP: this.ips.first(), port: addr.port },
    );
    await this.access?.start();
    await this.controllers.start();
    await this.customResources.start();
    return `${tls ? "https" : "http"}://${this.address}`;
  }

  async stop(): Promise<void> {
    await this.customResources.stop();
    await this.controllers.stop();
    await this.access?.stop();
    await this.storage.close();
    const server = this.http;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    this.http = undefined;
  }
}
