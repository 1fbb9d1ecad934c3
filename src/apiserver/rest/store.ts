/**
 * ResourceStore: kube-apiserver's generic registry store (genericregistry.Store) for one
 * resource — everything between the HTTP handler and storage: system metadata, strategies,
 * optimistic concurrency, resourceVersion semantics of reads, pagination, graceful deletion,
 * finalizers and propagation policies, dry runs.
 *
 * Invariants: objects read from storage are frozen and never mutated (every write starts from a
 * deep copy); a dry run never writes to storage and never consumes a revision.
 *
 * Admission (deps.admission) runs where kube-apiserver runs it: mutating plugins after decoding
 * and defaulting and before the strategy's preparation and validation (for updates and patches
 * inside the retry loop, on the updated object, as GuaranteedUpdate's tryUpdate does);
 * validating plugins after the strategy's validation and before the write; DELETE with the
 * stored object as oldObject before anything is written (also for each item of a
 * deletecollection, after one collection-wide DELETE). Subresources are admitted with the
 * subresource's name and kind (UpdateOptions.admission for scale, binding and finalize).
 *
 * A store whose strategy has a `conversion` serves its version from another version's storage
 * (rest/conversion.ts): requests are defaulted in the served version and converted to the
 * storage version before preparation and validation (admission sees the served version);
 * everything returned is converted back.
 */
import type { Status } from "../../apimachinery/api/meta/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors, FieldError, omitValue } from "../../apimachinery/fielderrors.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import type { GroupResource } from "../../apimachinery/gvk.js";
import type { GroupKind } from "../../apimachinery/errors.js";
import type { Clock } from "../../apimachinery/clock.js";
import type { KubeList, KubeObject } from "../../apimachinery/types.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import type { ResourceStrategy } from "../registry/strategy.js";
import type { Storage, StoredObject } from "../storage/interface.js";
import { CompactedError, KeyExistsError, KeyNotFoundError, RevisionMismatchError } from "../storage/errors.js";
import type { FieldTracker, ResourceHooks, Undo, WriteContext } from "./context.js";
import { decodeContinue, encodeContinue } from "./continuetoken.js";
import { VersionView } from "./conversion.js";
import { collectionPrefix, objectKey, resourcePrefix } from "./keys.js";
import { ListCache } from "./listcache.js";
import { formatTime, generateName, newUID } from "./metadata.js";
import { requireObjectMetaTypes } from "./metatypes.js";
import { parseResourceVersion, type DeleteOptions, type ListOptions } from "./options.js";
import { selectionPredicate, type ObjectPredicate } from "./selectors.js";
import type { Admission } from "../admission/chain.js";
import { newAttributes } from "../admission/attributes.js";
import type { AdmissionAttributes, AdmissionOperation } from "../admission/interfaces.js";

const conflictDetail = "the object has been modified; please apply your changes to the latest version and try again";
const maxUpdateAttempts = 8;
const maxGenerateNameAttempts = 8;

export interface ResourceStoreDeps {
  storage: Storage;
  clock: Clock;
  hooks?: ResourceHooks;
  /** The admission chain (absent: no admission at all, as with every plugin disabled). */
  admission?: Admission;
  /** Whether DELETE answers with the deleted object instead of a Status (pods, services, namespaces). */
  returnDeletedObject?: boolean;
  /** Field ownership (managedFields) and server-side apply; absent: no tracking, no apply. */
  fieldTracker?: FieldTracker;
  /** Where unexpected but answered failures are reported (the server's logger). */
  log?: (msg: string, err: unknown) => void;
}

export interface UpdateOptions {
  /** "status", or a subresource with its own update strategy (strategy.subresources.updates). */
  subresource?: string;
  /** Create the object when it does not exist, whatever the strategy says (server-side apply). */
  createIfMissing?: boolean;
  /**
   * Replaces the strategy's prepare + validate (for special subresources such as
   * namespaces/finalize). Returns validation errors.
   */
  prepare?: (obj: KubeObject, old: KubeObject) => FieldError[];
  /** The subresource managedFields record the write under (pods/resize, pods/ephemeralcontainers). */
  managedFieldsSubresource?: string;
  /** How admission sees a subresource write whose object is not the resource's own (scale, binding, finalize). */
  admission?: AdmissionView;
  /**
   * `produce` returns a body decoded as this kind's Go struct (DecodedRequest.typed): the
   * TypeMeta/ObjectMeta type check is skipped, it has nothing to find.
   */
  typed?: boolean;
}

/**
 * A subresource as admission sees it: its name, the kind of the object admission gets (e.g.
 * autoscaling/v1 Scale), the operation when it is not UPDATE (pods/binding is a CREATE), how
 * to see the new and old object that way, and how a mutated view is written back.
 */
export interface AdmissionView {
  subresource: string;
  kind?: GroupVersionKind;
  operation?: "CREATE" | "UPDATE";
  object?(obj: KubeObject): KubeObject;
  oldObject?(old: KubeObject): KubeObject | undefined;
  /** The object with a mutated view applied (absent: changes to the view are not written back). */
  apply?(obj: KubeObject, view: KubeObject): KubeObject;
}

export interface UpdateResult {
  object: KubeObject;
  created: boolean;
}

export interface DeleteResult {
  object: KubeObject;
  /** true when the object is gone from storage (or would be, for a dry run). */
  deleted: boolean;
}

export function metaOf(obj: KubeObject): NonNullable<KubeObject["metadata"]> {
  return (obj.metadata ??= {});
}

export class ResourceStore {
  readonly gr: GroupResource;
  readonly gk: GroupKind;
  readonly apiVersion: string;
  private supportedFields: Set<string> | undefined;
  /** Present when this store serves a version other than the storage version. */
  private readonly view: VersionView | undefined;

  constructor(
    readonly strategy: ResourceStrategy,
    private readonly deps: ResourceStoreDeps,
  ) {
    const n = strategy.names;
    this.gr = { group: n.group, resource: n.resource };
    this.gk = { group: n.group, kind: n.kind };
    this.apiVersion = n.group === "" ? n.version : `${n.group}/${n.version}`;
    this.view = strategy.conversion ? new VersionView(strategy.conversion) : undefined;
  }

  /** Whether stored objects are converted on the way out (see `present`). */
  get converts(): boolean {
    return this.view !== undefined;
  }

  /** A stored object as this store serves it (the object itself unless the version differs). */
  present(obj: KubeObject): KubeObject {
    return this.view ? this.view.present(obj) : obj;
  }

  /**
   * A request object of this store's version (defaulted, through mutating admission) in the
   * storage version: the object itself unless this store converts.
   */
  private toStorage(obj: KubeObject): KubeObject {
    return this.strategy.conversion ? this.strategy.conversion.toStorage(obj) : obj;
  }

  /**
   * An update's object made ready for the strategy: defaulted and through mutating admission in
   * the served version (inside the retry loop, on the updated object, as GuaranteedUpdate's
   * tryUpdate does), then in the storage version. `stored` is the current object as stored.
   */
  private async intakeUpdate(input: KubeObject, stored: KubeObject, ctx: WriteContext, opts: UpdateOptions, name: string): Promise<KubeObject> {
    let obj = input;
    this.strategy.defaults(obj);
    const admission = this.deps.admission;
    if (admission) {
      const view = opts.admission;
      const old = this.present(stored);
      const namespace = old.metadata?.namespace;
      const seen = view?.object ? view.object(obj) : obj;
      const attrs = this.admissionAttributes(view?.operation ?? "UPDATE", seen, view?.oldObject ? view.oldObject(old) : old, ctx, name, namespace, view, view?.subresource ?? opts.subresource);
      const mutating = admission.mutate(attrs, ctx.signal);
      if (mutating) await mutating;
      const after = attrs.object;
      if (view?.object) {
        // Plugins saw (and may have changed) the view: write it back where the view allows it.
        if (view.apply && after) obj = view.apply(obj, after);
      } else if (after && after !== obj) {
        obj = after;
      }
      if (obj !== input) this.normalizeTypeMeta(obj);
      // A plugin may have replaced the object or its metadata object.
      metaOf(obj).name = name;
      this.normalizeNamespace(obj, namespace);
    }
    return this.toStorage(obj);
  }

  get namespaced(): boolean {
    return this.strategy.names.namespaced;
  }

  get storage(): Storage {
    return this.deps.storage;
  }

  get fieldTracker(): FieldTracker | undefined {
    return this.deps.fieldTracker;
  }

  get returnsDeletedObject(): boolean {
    return this.deps.returnDeletedObject ?? false;
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.gr.group, this.gr.resource, this.namespaced ? namespace : undefined, name);
  }

  prefix(namespace: string | undefined): string {
    return collectionPrefix(this.gr.group, this.gr.resource, this.namespaced ? namespace || undefined : undefined);
  }

  private now(): string {
    return formatTime(this.deps.clock.now());
  }

  /** The server's clock (for stores that build on this one). */
  protected get clock(): Clock {
    return this.deps.clock;
  }

  // ---- reads -------------------------------------------------------------------------------

  private tooLargeResourceVersion(rv: number): StatusError {
    const cur = this.deps.storage.currentRevision();
    return StatusError.timeout(`Too large resource version: ${rv}, current: ${cur}`, 1);
  }

  async get(namespace: string | undefined, name: string, resourceVersion = ""): Promise<KubeObject> {
    const rv = parseResourceVersion(resourceVersion);
    if (rv !== undefined && rv > this.deps.storage.currentRevision()) throw this.tooLargeResourceVersion(rv);
    const cur = await this.deps.storage.get(this.key(namespace, name));
    if (!cur) throw StatusError.notFound(this.gr, name);
    return this.present(cur.object);
  }

  /** Field labels accepted in field selectors: what the strategy's fieldSet reports. */
  supportsField(key: string): boolean {
    if (!this.supportedFields) {
      const keys = new Set(["metadata.name", "metadata.namespace"]);
      try {
        const skeleton: KubeObject = { apiVersion: this.apiVersion, kind: this.gk.kind, metadata: { name: "", namespace: "" }, spec: {}, status: {} };
        for (const k of Object.keys(this.strategy.fieldSet(skeleton))) keys.add(k);
      } catch {
        // A strategy whose fieldSet needs more than a skeleton: metadata fields only.
      }
      this.supportedFields = keys;
    }
    return this.supportedFields.has(key);
  }

  /**
   * Predicates of recently used selector pairs: a predicate is a pure function of the two
   * selector texts (and of this store's strategy, which does not change), and clients repeat the
   * same selectors (informers, kubectl), so each pair is parsed once. Bounded: the oldest goes
   * first. Selectors that fail to parse are not kept (every request gets its 400).
   */
  private readonly predicates = new Map<string, ObjectPredicate | undefined>();

  predicate(labelSelector: string, fieldSelector: string): ObjectPredicate | undefined {
    if (labelSelector === "" && fieldSelector === "") return undefined;
    const key = `${labelSelector}\x00${fieldSelector}`;
    const m = this.predicates;
    const hit = m.get(key);
    if (hit !== undefined || m.has(key)) return hit;
    const p = selectionPredicate(labelSelector, fieldSelector, (o) => this.strategy.fieldSet(o), (k) => this.supportsField(k));
    if (m.size >= 256) m.delete(m.keys().next().value as string);
    m.set(key, p);
    return p;
  }

  async list(namespace: string | undefined, opts: ListOptions): Promise<KubeList> {
    const storage = this.deps.storage;
    const predicate = this.predicate(opts.labelSelector, opts.fieldSelector);
    const prefix = this.prefix(namespace);
    let revision: number | undefined;
    let startKey: string | undefined;
    if (opts.continue !== "") {
      if (parseResourceVersion(opts.resourceVersion) !== undefined) {
        throw StatusError.badRequest("specifying resource version is not allowed when using continue");
      }
      const token = decodeContinue(opts.continue);
      revision = token.rv;
      startKey = prefix + token.start;
      if (revision < storage.compactedRevision()) {
        const fresh = encodeContinue(storage.currentRevision(), token.start);
        const err = StatusError.expired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
        );
        (err.status as Status).metadata = { continue: fresh } as never;
        throw err;
      }
    } else {
      const rv = parseResourceVersion(opts.resourceVersion);
      if (rv !== undefined) {
        if (rv > storage.currentRevision()) throw this.tooLargeResourceVersion(rv);
        const exact = opts.resourceVersionMatch === "Exact" || (opts.resourceVersionMatch === undefined && opts.limit > 0);
        if (exact) {
          if (rv < storage.compactedRevision()) throw StatusError.expired("The resourceVersion for the provided list is too old.");
          revision = rv;
        }
      }
    }
    // An unpaged LIST at the current revision: reused while nothing of this resource is written (listcache.ts).
    const cacheable = revision === undefined && startKey === undefined && !(opts.limit > 0);
    const cacheKey = cacheable ? `${prefix}\x00${opts.labelSelector}\x00${opts.fieldSelector}` : "";
    if (cacheable) {
      const hit = this.listCache.get(cacheKey);
      if (hit) return { apiVersion: this.apiVersion, kind: this.strategy.names.listKind, metadata: { resourceVersion: String(storage.currentRevision()) }, items: hit.items as KubeObject[] };
    }
    const generation = cacheable ? this.listCache.generation() : undefined;
    let result;
    try {
      result = await storage.list(prefix, { revision, startKey, limit: opts.limit, predicate });
    } catch (err) {
      if (err instanceof CompactedError) throw StatusError.expired("The resourceVersion for the provided list is too old.");
      throw err;
    }
    const metadata: NonNullable<KubeList["metadata"]> = { resourceVersion: String(result.revision) };
    if (result.nextKey !== undefined) {
      metadata.continue = encodeContinue(result.revision, result.nextKey.slice(prefix.length));
      if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
    }
    const items = result.items.map((i) => this.present(i.object));
    return {
      apiVersion: this.apiVersion,
      kind: this.strategy.names.listKind,
      metadata,
      items: cacheable ? (this.listCache.set(cacheKey, generation, items) as KubeObject[]) : items,
    };
  }

  private listCacheOf: ListCache | undefined;

  /** Recent unpaged LIST results (listcache.ts), made on first use. */
  private get listCache(): ListCache {
    return (this.listCacheOf ??= new ListCache(this.deps.storage, resourcePrefix(this.gr.group, this.gr.resource)));
  }

  // ---- create ------------------------------------------------------------------------------

  /** TypeMeta and ObjectMeta of the right JSON types (nulls normalised away); 400 otherwise. */
  private requireMetaTypes(obj: KubeObject): void {
    requireObjectMetaTypes(obj, this.strategy.names.kind, this.strategy.names.version);
  }

  /** Checks apiVersion/kind of a request body against this resource and sets them. */
  private normalizeTypeMeta(obj: KubeObject): void {
    const n = this.strategy.names;
    if (obj.kind !== undefined && obj.kind !== "" && obj.kind !== n.kind) {
      throw StatusError.badRequest(`${obj.kind} in version "${n.version}" cannot be handled as a ${n.kind}: the kind of the object does not match the endpoint`);
    }
    if (obj.apiVersion !== undefined && obj.apiVersion !== "" && obj.apiVersion !== this.apiVersion) {
      throw StatusError.badRequest(
        `the API version in the data (${obj.apiVersion}) does not match the expected API version (${this.apiVersion})`,
      );
    }
    obj.apiVersion = this.apiVersion;
    obj.kind = n.kind;
  }

  private normalizeNamespace(obj: KubeObject, namespace: string | undefined): void {
    const meta = metaOf(obj);
    if (this.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw StatusError.badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      if (namespace) meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
  }

  private invalid(obj: KubeObject, errs: FieldError[]): StatusError {
    const seen = new Set<string>();
    const unique = errs.filter((e) => {
      const s = e.toString();
      if (seen.has(s)) return false;
      seen.add(s);
      return true;
    });
    return StatusError.invalid(this.gk, metaOf(obj).name ?? "", unique);
  }

  private admissionAttributes(
    operation: AdmissionOperation,
    obj: KubeObject | undefined,
    old: KubeObject | undefined,
    ctx: WriteContext,
    name: string,
    namespace: string | undefined,
    view?: AdmissionView,
    subresource?: string,
  ): AdmissionAttributes {
    const n = this.strategy.names;
    return newAttributes({
      operation,
      kind: view?.kind ?? { group: n.group, version: n.version, kind: n.kind },
      resource: { group: n.group, version: n.version, resource: n.resource },
      subresource: view?.subresource ?? subresource,
      namespace: this.namespaced ? namespace : "",
      name,
      object: obj,
      oldObject: old,
      options: optionsObject(operation, ctx),
      dryRun: ctx.dryRun,
      userInfo: ctx.user,
      warnings: ctx.warnings,
    });
  }

  /**
   * Creates `body` in `namespace`. With `owned`, the caller hands the body over (a freshly
   * decoded request body, a copy of its own): it is completed in place instead of copied first.
   */
  async create(namespace: string | undefined, body: KubeObject, ctx: WriteContext, owned = false, typed = false): Promise<KubeObject> {
    const request = owned ? body : deepCopy(body);
    // A body the decoder read as the kind's struct (DecodedRequest.typed) has the right TypeMeta/ObjectMeta types already.
    if (!typed) this.requireMetaTypes(request);
    this.normalizeTypeMeta(request);
    this.normalizeNamespace(request, namespace);
    if (metaOf(request).resourceVersion) {
      throw StatusError.internalError(new Error("resourceVersion should not be set on objects to be created"));
    }
    const admission = this.deps.admission;
    let obj: KubeObject = request;
    let undo: Undo | undefined;
    let generated = false;
    try {
      this.strategy.defaults(obj);
      if (admission) {
        // Mutating admission: after decoding and defaults, in the served version, before the
        // strategy (the name may still be generated).
        const m = metaOf(obj);
        const attrs = this.admissionAttributes("CREATE", obj, undefined, ctx, m.name ?? "", m.namespace);
        const mutating = admission.mutate(attrs, ctx.signal);
        if (mutating) await mutating;
        if (attrs.object && attrs.object !== obj) {
          obj = attrs.object;
          this.normalizeTypeMeta(obj);
          this.normalizeNamespace(obj, namespace);
        }
      }
      obj = this.toStorage(obj);
      const meta = metaOf(obj);
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
      // System fields and the generated name exist before the strategy runs (upstream fills them
      // in before BeforeCreate): Jobs put their uid and name into their selector and labels.
      meta.uid = newUID();
      meta.creationTimestamp = this.now();
      generated = !meta.name && !!meta.generateName;
      if (generated) meta.name = generateName(meta.generateName!);
      this.strategy.prepareForCreate(obj);
      if (!meta.name) throw this.invalid(obj, [fieldErrors.required("metadata.name", "name or generateName is required")]);
      // Stateful admission (allocation, pod defaults) runs before validation, as mutating admission does.
      undo = (await this.deps.hooks?.beforeCreate?.(obj, ctx)) ?? undefined;
      const errs = this.strategy.validate(obj);
      if (errs.length) throw this.invalid(obj, errs);
      if (admission) {
        const validating = admission.validate(this.admissionAttributes("CREATE", this.present(obj), undefined, ctx, meta.name, meta.namespace), ctx.signal);
        if (validating) await validating;
      }
      if (!ctx.applied) this.deps.fieldTracker?.track(obj, undefined, ctx);
    } catch (err) {
      undo?.();
      throw err;
    }
    const meta = metaOf(obj);
    if (ctx.dryRun) {
      undo?.();
      return this.present(obj);
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const stored = await this.deps.storage.create(this.key(meta.namespace, meta.name!), obj);
        this.deps.fieldTracker?.written?.(obj, stored.object);
        return this.present(stored.object);
      } catch (err) {
        if (err instanceof KeyExistsError) {
          if (generated && attempt + 1 < maxGenerateNameAttempts) {
            meta.name = generateName(meta.generateName!);
            // The strategy saw the first name (Jobs label their template with it): run it again.
            this.strategy.prepareForCreate(obj);
            continue;
          }
          undo?.();
          if (generated) throw StatusError.generateNameConflict(this.gr, meta.name!, 1);
          throw StatusError.alreadyExists(this.gr, meta.name!);
        }
        undo?.();
        throw err;
      }
    }
  }

  // ---- update ------------------------------------------------------------------------------

  /**
   * Updates `name` with the object `produce` returns for the current state (undefined when the
   * object does not exist). A PUT produces its body; a PATCH applies itself to the current
   * state. Lost compare-and-swap races are retried with a fresh state.
   */
  async update(
    namespace: string | undefined,
    name: string,
    produce: (current: KubeObject | undefined) => KubeObject,
    ctx: WriteContext,
    opts: UpdateOptions = {},
  ): Promise<UpdateResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const cur = await this.deps.storage.get(key);
      let obj = deepCopy(produce(cur ? this.present(cur.object) : undefined));
      if (!opts.typed) this.requireMetaTypes(obj);
      this.normalizeTypeMeta(obj);
      const meta = metaOf(obj);
      if (meta.name !== undefined && meta.name !== "" && meta.name !== name) {
        throw StatusError.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
      }
      meta.name = name;
      this.normalizeNamespace(obj, namespace);
      if (!cur) {
        if (opts.subresource || opts.prepare || !(this.strategy.allowCreateOnUpdate || opts.createIfMissing)) throw StatusError.notFound(this.gr, name);
        delete meta.resourceVersion;
        try {
          // obj is this attempt's own copy (made above): handed over as it is.
          // Its types were checked (or decoded) above.
          return { object: await this.create(namespace, obj, ctx, true, true), created: true };
        } catch (err) {
          if (err instanceof StatusError && err.reason === "AlreadyExists" && attempt < maxUpdateAttempts) continue;
          throw err;
        }
      }
      obj = await this.intakeUpdate(obj, cur.object, ctx, opts, name);
      try {
        const object = await this.updateExisting(key, cur, obj, ctx, opts);
        return { object: this.present(object), created: false };
      } catch (err) {
        if (err instanceof RevisionMismatchError || err instanceof KeyNotFoundError) {
          if (attempt < maxUpdateAttempts) continue;
          throw StatusError.conflict(this.gr, name, conflictDetail);
        }
        throw err;
      }
    }
  }

  private async updateExisting(key: string, cur: StoredObject, obj: KubeObject, ctx: WriteContext, opts: UpdateOptions): Promise<KubeObject> {
    const old = cur.object;
    const oldMeta = old.metadata ?? {};
    const meta = metaOf(obj);
    const name = oldMeta.name ?? "";
    if (meta.resourceVersion) {
      if (meta.resourceVersion !== oldMeta.resourceVersion) throw StatusError.conflict(this.gr, name, conflictDetail);
    } else if (!this.strategy.allowUnconditionalUpdate) {
      throw this.invalid(obj, [new FieldError("FieldValueInvalid", "metadata.resourceVersion", 0, "must be specified for an update")]);
    } else {
      // An unconditional update applies to the latest state (upstream's doUnconditionalUpdate).
      meta.resourceVersion = oldMeta.resourceVersion;
    }
    let undo: Undo | undefined;
    try {
      // (Defaults and mutating admission were applied by `intakeUpdate`.) System fields an
      // update cannot change (rest.BeforeUpdate).
      const errs: FieldError[] = [];
      if (meta.uid && meta.uid !== oldMeta.uid) errs.push(fieldErrors.invalid("metadata.uid", meta.uid, "field is immutable"));
      meta.uid = oldMeta.uid;
      if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
      else delete meta.generation;
      meta.creationTimestamp = oldMeta.creationTimestamp;
      if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
        meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
      }
      if (opts.prepare) {
        errs.push(...opts.prepare(obj, old));
      } else if (opts.subresource === "status") {
        this.strategy.prepareForStatusUpdate(obj, old);
        undo = (await this.deps.hooks?.beforeUpdate?.(obj, old, { ...ctx, subresource: "status" })) ?? undefined;
        errs.push(...this.strategy.validateStatusUpdate(obj, old));
      } else if (opts.subresource !== undefined) {
        const sub = this.strategy.subresources.updates?.[opts.subresource];
        if (!sub) throw StatusError.notFound(this.gr, name);
        sub.prepareForUpdate(obj, old);
        undo = (await this.deps.hooks?.beforeUpdate?.(obj, old, { ...ctx, subresource: opts.subresource })) ?? undefined;
        errs.push(...sub.validateUpdate(obj, old));
      } else {
        this.strategy.prepareForUpdate(obj, old);
        undo = (await this.deps.hooks?.beforeUpdate?.(obj, old, ctx)) ?? undefined;
        errs.push(...this.strategy.validateUpdate(obj, old));
      }
      if (oldMeta.deletionTimestamp) {
        const before = new Set(oldMeta.finalizers ?? []);
        const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
        if (added.length) {
          errs.push(
            new FieldError(
              "FieldValueForbidden",
              "metadata.finalizers",
              omitValue,
              `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
            ),
          );
        }
      }
      if (errs.length) throw this.invalid(obj, errs);
      if (!ctx.applied) this.deps.fieldTracker?.track(obj, old, ctx, opts.subresource ?? opts.managedFieldsSubresource);
    } catch (err) {
      undo?.();
      throw err;
    }
    const view = opts.admission;
    if (this.deps.admission) {
      try {
        const served = this.present(obj);
        const seen = view?.object ? view.object(served) : served;
        const oldServed = this.present(old);
        const validating = this.deps.admission.validate(
          this.admissionAttributes(view?.operation ?? "UPDATE", seen, view?.oldObject ? view.oldObject(oldServed) : oldServed, ctx, name, oldMeta.namespace, view, view?.subresource ?? opts.subresource),
          ctx.signal,
        );
        if (validating) await validating;
      } catch (err) {
        undo?.();
        throw err;
      }
    }
    const remove = this.shouldRemove(obj);
    if (ctx.dryRun) {
      undo?.();
      meta.resourceVersion = oldMeta.resourceVersion;
      return obj;
    }
    try {
      if (remove) {
        const gone = await this.deps.storage.delete(key, cur.rev);
        this.deps.hooks?.afterDelete?.(gone.object);
        return gone.object;
      }
      const stored = (await this.deps.storage.update(key, obj, cur.rev)).object;
      this.deps.fieldTracker?.written?.(obj, stored);
      return stored;
    } catch (err) {
      undo?.();
      throw err;
    }
  }

  /** An object being deleted whose finalizers are all gone is removed by the write that clears them. */
  private shouldRemove(obj: KubeObject): boolean {
    const meta = metaOf(obj);
    if (!meta.deletionTimestamp) return false;
    if ((meta.finalizers ?? []).length > 0) return false;
    if ((meta.deletionGracePeriodSeconds ?? 0) !== 0) return false;
    return this.deps.hooks?.canRemove?.(obj) ?? true;
  }

  // ---- delete ------------------------------------------------------------------------------

  private checkPreconditions(options: DeleteOptions, cur: KubeObject): void {
    const p = options.preconditions;
    const meta = cur.metadata ?? {};
    const name = meta.name ?? "";
    if (p?.uid && p.uid !== meta.uid) {
      throw StatusError.conflict(this.gr, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${meta.uid ?? ""}`);
    }
    if (p?.resourceVersion && p.resourceVersion !== meta.resourceVersion) {
      throw StatusError.conflict(
        this.gr,
        name,
        `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ""}`,
      );
    }
  }

  /** The finalizers after applying a delete's propagation policy (deletionFinalizersForGarbageCollection). */
  private finalizersFor(options: DeleteOptions, existing: readonly string[]): string[] {
    const unspecified = options.propagationPolicy === undefined && options.orphanDependents === undefined;
    // Without a policy, existing finalizers decide; without those, the resource's default.
    const byDefault =
      unspecified && !existing.includes("orphan") && !existing.includes("foregroundDeletion") && this.strategy.orphanDependentsByDefault !== undefined;
    const orphan =
      options.propagationPolicy === "Orphan" || options.orphanDependents === true || (unspecified && existing.includes("orphan")) || byDefault;
    const foreground =
      options.propagationPolicy === "Foreground" || (unspecified && !orphan && existing.includes("foregroundDeletion"));
    const out = existing.filter((f) => f !== "orphan" && f !== "foregroundDeletion");
    if (orphan) out.push("orphan");
    if (foreground) out.push("foregroundDeletion");
    return out;
  }

  async delete(namespace: string | undefined, name: string, options: DeleteOptions, ctx: WriteContext): Promise<DeleteResult> {
    const r = await this.deleteStored(namespace, name, options, ctx);
    const orphaning = this.strategy.orphanDependentsByDefault;
    if (orphaning && options.propagationPolicy === undefined && options.orphanDependents === undefined && !ctx.warnings.includes(orphaning.warning)) {
      ctx.warnings.push(orphaning.warning);
    }
    return { object: this.present(r.object), deleted: r.deleted };
  }

  private async deleteStored(namespace: string | undefined, name: string, options: DeleteOptions, ctx: WriteContext): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    const hooks = this.deps.hooks;
    for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
      const cur = await this.deps.storage.get(key);
      if (!cur) throw StatusError.notFound(this.gr, name);
      this.checkPreconditions(options, cur.object);
      hooks?.validateDelete?.(cur.object);
      await this.admitDelete(name, namespace, cur.object, options, ctx);
      const obj = deepCopy(cur.object);
      const meta = metaOf(obj);
      const nowMs = this.deps.clock.now();
      const bumpGeneration = () => {
        if ((meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
      };
      let pendingWrite = false;

      // Graceful deletion (pods).
      if (hooks?.gracePeriodSeconds) {
        const grace = hooks.gracePeriodSeconds(obj, options);
        if (meta.deletionTimestamp && meta.deletionGracePeriodSeconds !== undefined) {
          // Already terminating: a shorter grace period moves the deadline earlier, nothing else changes.
          if (grace >= meta.deletionGracePeriodSeconds) return { object: cur.object, deleted: false };
          if (grace > 0) {
            const deadline = nowMs + grace * 1000;
            if (deadline < Date.parse(meta.deletionTimestamp)) meta.deletionTimestamp = formatTime(deadline);
            meta.deletionGracePeriodSeconds = grace;
            pendingWrite = true;
          } else {
            meta.deletionGracePeriodSeconds = 0;
          }
        } else if (grace > 0) {
          meta.deletionTimestamp = formatTime(nowMs + grace * 1000);
          meta.deletionGracePeriodSeconds = grace;
          bumpGeneration();
          pendingWrite = true;
        }
      }

      // Finalizers and propagation policy.
      const finalizers = this.finalizersFor(options, meta.finalizers ?? []);
      const changedFinalizers = finalizers.join("\x00") !== (meta.finalizers ?? []).join("\x00");
      if (finalizers.length) meta.finalizers = finalizers;
      else delete meta.finalizers;
      const special = hooks?.prepareDelete?.(obj, formatTime(nowMs));
      const blocked = finalizers.length > 0 || (special !== undefined && hooks?.canRemove?.(special) === false);
      if (blocked || pendingWrite || changedFinalizers || special) {
        if (!meta.deletionTimestamp) {
          meta.deletionTimestamp = formatTime(nowMs);
          meta.deletionGracePeriodSeconds = 0;
          bumpGeneration();
        }
        if (blocked || pendingWrite) {
          const target = special ?? obj;
          if (ctx.dryRun) return { object: target, deleted: false };
          try {
            const stored = await this.deps.storage.update(key, target, cur.rev);
            return { object: stored.object, deleted: false };
          } catch (err) {
            if (err instanceof RevisionMismatchError || err instanceof KeyNotFoundError) continue;
            throw err;
          }
        }
      }
      if (ctx.dryRun) return { object: cur.object, deleted: true };
      try {
        const gone = await this.deps.storage.delete(key, cur.rev);
        hooks?.afterDelete?.(gone.object);
        return { object: gone.object, deleted: true };
      } catch (err) {
        if (err instanceof RevisionMismatchError) continue;
        if (err instanceof KeyNotFoundError) throw StatusError.notFound(this.gr, name);
        throw err;
      }
    }
    throw StatusError.conflict(this.gr, name, conflictDetail);
  }

  /** DELETE admission (mutating, then validating) with the stored object as oldObject (AdmissionToValidateObjectDeleteFunc). */
  private async admitDelete(name: string, namespace: string | undefined, old: KubeObject | undefined, options: DeleteOptions, ctx: WriteContext): Promise<void> {
    const admission = this.deps.admission;
    if (!admission?.handles("DELETE")) return;
    const attrs = this.admissionAttributes("DELETE", undefined, old, ctx, name, namespace);
    (attrs as { options: KubeObject | undefined }).options = { apiVersion: "meta.k8s.io/v1", kind: "DeleteOptions", ...deleteOptionsFields(options) };
    await admission.mutate(attrs, ctx.signal);
    await admission.validate(attrs, ctx.signal);
  }

  /** DELETE on the collection: deletes every match, returns the deleted objects as a list. */
  async deleteCollection(namespace: string | undefined, listOpts: ListOptions, options: DeleteOptions, ctx: WriteContext): Promise<KubeList> {
    // The collection-wide DELETE (no name, no object) first, as the deletecollection handler does.
    await this.admitDelete("", namespace, undefined, options, ctx);
    const list = await this.list(namespace, { ...listOpts, limit: 0, continue: "" });
    const items: KubeObject[] = [];
    for (const item of list.items) {
      try {
        const r = await this.delete(item.metadata?.namespace, item.metadata?.name ?? "", options, ctx);
        items.push(r.object);
      } catch (err) {
        if (err instanceof StatusError && err.reason === "NotFound") continue;
        throw err;
      }
    }
    return { apiVersion: this.apiVersion, kind: this.strategy.names.listKind, metadata: { resourceVersion: String(this.deps.storage.currentRevision()) }, items };
  }

  /** The Status a DELETE returns when the object is gone and the resource does not return it. */
  deletedStatus(obj: KubeObject): Status {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: obj.metadata?.name, group: this.gr.group || undefined, kind: this.gr.resource, uid: obj.metadata?.uid },
    } as Status;
  }
}

export type { Undo };

/** The CreateOptions / UpdateOptions object admission sees (`request.options`). */
function optionsObject(operation: AdmissionOperation, ctx: WriteContext): KubeObject {
  const kind = operation === "CREATE" ? "CreateOptions" : "UpdateOptions";
  const o: KubeObject = { apiVersion: "meta.k8s.io/v1", kind };
  if (ctx.dryRun) (o as Record<string, unknown>).dryRun = ["All"];
  if (ctx.fieldManager) (o as Record<string, unknown>).fieldManager = ctx.fieldManager;
  return o;
}

function deleteOptionsFields(options: DeleteOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (options.dryRun) out.dryRun = ["All"];
  if (options.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.propagationPolicy !== undefined) out.propagationPolicy = options.propagationPolicy;
  if (options.orphanDependents !== undefined) out.orphanDependents = options.orphanDependents;
  if (options.preconditions !== undefined) out.preconditions = options.preconditions;
  return out;
}
