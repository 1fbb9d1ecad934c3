/**
 * The ResourceQuota controller (upstream pkg/controller/resourcequota resource_quota_controller.go):
 * keeps every quota's status — `hard` as spec.hard, `used` as what the namespace's objects use of
 * each hard resource — recounted when the quota's spec changes, when objects it counts go away or
 * change their usage (replenishment), and every RESYNC_MS (--resource-quota-sync-period, 5 min).
 *
 * Usage is counted with the same evaluators as the ResourceQuota admission plugin
 * (apiserver/admission/plugins/resourcequota.ts: usageOf, quotaSelects, covers), so the two agree:
 * admission charges a create at once, this controller recounts and gives back what deletions and
 * terminal pods freed. Counted: pods (pods, requests.*, limits.*, cpu, memory, ...), services,
 * persistentvolumeclaims (and requests.storage, per storage class), configmaps, secrets,
 * replicationcontrollers, resourcequotas and `count/<resource>[.<group>]` of the built-in
 * resources. A hard resource no evaluator counts (a custom resource's count/) gets no used entry.
 *
 * Requests: one per quota ("ns/name"). Writes only when the status differs (zero writes in
 * steady state).
 */
import type { ResourceQuota } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceDescriptor } from "../../apimachinery/resource.js";
import type { KubeObject, TypedObject } from "../../apimachinery/types.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin, findBuiltinResource } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { EventHandler } from "../../runtime/handler.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { covers, quotaSelects, usageOf } from "../../apiserver/admission/plugins/resourcequota.js";
import { add, formatQuantity, zero, type ResourceList } from "../../apiserver/admission/quantity.js";

export const RESOURCE_QUOTA_CONTROLLER_NAME = "resourcequota-controller";
/** --concurrent-resource-quota-syncs */
export const DEFAULT_RESOURCE_QUOTA_WORKERS = 5;
/** --resource-quota-sync-period */
export const RESYNC_MS = 5 * 60 * 1000;

/** The resources watched for replenishment (read from the cache); other count/ resources are listed. */
const WATCHED = [builtin.pods, builtin.services, builtin.persistentVolumeClaims] as const;
/** The legacy object counts ("configmaps", "secrets", ...), listed when a quota names them. */
const LEGACY = [builtin.configMaps, builtin.secrets, builtin.replicationControllers, builtin.resourceQuotas, builtin.persistentVolumeClaims, builtin.services, builtin.pods] as const;

export interface ResourceQuotaControllerOptions {
  workers?: number;
  resyncMs?: number;
}

const nameOf = (o: TypedObject) => new ObjectName(o.metadata?.namespace ?? "", o.metadata?.name ?? "");

const usageKey = (d: ResourceDescriptor, o: TypedObject) =>
  JSON.stringify([...usageOf(d.group, d.resource, o as KubeObject)].map(([k, q]) => [k, q.n.toString()]).sort());

export class ResourceQuotaController {
  readonly controller: Controller;
  private readonly quotas: Lister<ResourceQuota>;
  private readonly listers = new Map<string, Lister<TypedObject>>();
  private readonly resyncMs: number;

  constructor(mgr: Manager, opts: ResourceQuotaControllerOptions = {}) {
    this.resyncMs = opts.resyncMs ?? RESYNC_MS;
    this.quotas = mgr.informers.forResource(builtin.resourceQuotas).lister();
    for (const d of WATCHED) this.listers.set(d.resource, mgr.informers.forResource(d as ResourceDescriptor<TypedObject>).lister());
    let b = mgr
      .controller(RESOURCE_QUOTA_CONTROLLER_NAME)
      .watches(builtin.resourceQuotas, {
        create: (e, q) => q.add(nameOf(e.object)),
        // Only a spec change (or a hard resource without usage) needs a recount: status writes do not.
        update: (e, q) => {
          const n = e.objectNew;
          const missing = Object.keys(n.spec?.hard ?? {}).some((k) => n.status?.used?.[k] === undefined);
          if (missing || !semanticEqual(n.spec?.hard ?? {}, e.objectOld.spec?.hard ?? {})) q.add(nameOf(n));
        },
      });
    for (const d of WATCHED) {
      const handler: EventHandler<TypedObject, ObjectName> = {
        // A create was charged by admission; deletions and usage changes are given back here.
        update: (e, q) => {
          if (usageKey(d, e.objectOld) !== usageKey(d, e.objectNew)) this.enqueueNamespace(e.objectNew.metadata?.namespace, q);
        },
        delete: (e, q) => this.enqueueNamespace(e.object.metadata?.namespace, q),
      };
      b = b.watches(d as ResourceDescriptor<TypedObject>, handler);
    }
    this.controller = b.withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_RESOURCE_QUOTA_WORKERS }).reconcile((req, ctx) => this.sync(req, ctx.client));
  }

  private enqueueNamespace(ns: string | undefined, q: { add(r: ObjectName): void }): void {
    if (!ns) return;
    for (const quota of this.quotas.namespace(ns).list()) q.add(nameOf(quota));
  }

  /** syncResourceQuota: status.hard and status.used from a recount. */
  async sync(key: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult> {
    let quota: ResourceQuota;
    try {
      quota = this.quotas.namespace(key.namespace).get(key.name);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const hard = quota.spec?.hard ?? {};
    const used = await this.usage(quota, Object.keys(hard), client);
    const status = { hard: { ...hard }, used };
    if (!semanticEqual(status, { hard: quota.status?.hard ?? {}, used: quota.status?.used ?? {} })) {
      await client.resource(builtin.resourceQuotas, key.namespace).updateStatus({ ...deepCopy(quota), status });
    }
    return { requeueAfterMs: this.resyncMs };
  }

  /** The namespace's usage of each hard resource some evaluator counts. */
  async usage(quota: ResourceQuota, names: readonly string[], client: ResourceClientFactory): Promise<Record<string, string>> {
    const ns = quota.metadata?.namespace ?? "";
    const resources = new Map<string, ResourceDescriptor>();
    for (const d of LEGACY) resources.set(`${d.group}/${d.resource}`, d);
    for (const n of names) {
      const m = /^count\/([^.]+)(?:\.(.+))?$/.exec(n);
      if (!m) continue;
      const d = findBuiltinResource({ group: m[2] ?? "", resource: m[1] });
      if (d?.namespaced) resources.set(`${d.group}/${d.resource}`, d);
    }
    const total: ResourceList = new Map();
    const counted = new Set<string>();
    for (const d of resources.values()) {
      const mine = names.filter((n) => covers(d.group, d.resource, n));
      if (mine.length === 0) continue;
      for (const n of mine) counted.add(n);
      const lister = this.listers.get(d.resource);
      const objects: readonly TypedObject[] = d.group === "" && lister ? lister.namespace(ns).list() : (await client.resource(d as ResourceDescriptor<TypedObject>, ns).list()).items;
      for (const t of objects) {
        const o = t as KubeObject;
        if (!quotaSelects(quota as unknown as KubeObject, d.group, d.resource, o)) continue;
        for (const [k, q] of usageOf(d.group, d.resource, o)) {
          if (!mine.includes(k)) continue;
          const cur = total.get(k);
          total.set(k, cur ? add(cur, q) : q);
        }
      }
    }
    const out: Record<string, string> = {};
    for (const n of names) if (counted.has(n)) out[n] = formatQuantity(total.get(n) ?? zero);
    return out;
  }
}
