/**
 * The APIService loops kube-apiserver runs in its aggregator:
 * - registration (autoregister + crdregistration): a Local APIService `<version>.<group>` for
 *   every served group/version ("v1." for the core group) with upstream's priorities, labelled
 *   kube-aggregator.kubernetes.io/automanaged "onstart" for built-in groups (synced once at start;
 *   stale ones removed then) and "true" for custom resource groups (kept in sync as CRDs come
 *   and go);
 * - availability: Local APIServices are Available ("Local"); an APIService backed by a Service
 *   is reported unavailable, with ServiceNotFound when the Service is missing and
 *   FailedDiscoveryCheck otherwise — this server does not proxy aggregated APIs.
 */
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { apiregistrationGroup, localAvailableCondition } from "../registry/apiservices.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { fieldsOf, rec, text, type Obj } from "../registry/shape.js";
import { hasCondition, withCondition, writeStatus } from "./statuswrite.js";
import { defaultWriteContext } from "../rest/context.js";
import { formatTime } from "../rest/metadata.js";
import type { ResourceStore } from "../rest/store.js";
import type { ResourceRegistry } from "../server/resources.js";

export const autoRegisterManagedLabel = "kube-aggregator.kubernetes.io/automanaged";

/** kube-apiserver's apiVersionPriorities for the built-in group/versions it serves by default. */
const builtinPriorities: Record<string, { group: number; version: number }> = {
  "/v1": { group: 18000, version: 1 },
  "apps/v1": { group: 17800, version: 15 },
  "events.k8s.io/v1": { group: 17750, version: 15 },
  "authentication.k8s.io/v1": { group: 17700, version: 15 },
  "authorization.k8s.io/v1": { group: 17600, version: 15 },
  "autoscaling/v1": { group: 17500, version: 15 },
  "autoscaling/v2": { group: 17500, version: 30 },
  "batch/v1": { group: 17400, version: 15 },
  "certificates.k8s.io/v1": { group: 17300, version: 15 },
  "networking.k8s.io/v1": { group: 17200, version: 15 },
  "policy/v1": { group: 17100, version: 15 },
  "rbac.authorization.k8s.io/v1": { group: 17000, version: 15 },
  "storage.k8s.io/v1": { group: 16800, version: 15 },
  "admissionregistration.k8s.io/v1": { group: 16700, version: 15 },
  "apiextensions.k8s.io/v1": { group: 16700, version: 15 },
  "scheduling.k8s.io/v1": { group: 16600, version: 15 },
  "coordination.k8s.io/v1": { group: 16500, version: 15 },
  "node.k8s.io/v1": { group: 16300, version: 15 },
  "discovery.k8s.io/v1": { group: 16200, version: 15 },
  "resource.k8s.io/v1": { group: 16200, version: 21 },
  "flowcontrol.apiserver.k8s.io/v1": { group: 16100, version: 21 },
  // metrics-server's APIService (v1beta1.metrics.k8s.io): served here when a metrics source is given.
  "metrics.k8s.io/v1beta1": { group: 100, version: 100 },
};

/** crdregistration: custom resource groups sort after the built-in ones. */
const crdPriority = { group: 1000, version: 100 };

const systemContext = () => defaultWriteContext({ fieldManager: "kube-apiserver" });

export interface APIServiceDeps {
  registry: ResourceRegistry;
  clock: Clock;
  /** "group/version" of the built-in resources (everything else is served for a CRD). */
  builtinGroupVersions: ReadonlySet<string>;
  log?: (msg: string, err?: unknown) => void;
}

/** The APIService a served group/version should have, or undefined (no known priority). */
export function desiredAPIService(group: string, version: string, builtin: boolean): KubeObject | undefined {
  const priority = builtin ? builtinPriorities[`${group}/${version}`] : crdPriority;
  if (!priority) return undefined;
  return {
    apiVersion: `${apiregistrationGroup}/v1`,
    kind: "APIService",
    metadata: { name: `${version}.${group}`, labels: { [autoRegisterManagedLabel]: builtin ? "onstart" : "true" } },
    spec: { group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  };
}

export class APIServiceController {
  /** Whether the start-up sync (which may delete stale "onstart" APIServices) has run. */
  private started = false;

  constructor(private readonly deps: APIServiceDeps) {}

  private get store(): ResourceStore | undefined {
    return this.deps.registry.byGroupResource(apiregistrationGroup, "apiservices");
  }

  private desired(): Map<string, KubeObject> {
    const out = new Map<string, KubeObject>();
    for (const { group, versions } of this.deps.registry.groups()) {
      if (group === apiregistrationGroup) continue;
      for (const version of versions) {
        const builtin = this.deps.builtinGroupVersions.has(`${group}/${version}`);
        const svc = desiredAPIService(group, version, builtin);
        if (svc) out.set(svc.metadata!.name!, svc);
      }
    }
    return out;
  }

  /** Registers, updates and removes the automanaged APIServices, then refreshes availability. */
  async reconcile(): Promise<void> {
    const store = this.store;
    if (!store) return;
    const want = this.desired();
    const existing = (await store.storage.list(store.prefix(undefined))).items.map((i) => i.object);
    const byName = new Map(existing.map((o) => [o.metadata?.name ?? "", o]));
    for (const [name, svc] of want) {
      const cur = byName.get(name);
      const sync = cur?.metadata?.labels?.[autoRegisterManagedLabel];
      if (!cur) await this.create(store, svc);
      else if ((sync === "true" || (sync === "onstart" && !this.started)) && !this.matches(cur, svc)) await this.updateSpec(store, cur, svc);
    }
    for (const cur of existing) {
      const sync = cur.metadata?.labels?.[autoRegisterManagedLabel];
      const name = cur.metadata?.name ?? "";
      if (want.has(name)) continue;
      if (sync === "true" || (sync === "onstart" && !this.started)) await this.remove(store, name);
    }
    this.started = true;
    await this.refreshAvailability(store);
  }

  private matches(cur: KubeObject, want: KubeObject): boolean {
    return semanticEqual(rec(fieldsOf(cur).spec), fieldsOf(want).spec) && cur.metadata?.labels?.[autoRegisterManagedLabel] === want.metadata?.labels?.[autoRegisterManagedLabel];
  }

  private async create(store: ResourceStore, svc: KubeObject): Promise<void> {
    try {
      await store.create(undefined, svc, systemContext());
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }

  private async updateSpec(store: ResourceStore, cur: KubeObject, want: KubeObject): Promise<void> {
    try {
      await store.update(
        undefined,
        cur.metadata?.name ?? "",
        (live) => {
          const base = structuredClone(live ?? cur);
          const labels = { ...(base.metadata?.labels ?? {}), ...want.metadata!.labels };
          return { ...base, metadata: { ...base.metadata, labels }, spec: structuredClone(fieldsOf(want).spec) } as KubeObject;
        },
        systemContext(),
      );
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  private async remove(store: ResourceStore, name: string): Promise<void> {
    try {
      await store.delete(undefined, name, { dryRun: false }, systemContext());
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  /** The Available condition an APIService should have now (upstream's two availability controllers). */
  private async availability(svc: KubeObject, now: string): Promise<Obj> {
    const ref = rec(rec(fieldsOf(svc).spec)?.service);
    if (!ref) return localAvailableCondition(now);
    const ns = text(ref.namespace);
    const name = text(ref.name);
    const services = this.deps.registry.byGroupResource("", "services");
    const present = services ? (await services.storage.get(services.key(ns, name))) !== undefined : false;
    if (!present) {
      return { type: "Available", status: "False", lastTransitionTime: now, reason: "ServiceNotFound", message: `service/${name} in ${JSON.stringify(ns)} is not present` };
    }
    return {
      type: "Available",
      status: "False",
      lastTransitionTime: now,
      reason: "FailedDiscoveryCheck",
      message: `this server does not proxy aggregated APIs: service/${name} in ${JSON.stringify(ns)} cannot be reached through it`,
    };
  }

  private async refreshAvailability(store: ResourceStore): Promise<void> {
    const now = formatTime(this.deps.clock.now());
    for (const item of (await store.storage.list(store.prefix(undefined))).items) {
      const svc = item.object;
      const want = await this.availability(svc, now);
      if (hasCondition(rec(fieldsOf(svc).status), want)) continue;
      await writeStatus(store, svc, (status) => withCondition(status, want), "kube-apiserver", this.deps.log);
    }
  }
}
