/**
 * KubeClient: the real client — a Transport for one RestConfig, resource clients over it, typed
 * shortcuts for the built-ins (`client.core.v1.pods(ns)`), a dynamic client, cached discovery and a
 * REST mapper.
 */
import type { TypedObject } from "../apimachinery/types.js";
import { loadClientConfig, type ClientConfig, type ClientConfigOptions, type RestConfig } from "./config.js";
import { CachedDiscoveryClient, DiscoveryClient } from "./discovery.js";
import { DynamicClient } from "./dynamic.js";
import { getConfig, type GetConfigOptions, type ResolvedClientConfig } from "./getconfig.js";
import { inClusterConfig, type InClusterOptions } from "./incluster.js";
import type { ResourceClient, ResourceClientFactory, ResourceDescriptor } from "./interfaces.js";
import { HttpResourceClient } from "./resource.js";
import { DiscoveryRESTMapper } from "./restmapper.js";
import { Transport } from "./transport.js";
import { typedClients, type TypedClients } from "./typed.js";

export interface KubeClientOptions {
  /** The default namespace (the kubeconfig context's, in-cluster the pod's); "default" if absent. */
  namespace?: string;
}

export class KubeClient implements ResourceClientFactory {
  readonly config: RestConfig;
  /** The namespace the configuration selects; callers pass it explicitly to resource(). */
  readonly namespace: string;
  readonly transport: Transport;
  readonly discoveryClient: CachedDiscoveryClient;
  readonly mapper: DiscoveryRESTMapper;
  readonly dynamic: DynamicClient;

  readonly core: TypedClients["core"];
  readonly apps: TypedClients["apps"];
  readonly batch: TypedClients["batch"];
  readonly coordination: TypedClients["coordination"];
  readonly events: TypedClients["events"];
  readonly rbac: TypedClients["rbac"];
  readonly apiextensions: TypedClients["apiextensions"];
  readonly discovery: TypedClients["discovery"];
  readonly policy: TypedClients["policy"];

  /** Throws ConfigError when TLS files cannot be read or the host is not a URL. */
  constructor(config: RestConfig, opts: KubeClientOptions = {}) {
    this.config = config;
    this.namespace = opts.namespace || "default";
    this.transport = new Transport(config);
    this.discoveryClient = new CachedDiscoveryClient(new DiscoveryClient(this.transport));
    this.mapper = new DiscoveryRESTMapper(this.discoveryClient);
    this.dynamic = new DynamicClient(this.transport, this.mapper);
    const t = typedClients(this);
    this.core = t.core;
    this.apps = t.apps;
    this.batch = t.batch;
    this.coordination = t.coordination;
    this.events = t.events;
    this.rbac = t.rbac;
    this.apiextensions = t.apiextensions;
    this.discovery = t.discovery;
    this.policy = t.policy;
  }

  /**
   * From kubeconfig files only, as kubectl loads them (an explicit `kubeconfigPath`, else
   * KUBECONFIG, else ~/.kube/config; see kubeconfig.ts). No in-cluster fallback and no argv: use
   * fromConfig() in programs. Throws ConfigError.
   */
  static fromKubeconfig(opts: ClientConfigOptions = {}): KubeClient {
    const cc = loadClientConfig(opts);
    return new KubeClient(cc.config, { namespace: cc.namespace });
  }

  /** From the pod's service account (see incluster.ts). Throws ConfigError outside a cluster. */
  static inCluster(opts: InClusterOptions = {}): KubeClient {
    const cc = inClusterConfig(opts);
    return new KubeClient(cc.config, { namespace: cc.namespace });
  }

  /**
   * The documented entry point: the cluster found in controller-runtime's GetConfig order —
   * `--kubeconfig` (from `opts.kubeconfig` or process.argv), KUBECONFIG, the in-cluster config in
   * a pod, ~/.kube/config (see getconfig.ts). Throws ConfigError naming what it tried.
   */
  static fromConfig(opts: GetConfigOptions = {}): KubeClient {
    return KubeClient.fromResolvedConfig(getConfig(opts));
  }

  /** A client for an already resolved configuration (getConfig's result). */
  static fromResolvedConfig(cc: ResolvedClientConfig | ClientConfig): KubeClient {
    return new KubeClient(cc.config, { namespace: cc.namespace });
  }

  /** @deprecated use fromConfig(): the same rules, with `kubeconfig` for the explicit file. */
  static fromEnvironment(opts: ClientConfigOptions & { inCluster?: InClusterOptions } = {}): KubeClient {
    return KubeClient.fromConfig({
      kubeconfig: opts.kubeconfigPath,
      argv: [],
      env: opts.kubeconfigEnv !== undefined ? { ...(opts.inCluster?.env ?? process.env), KUBECONFIG: opts.kubeconfigEnv } : opts.inCluster?.env,
      homeDir: opts.homeDir,
      context: opts.context,
      cluster: opts.cluster,
      user: opts.user,
      namespace: opts.namespace,
      server: opts.server,
      inCluster: opts.inCluster,
      rest: { ...opts.rest, ...opts.inCluster?.rest },
    });
  }

  resource<T extends TypedObject>(resource: ResourceDescriptor<T>, namespace = ""): ResourceClient<T> {
    return new HttpResourceClient<T>(this.transport, resource, namespace);
  }

  /** Closes the connection pools. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
