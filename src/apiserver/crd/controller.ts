/**
 * The in-process CustomResourceDefinition loop: apiextensions-apiserver's naming,
 * establishing and finalizer controllers plus the dynamic serving of custom resources,
 * driven by the storage watch.
 *
 * Per CRD, reconcile does, in order:
 * 1. naming: accept the requested names that no other CRD of the group uses
 *    (NamesAccepted=True/NoConflicts, or False with PluralConflict, SingularConflict,
 *    ShortNamesConflict, KindConflict, ListKindConflict) into status.acceptedNames;
 * 2. establishing: NamesAccepted=True → Established=True (InitialNamesAccepted) — written in
 *    the same status update, so `kubectl wait --for=condition=Established` returns at once;
 * 3. serving: every served version of an established CRD gets a ResourceStore (strategy from
 *    the CRD, storage seen through the version codec) in the registry, hence in discovery and
 *    OpenAPI, and its type (the published schema) registered with the field manager for
 *    server-side apply; a changed CRD replaces them, a removed one withdraws them (and the types);
 * 4. cleanup: a deleted CRD (deletionTimestamp + the customresourcecleanup finalizer, added by
 *    the delete hook) refuses new objects, deletes every object of the resource, and once none
 *    is left records Terminating=True/InstanceDeletionCompleted and removes the finalizer, which
 *    removes the CRD.
 *
 * State machine of a CRD here: created → (names accepted) Established → served;
 * DELETE → Terminating (InstanceDeletionPending → InstanceDeletionInProgress) → instances gone →
 * InstanceDeletionCompleted → finalizer removed → gone, stores withdrawn.
 */
import type { CustomResourceDefinitionCondition } from "../../apimachinery/api/apiextensions/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { Admission } from "../admission/chain.js";
import { defaultWriteContext, type FieldTracker, type ResourceHooks, type WriteContext } from "../rest/context.js";
import { resourcePrefix } from "../rest/keys.js";
import { formatTime } from "../rest/metadata.js";
import { ResourceStore } from "../rest/store.js";
import type { TableConverter } from "../server/env.js";
import type { ResourceRegistry } from "../server/resources.js";
import type { Storage, StorageWatch } from "../storage/interface.js";
import type { GroupVersionKind } from "../ssa/fieldmanager.js";
import type { TypeNode } from "../ssa/schema.js";
import type { Printer } from "../tables/types.js";
import { VersionCodec, VersionedStorage } from "./codec.js";
import { webhookConversionOf, WebhookConverter } from "./conversion.js";
import type { WebhookClient } from "../webhook/client.js";
import { gvkOf } from "../../apimachinery/gvk.js";
import { customResourceStrategy, resolveVersions, type CustomResourceVersion, type PrunedFields, type WarningSinks } from "./crstrategy.js";
import { customResourceType } from "./fieldtypes.js";
import { customResourcePrinter, printTable } from "./printer.js";
import { isObject, jsonEqual } from "./schema.js";
import {
  compareKubeVersions,
  conditionOf,
  crdGroup,
  crdResource,
  customResourceCleanupFinalizer,
  isConditionTrue,
  namesOf,
  specOf,
  statusOf,
  type CRDStatus,
} from "./types.js";

/**
 * The server's field manager as the CRD loop sees it: field tracking for the stores, and the
 * registry of kinds' types, so that server-side apply merges custom resources by their schema.
 */
export interface CustomResourceFieldTracker extends FieldTracker {
  /** Registers (a type) or forgets (undefined) the type of a kind at a version. */
  setType(gvk: GroupVersionKind, type: TypeNode | undefined): void;
}

export interface CustomResourceControllerDeps {
  registry: ResourceRegistry;
  storage: Storage;
  clock: Clock;
  /**
   * managedFields bookkeeping and server-side apply for custom resources (the server's field
   * manager). Every served version's type is registered with it while the version is served.
   */
  fieldTracker?: CustomResourceFieldTracker;
  /** The server's admission chain, run for custom resources as for built-in ones. */
  admission?: Admission;
  /** Calls conversion webhooks (CRDs with `spec.conversion.strategy: Webhook`). */
  webhookClient?: WebhookClient;
  log?: (msg: string, err?: unknown) => void;
}

interface Served {
  /** What the stores were built from: spec and accepted names. */
  signature: string;
  group: string;
  kind: string;
  plural: string;
  stores: ResourceStore[];
  /** The kinds whose type is registered with the field tracker (one per served store). */
  types: GroupVersionKind[];
  /** Printers by apiVersion; the first entry is the preferred version. */
  printers: Map<string, Printer>;
  /** The version codecs by apiVersion (conversion between versions). */
  codecs: Map<string, VersionCodec>;
}

type Condition = CustomResourceDefinitionCondition;

const systemContext = (): WriteContext => defaultWriteContext({ fieldManager: "kube-apiserver" });
const crdPrefix = resourcePrefix(crdGroup, crdResource);

function setCondition(status: CRDStatus, cond: Omit<Condition, "lastTransitionTime">, now: string): void {
  const conds = Array.isArray(status.conditions) ? [...status.conditions] : [];
  const i = conds.findIndex((c) => c.type === cond.type);
  if (i < 0) conds.push({ ...cond, lastTransitionTime: now });
  else {
    const old = conds[i];
    const changedStatus = old.status !== cond.status;
    conds[i] = { ...cond, lastTransitionTime: changedStatus || !old.lastTransitionTime ? now : old.lastTransitionTime };
  }
  status.conditions = conds;
}

function usedNames(all: readonly KubeObject[], self: KubeObject): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  const group = specOf(self).group;
  for (const other of all) {
    if (other.metadata?.name === self.metadata?.name || specOf(other).group !== group) continue;
    const a = statusOf(other).acceptedNames;
    if (!isObject(a)) continue;
    for (const n of [a.plural, a.singular, ...(Array.isArray(a.shortNames) ? a.shortNames : [])]) if (n) resources.add(n);
    for (const k of [a.kind, a.listKind]) if (k) kinds.add(k);
  }
  return { resources, kinds };
}

/** The naming + establishing controllers' status for `crd` given every CRD (calculateNamesAndConditions). */
export function computeNamesStatus(crd: KubeObject, all: readonly KubeObject[], now: string): CRDStatus {
  const status = deepCopy(statusOf(crd));
  const requested = namesOf(crd);
  const accepted = { ...(isObject(status.acceptedNames) ? status.acceptedNames : { plural: "", kind: "" }) };
  const next = { ...accepted };
  const { resources, kinds } = usedNames(all, crd);
  let cond: Omit<Condition, "lastTransitionTime"> = { type: "NamesAccepted", status: "Unknown" };
  const conflict = (reason: string, message: string) => {
    cond = { type: "NamesAccepted", status: "False", reason, message };
  };
  if (accepted.plural !== requested.plural) {
    if (resources.has(requested.plural ?? "")) conflict("PluralConflict", `"${requested.plural}" is already in use`);
    else next.plural = requested.plural ?? "";
  }
  if (accepted.singular !== requested.singular) {
    if (resources.has(requested.singular ?? "")) conflict("SingularConflict", `"${requested.singular}" is already in use`);
    else next.singular = requested.singular;
  }
  const reqShort = Array.isArray(requested.shortNames) ? requested.shortNames : [];
  const accShort = Array.isArray(accepted.shortNames) ? accepted.shortNames : [];
  if (!jsonEqual(reqShort, accShort) && !(reqShort.length === 0 && accepted.shortNames === undefined)) {
    const errs = reqShort.filter((s) => !accShort.includes(s) && resources.has(s)).map((s) => `"${s}" is already in use`);
    if (errs.length) conflict("ShortNamesConflict", errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`);
    else if (reqShort.length) next.shortNames = [...reqShort];
    else delete next.shortNames;
  }
  if (accepted.kind !== requested.kind) {
    if (kinds.has(requested.kind ?? "")) conflict("KindConflict", `"${requested.kind}" is already in use`);
    else next.kind = requested.kind ?? "";
  }
  if (accepted.listKind !== requested.listKind) {
    if (kinds.has(requested.listKind ?? "")) conflict("ListKindConflict", `"${requested.listKind}" is already in use`);
    else next.listKind = requested.listKind;
  }
  if (Array.isArray(requested.categories) && requested.categories.length) next.categories = [...requested.categories];
  else delete next.categories;
  if (cond.status === "Unknown") cond = { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" };
  status.acceptedNames = next;
  setCondition(status, cond, now);
  const established = conditionOf(crd, "Established");
  if (established?.status !== "True") {
    if (cond.status === "True") {
      // The establishing controller's step, taken at once.
      setCondition(status, { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" }, now);
    } else {
      setCondition(status, { type: "Established", status: "False", reason: "NotAccepted", message: "not all names are accepted" }, now);
    }
  }
  return status;
}

export class CustomResourceController {
  private readonly served = new Map<string, Served>();
  private readonly pruned: PrunedFields = new WeakMap();
  /** Each request object's warning list, for ratcheted CEL rule failures found during validation. */
  private readonly warningSinks: WarningSinks = new WeakMap();
  private watch: StorageWatch | undefined;
  private loop: Promise<void> | undefined;
  private readonly dirty = new Set<string>();
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: CustomResourceControllerDeps) {}

  private get crdStore(): ResourceStore | undefined {
    return this.deps.registry.byGroupResource(crdGroup, crdResource);
  }

  private now(): string {
    return formatTime(this.deps.clock.now());
  }

  /** Hooks of the CRD store: the first DELETE adds the cleanup finalizer and a Terminating condition. */
  crdHooks(): ResourceHooks {
    return {
      prepareDelete: (obj, now) => {
        const meta = (obj.metadata ??= {});
        const finalizers = meta.finalizers ?? [];
        if (!finalizers.includes(customResourceCleanupFinalizer)) meta.finalizers = [...finalizers, customResourceCleanupFinalizer];
        if (!meta.deletionTimestamp) {
          const status = (isObject(obj.status) ? obj.status : (obj.status = {})) as CRDStatus;
          setCondition(
            status,
            {
              type: "Terminating",
              status: "True",
              reason: "InstanceDeletionPending",
              message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
            },
            now,
          );
        }
        return obj;
      },
      canRemove: (obj) => !(obj.metadata?.finalizers ?? []).includes(customResourceCleanupFinalizer),
    };
  }

  /** Starts watching and reconciles every existing CRD (serving those already established). */
  async start(): Promise<void> {
    if (!this.crdStore) return;
    const storage = this.deps.storage;
    this.watch = storage.watch("/registry/", { fromRevision: storage.currentRevision(), maxLag: 1_000_000 });
    for (const item of (await storage.list(crdPrefix)).items) this.dirty.add(item.object.metadata?.name ?? "");
    this.loop = this.consume().catch((err: unknown) => this.deps.log?.("customresourcedefinition watch loop failed", err));
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.close();
    await this.loop;
    await this.running;
  }

  /** Resolves when pending reconciliation has run (for tests). */
  async idle(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setImmediate(r));
      await this.running;
      if (!this.scheduled && this.dirty.size === 0) return;
    }
  }

  private async consume(): Promise<void> {
    for await (const ev of this.watch!) {
      if (ev.key.startsWith(crdPrefix)) {
        this.dirty.add(ev.key.slice(crdPrefix.length));
        this.schedule();
        continue;
      }
      if (ev.type !== "DELETED") continue;
      // An instance went away: a terminating CRD may now be empty.
      for (const [name, s] of this.served) {
        if (ev.key.startsWith(resourcePrefix(s.group, s.plural))) {
          this.dirty.add(name);
          this.schedule();
        }
      }
    }
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // The chain never rejects: a failed pass must not stop the next ones.
      this.running = this.running.then(() => this.reconcileAll()).catch((err: unknown) => this.deps.log?.("customresourcedefinition pass failed", err));
    });
  }

  private async reconcileAll(): Promise<void> {
    const names = [...this.dirty];
    this.dirty.clear();
    for (const name of names) {
      if (this.stopped) return;
      try {
        await this.reconcile(name);
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) {
          this.dirty.add(name);
          this.schedule();
          continue;
        }
        this.deps.log?.(`reconciling customresourcedefinition ${name} failed`, err);
      }
    }
  }

  private async reconcile(name: string): Promise<void> {
    const store = this.crdStore;
    if (!store) return;
    let crd: KubeObject;
    try {
      crd = await store.get(undefined, name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) {
        this.unserve(name);
        return;
      }
      throw err;
    }
    const all = (await this.deps.storage.list(crdPrefix)).items.map((i) => i.object);
    const status = computeNamesStatus(crd, all, this.now());
    if (!jsonEqual(stripTimes(status), stripTimes(statusOf(crd)))) {
      crd = await this.writeStatus(name, (cur) => {
        const next = computeNamesStatus(cur, all, this.now());
        return { ...deepCopy(cur), status: next };
      });
    }
    if (isConditionTrue(crd, "Established")) this.serve(crd);
    else if (!crd.metadata?.deletionTimestamp) this.unserve(name);
    if (crd.metadata?.deletionTimestamp && (crd.metadata.finalizers ?? []).includes(customResourceCleanupFinalizer)) {
      await this.finalize(crd);
    }
  }

  private async writeStatus(name: string, produce: (cur: KubeObject) => KubeObject): Promise<KubeObject> {
    const r = await this.crdStore!.update(
      undefined,
      name,
      (cur) => {
        if (!cur) throw StatusError.notFound({ group: crdGroup, resource: crdResource }, name);
        return produce(cur);
      },
      systemContext(),
      { subresource: "status" },
    );
    return r.object;
  }

  private withCondition(cur: KubeObject, cond: Omit<Condition, "lastTransitionTime">): KubeObject {
    const next = deepCopy(cur);
    const status = (isObject(next.status) ? next.status : (next.status = {})) as CRDStatus;
    setCondition(status, cond, this.now());
    return next;
  }

  /** The finalizer controller: delete every instance, then let the CRD go. */
  private async finalize(crd: KubeObject): Promise<void> {
    const name = crd.metadata?.name ?? "";
    const served = this.served.get(name);
    const cleanupDone = (cur: KubeObject, cond: Omit<Condition, "lastTransitionTime">) => {
      const next = this.withCondition(cur, cond);
      next.metadata = { ...next.metadata, finalizers: (next.metadata?.finalizers ?? []).filter((f) => f !== customResourceCleanupFinalizer) };
      return next;
    };
    if (!served || served.stores.length === 0) {
      await this.writeStatus(name, (cur) => cleanupDone(cur, { type: "Terminating", status: "False", reason: "NeverEstablished", message: "resource was never established" }));
      return;
    }
    const progress = conditionOf(crd, "Terminating");
    if (progress?.reason !== "InstanceDeletionInProgress") {
      crd = await this.writeStatus(name, (cur) =>
        this.withCondition(cur, { type: "Terminating", status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" }),
      );
    }
    const store = served.stores[0];
    const items = (await this.deps.storage.list(resourcePrefix(served.group, served.plural))).items;
    for (const item of items) {
      const meta = item.object.metadata ?? {};
      if (meta.deletionTimestamp) continue;
      try {
        await store.delete(meta.namespace, meta.name ?? "", { dryRun: false, propagationPolicy: "Background" }, systemContext());
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) {
          await this.writeStatus(name, (cur) =>
            this.withCondition(cur, {
              type: "Terminating",
              status: "True",
              reason: "InstanceDeletionFailed",
              message: `could not issue all deletes: ${err instanceof Error ? err.message : String(err)}`,
            }),
          );
          throw err;
        }
      }
    }
    const left = await this.deps.storage.list(resourcePrefix(served.group, served.plural), { limit: 1 });
    if (left.items.length > 0) return; // objects with finalizers: their removal marks the CRD dirty again
    await this.writeStatus(name, (cur) => cleanupDone(cur, { type: "Terminating", status: "True", reason: "InstanceDeletionCompleted", message: "removed all instances" }));
  }

  private hooksFor(v: CustomResourceVersion): ResourceHooks {
    const crdKey = `${crdPrefix}${v.crdName}`;
    const reportPruned = (obj: KubeObject, ctx: WriteContext) => {
      this.warningSinks.set(obj, ctx.warnings);
      if (v.deprecated) {
        const w = v.deprecationWarning ?? `${v.group}/${v.version} ${v.kind} is deprecated`;
        if (!ctx.warnings.includes(w)) ctx.warnings.push(w);
      }
      const paths = this.pruned.get(obj);
      if (!paths || ctx.fieldValidation === "Ignore") return;
      const texts = paths.map((p) => `unknown field ${JSON.stringify(p)}`);
      if (ctx.fieldValidation === "Strict") throw StatusError.badRequest(`strict decoding error: ${texts.join(", ")}`);
      for (const t of texts) if (!ctx.warnings.includes(t)) ctx.warnings.push(t);
    };
    return {
      beforeCreate: async (obj, ctx) => {
        const crd = await this.deps.storage.get(crdKey);
        if (!crd || crd.object.metadata?.deletionTimestamp) {
          throw new StatusError({
            message: "create not allowed while custom resource definition is terminating",
            reason: "MethodNotAllowed",
            details: { group: v.group, kind: v.plural },
            code: 405,
          });
        }
        reportPruned(obj, ctx);
      },
      beforeUpdate: (obj, _old, ctx) => reportPruned(obj, ctx),
    };
  }

  private serve(crd: KubeObject): void {
    const name = crd.metadata?.name ?? "";
    const signature = JSON.stringify([crd.spec, statusOf(crd).acceptedNames]);
    const cur = this.served.get(name);
    if (cur?.signature === signature) return;
    this.unserve(name);
    const versions = resolveVersions(crd).sort((a, b) => compareKubeVersions(a.version, b.version));
    const group = specOf(crd).group ?? "";
    const storageVersion = versions[0]?.storageVersion ?? "";
    const served: Served = { signature, group, kind: versions[0]?.kind ?? namesOf(crd).kind ?? "", plural: namesOf(crd).plural ?? "", stores: [], types: [], printers: new Map(), codecs: new Map() };
    const conversion = webhookConversionOf(name, specOf(crd) as Record<string, unknown>);
    if (conversion && !this.deps.webhookClient) this.deps.log?.(`customresourcedefinition ${name}: Webhook conversion needs a webhook client; versions differ only in apiVersion`);
    const converter = conversion && this.deps.webhookClient ? new WebhookConverter(conversion, this.deps.webhookClient) : undefined;
    const storageSchema = versions.find((v) => v.version === storageVersion)?.schema;
    for (const v of versions) {
      const apiVersion = `${group}/${v.version}`;
      const codec = new VersionCodec(apiVersion, `${group}/${storageVersion}`, v.schema, {
        converter,
        storageSchema,
        onWatchError: (err) => this.deps.log?.(`watch of ${apiVersion} ${v.plural} ended: an event could not be converted`, err),
      });
      served.codecs.set(apiVersion, codec);
      const store = new ResourceStore(customResourceStrategy(v, this.pruned, this.warningSinks), {
        storage: new VersionedStorage(this.deps.storage, codec),
        clock: this.deps.clock,
        hooks: this.hooksFor(v),
        admission: this.deps.admission,
        fieldTracker: this.deps.fieldTracker,
        log: this.deps.log,
      });
      try {
        this.deps.registry.add(store);
      } catch (err) {
        this.deps.log?.(`cannot serve ${apiVersion} ${v.plural}`, err);
        continue;
      }
      served.stores.push(store);
      served.printers.set(apiVersion, customResourcePrinter(v));
      const gvk = { group, version: v.version, kind: v.kind };
      this.deps.fieldTracker?.setType(gvk, customResourceType(v.schema));
      served.types.push(gvk);
    }
    this.served.set(name, served);
  }

  private unserve(name: string): void {
    const s = this.served.get(name);
    if (!s) return;
    for (const store of s.stores) this.deps.registry.remove(store);
    for (const gvk of s.types) this.deps.fieldTracker?.setType(gvk, undefined);
    this.served.delete(name);
  }

  /**
   * A custom resource converted to `apiVersion` of its CRD (None: apiVersion; Webhook: through
   * the conversion webhook), pruned and defaulted for that version; undefined when `obj` is not
   * a served custom resource or the version is not served. The result is a new mutable object.
   */
  convert(obj: KubeObject, apiVersion: string, signal?: AbortSignal): Promise<KubeObject> | undefined {
    const { group, kind } = gvkOf(obj);
    for (const s of this.served.values()) {
      if (s.group !== group || s.kind !== kind) continue;
      const codec = s.codecs.get(apiVersion);
      if (!codec) return undefined;
      return codec.decodeMany([obj], signal, false).then(([o]) => deepCopy(o));
    }
    return undefined;
  }

  /** The printer of a served custom resource kind at `apiVersion` (or its preferred version). */
  printerFor(gk: { group: string; kind: string }, apiVersion: string | undefined): Printer | undefined {
    for (const s of this.served.values()) {
      if (s.group !== gk.group || s.kind !== gk.kind) continue;
      return (apiVersion !== undefined ? s.printers.get(apiVersion) : undefined) ?? s.printers.values().next().value;
    }
    return undefined;
  }

  /** Tables for custom resources; every other kind goes to `fallback` (the built-in printers). */
  tableConverter(fallback: TableConverter | undefined): TableConverter | undefined {
    if (!fallback) return undefined;
    return (gk, objects, opts) => {
      const printer = this.printerFor(gk, objects[0]?.apiVersion);
      return printer ? printTable(printer, objects, opts) : fallback(gk, objects, opts);
    };
  }
}

function stripTimes(status: CRDStatus): unknown {
  return {
    ...status,
    conditions: (status.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: undefined })),
  };
}
