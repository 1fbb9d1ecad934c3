/**
 * The server-side upkeep of the cluster-side API groups, in one place: the objects a fresh
 * cluster has (system PriorityClasses, APF bootstrap configuration), the APIService
 * registration and availability loop, the FlowSchema Dangling conditions and the
 * kube-apiserver-client CSR signer (when a CA is given), plus the hooks their resources need.
 *
 * The loops share one storage watch; each has a dirty flag and they run one after the other
 * on a single promise chain, coalesced (a burst of events is one pass). Every pass reads the
 * current state and writes only differences, so the writes it causes settle.
 */
import type { Clock } from "../../apimachinery/clock.js";
import type { CertificateAndKey } from "../auth/x509.js";
import { apiServiceHooks } from "../registry/apiservices.js";
import { certificateSigningRequestHooks, type SignerAuthorizer } from "../registry/certificates.js";
import { ensurePriorityClasses, priorityClassHooks } from "../registry/priorityclasses.js";
import type { ResourceHooks } from "../rest/context.js";
import { resourcePrefix } from "../rest/keys.js";
import type { ResourceRegistry } from "../server/resources.js";
import type { Storage, StorageWatch } from "../storage/interface.js";
import { APIServiceController } from "./apiservices.js";
import { CertificateSigner } from "./csrsigner.js";
import { ensureFlowControlBootstrap, reconcileDanglingConditions, type FlowControlDeps } from "./flowcontrol.js";

export interface ClusterAPIDeps {
  storage: Storage;
  registry: ResourceRegistry;
  clock: Clock;
  /** "group/version" of every built-in resource (the rest are custom resources). */
  builtinGroupVersions: ReadonlySet<string>;
  /** The CA that signs kubernetes.io/kube-apiserver-client requests (absent: no signing). */
  signingCA?: CertificateAndKey;
  log?: (msg: string, err?: unknown) => void;
}

/** The hooks of the cluster-side resources ("<group>/<resource>"), or undefined. */
export function clusterAPIHooks(id: string, deps: { registry: () => ResourceRegistry; clock: Clock; authorize?: SignerAuthorizer }): ResourceHooks | undefined {
  switch (id) {
    case "scheduling.k8s.io/priorityclasses":
      return priorityClassHooks();
    case "certificates.k8s.io/certificatesigningrequests":
      return certificateSigningRequestHooks({ clock: deps.clock, authorize: deps.authorize });
    case "apiregistration.k8s.io/apiservices":
      return apiServiceHooks(deps.clock);
    default:
      return undefined;
  }
}

type Loop = "apiservices" | "flowcontrol" | "csr";

export class ClusterAPIControllers {
  private readonly apiServices: APIServiceController;
  private readonly signer: CertificateSigner | undefined;
  private readonly flow: FlowControlDeps;
  private readonly dirty = new Set<Loop>();
  private watch: StorageWatch | undefined;
  private consuming: Promise<void> | undefined;
  private running: Promise<void> = Promise.resolve();
  private scheduled = false;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ClusterAPIDeps) {
    const reg = deps.registry;
    this.apiServices = new APIServiceController({ registry: reg, clock: deps.clock, builtinGroupVersions: deps.builtinGroupVersions, log: deps.log });
    this.flow = {
      flowSchemas: () => reg.byGroupResource("flowcontrol.apiserver.k8s.io", "flowschemas"),
      priorityLevels: () => reg.byGroupResource("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"),
      clock: deps.clock,
      log: deps.log,
    };
    this.signer = deps.signingCA
      ? new CertificateSigner({ csrs: () => reg.byGroupResource("certificates.k8s.io", "certificatesigningrequests"), ca: deps.signingCA, clock: deps.clock, log: deps.log })
      : undefined;
  }

  /** Creates the bootstrap objects, runs every loop once and starts following changes. */
  async start(): Promise<void> {
    const reg = this.deps.registry;
    const from = this.deps.storage.currentRevision();
    this.watch = this.deps.storage.watch("/registry/", { fromRevision: from, maxLag: 1_000_000 });
    this.unsubscribe = reg.onChange(() => this.mark("apiservices"));
    await ensurePriorityClasses(reg.byGroupResource("scheduling.k8s.io", "priorityclasses"));
    await ensureFlowControlBootstrap(this.flow);
    this.consuming = this.consume();
    this.mark("apiservices", "flowcontrol", "csr");
    await this.idle();
  }

  private async consume(): Promise<void> {
    const prefixes: [string, Loop][] = [
      [resourcePrefix("apiregistration.k8s.io", "apiservices"), "apiservices"],
      [resourcePrefix("", "services"), "apiservices"],
      [resourcePrefix("flowcontrol.apiserver.k8s.io", "flowschemas"), "flowcontrol"],
      [resourcePrefix("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"), "flowcontrol"],
      [resourcePrefix("certificates.k8s.io", "certificatesigningrequests"), "csr"],
    ];
    for await (const ev of this.watch!) {
      for (const [prefix, loop] of prefixes) if (ev.key.startsWith(prefix)) this.mark(loop);
    }
  }

  private mark(...loops: Loop[]): void {
    if (this.stopped) return;
    for (const l of loops) this.dirty.add(l);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.running.then(() => this.runDirty());
    });
  }

  private async runDirty(): Promise<void> {
    const loops = [...this.dirty];
    this.dirty.clear();
    for (const loop of loops) {
      if (this.stopped) return;
      try {
        if (loop === "apiservices") await this.apiServices.reconcile();
        else if (loop === "flowcontrol") await reconcileDanglingConditions(this.flow);
        else await this.signer?.reconcile();
      } catch (err) {
        this.deps.log?.(`the ${loop} loop failed`, err);
      }
    }
  }

  /** Resolves when no pass is pending (tests, and start-up). */
  async idle(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setImmediate(r));
      await this.running;
      if (!this.scheduled && this.dirty.size === 0) return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.watch?.close();
    await this.consuming;
    await this.running;
  }
}
