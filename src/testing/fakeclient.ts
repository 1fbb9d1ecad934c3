/**
 * FakeClient: the client contract (src/client/interfaces.ts) over an in-memory ObjectTracker,
 * recording every call as an Action in order, with reactors to inject errors or results — the
 * TypeScript form of client-go's fake clientset, for fixture tests in the style of
 * sample-controller's controller_test.go.
 *
 * Differences from a real server, on purpose: no defaulting, no validation, no generation bumps,
 * no garbage collection. Like the server it refuses a changed metadata.uid (422), keeps spec and
 * labels on status writes, and records Orphan/Foreground deletion as the orphan /
 * foregroundDeletion finalizers (something else — a garbage collector — must remove them).
 * Server-side apply is refused with 415.
 */
import type { Scale } from "../apimachinery/api/autoscaling/v1.js";
import type { LabelSelector, Status } from "../apimachinery/api/meta/v1.js";
import type { Clock } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
import { deepCopy } from "../apimachinery/deepcopy.js";
import { StatusError } from "../apimachinery/errors.js";
import { parseFieldSelector } from "../apimachinery/fields.js";
import { labelSelectorAsSelector, parseSelector } from "../apimachinery/labels.js";
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, patchMetaForKind } from "../apimachinery/patch/index.js";
import { PARTIAL_OBJECT_METADATA_API_VERSION, PARTIAL_OBJECT_METADATA_KIND, toPartialObjectMetadata } from "../apimachinery/resource.js";
import type { KubeList, KubeObject, TypedObject } from "../apimachinery/types.js";
import { refuseOnMetadataView } from "../client/resource.js";
import type {
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceClientFactory,
  ResourceDescriptor,
  WatchOptions,
  WatchStream,
  UpdateOptions,
  WriteOptions,
} from "../client/interfaces.js";
import { ObjectTracker } from "./tracker.js";

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

/** One recorded call, as client-go's testing.Action. */
export interface Action {
  verb: Verb;
  /** Plural resource name, e.g. "deployments". */
  resource: string;
  group: string;
  version: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The object sent (create/update) — a copy. */
  object?: KubeObject;
  patchType?: PatchType;
  patch?: unknown;
  options?: ListOptions | WatchOptions | DeleteOptions | WriteOptions | GetOptions;
}

/** A reactor's answer: not handled (fall through), an error to throw, or a result to return. */
export type ReactorResult = { handled: false } | { handled: true; error: unknown } | { handled: true; result: unknown };

export type Reactor = (action: Action) => ReactorResult;

const success: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" };

/** The stored form after a status write: spec and labels from the old object, the rest from the new. */
function keepSpecAndLabels(next: KubeObject, old: KubeObject): KubeObject {
  const out: KubeObject = { ...next, metadata: { ...next.metadata, labels: old.metadata?.labels } };
  if (old.spec === undefined) delete out.spec;
  else out.spec = old.spec;
  if (out.metadata && out.metadata.labels === undefined) delete out.metadata.labels;
  return out;
}

/** Views a typed object as unstructured (every typed object is one). */
function un(o: TypedObject): KubeObject {
  return o as unknown as KubeObject;
}

function matchesVerb(pattern: string, verb: string): boolean {
  return pattern === "*" || pattern === verb;
}

/** The field set of an object for field selectors: every scalar reached through objects (not arrays). */
export function objectFieldSet(obj: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (v: unknown, prefix: string) => {
    if (v === null || v === undefined) return;
    if (typeof v === "object") {
      if (Array.isArray(v)) return;
      for (const [k, x] of Object.entries(v)) walk(x, prefix ? `${prefix}.${k}` : k);
      return;
    }
    out[prefix] = String(v);
  };
  walk(obj.metadata, "metadata");
  walk(obj.spec, "spec");
  walk(obj.status, "status");
  for (const [k, v] of Object.entries(obj)) {
    if (k === "metadata" || k === "spec" || k === "status") continue;
    walk(v, k);
  }
  out["metadata.namespace"] ??= "";
  return out;
}

function filterFor(opts: { labelSelector?: string; fieldSelector?: string } | undefined): (o: KubeObject) => boolean {
  const ls = opts?.labelSelector ? parseSelector(opts.labelSelector) : undefined;
  const fs = opts?.fieldSelector ? parseFieldSelector(opts.fieldSelector) : undefined;
  if (!ls && !fs) return () => true;
  return (o) => (!ls || ls.matches(o.metadata?.labels ?? {})) && (!fs || fs.matches(objectFieldSet(o)));
}

export interface FakeClientOptions {
  clock?: Clock;
  /** How many watch events the tracker retains for watches from a resourceVersion (default 1000). */
  historyLimit?: number;
}

export class FakeClient implements ResourceClientFactory {
  readonly tracker: ObjectTracker;
  private actionLog: Action[] = [];
  private reactors: Array<{ verb: string; resource: string; fn: Reactor }> = [];

  constructor(opts: FakeClientOptions = {}) {
    this.tracker = new ObjectTracker(opts.clock ?? realClock, opts.historyLimit ?? 1000);
  }

  resource<T extends TypedObject>(resource: ResourceDescriptor<T>, namespace = ""): ResourceClient<T> {
    return new FakeResourceClient<T>(this, resource, resource.namespaced ? namespace : "");
  }

  /** Seeds objects without recording actions (fixtures); returns them as stored. */
  seed<T extends TypedObject>(resource: ResourceDescriptor<T>, ...objects: T[]): T[] {
    return objects.map((o) => this.tracker.create(resource, o.metadata?.namespace ?? "", un(o)) as unknown as T);
  }

  /** Every call so far, in order. */
  actions(): Action[] {
    return this.actionLog.slice();
  }

  /** Calls other than get/list/watch: what a controller changed. */
  writeActions(): Action[] {
    return this.actionLog.filter((a) => a.verb !== "get" && a.verb !== "list" && a.verb !== "watch");
  }

  clearActions(): void {
    this.actionLog = [];
  }

  /** Adds a reactor consulted before the others (client-go's PrependReactor); "*" matches anything. */
  prependReactor(verb: Verb | "*", resource: string, fn: Reactor): void {
    this.reactors.unshift({ verb, resource, fn });
  }

  /** Makes the `n`th (1-based) call of verb on resource fail with `error`, e.g. the 2nd update → 409. */
  failNth(verb: Verb, resource: string, n: number, error: unknown): void {
    let count = 0;
    this.prependReactor(verb, resource, () => {
      count++;
      return count === n ? { handled: true, error } : { handled: false };
    });
  }

  /** @internal Records an action and runs reactors; returns a reactor's result if one handled it. */
  invoke(action: Action): { handled: false } | { handled: true; result: unknown } {
    this.actionLog.push(action);
    for (const r of this.reactors) {
      if (!matchesVerb(r.verb, action.verb) || (r.resource !== "*" && r.resource !== action.resource)) continue;
      const res = r.fn(action);
      if (!res.handled) continue;
      if ("error" in res) throw res.error;
      return { handled: true, result: res.result };
    }
    return { handled: false };
  }
}

class FakeResourceClient<T extends TypedObject> implements ResourceClient<T> {
  /** A metadata-only view: reads answer PartialObjectMetadata, as the API server converts them. */
  private readonly partial: boolean;

  constructor(
    private readonly fake: FakeClient,
    readonly resource: ResourceDescriptor<T>,
    readonly namespace: string,
  ) {
    this.partial = resource.metadataOnly === true;
  }

  /** The object as this client returns it: whole, or reduced to metadata for a metadata-only view. */
  private out(obj: unknown): T {
    return (this.partial ? toPartialObjectMetadata(obj as TypedObject) : obj) as T;
  }

  private action(verb: Verb, extra: Partial<Action> = {}): Action {
    const a: Action = { verb, resource: this.resource.resource, group: this.resource.group, version: this.resource.version, ...extra };
    if (this.resource.namespaced && this.namespace !== "") a.namespace = this.namespace;
    return a;
  }

  private get tracker(): ObjectTracker {
    return this.fake.tracker;
  }

  private nsFor(obj?: KubeObject): string {
    if (!this.resource.namespaced) return "";
    return this.namespace || obj?.metadata?.namespace || "";
  }

  async get(name: string, opts?: GetOptions): Promise<T> {
    const r = this.fake.invoke(this.action("get", { name, options: opts }));
    if (r.handled) return r.result as T;
    return this.out(this.tracker.get(this.resource, this.nsFor(), name));
  }

  async list(opts?: ListOptions): Promise<KubeList<T>> {
    const r = this.fake.invoke(this.action("list", { options: opts }));
    if (r.handled) return r.result as KubeList<T>;
    const filter = filterFor(opts);
    const all = this.tracker.list(this.resource, this.namespace).filter(filter) as unknown as T[];
    const revision = String(this.tracker.currentRevision);
    let start = 0;
    if (opts?.continue) {
      const [rv, offset] = Buffer.from(opts.continue, "base64url").toString().split(":");
      if (!rv || !offset) throw StatusError.badRequest("invalid continue token");
      start = Number(offset);
    }
    let items = all.slice(start);
    let cont: string | undefined;
    let remaining: number | undefined;
    if (opts?.limit && opts.limit > 0 && items.length > opts.limit) {
      items = items.slice(0, opts.limit);
      cont = Buffer.from(`${revision}:${start + opts.limit}`).toString("base64url");
      remaining = all.length - start - opts.limit;
    }
    const metadata = { resourceVersion: revision, ...(cont ? { continue: cont, remainingItemCount: remaining } : {}) };
    if (this.partial) {
      return { apiVersion: PARTIAL_OBJECT_METADATA_API_VERSION, kind: `${PARTIAL_OBJECT_METADATA_KIND}List`, metadata, items: items.map((o) => this.out(o)) };
    }
    return {
      apiVersion: this.resource.group ? `${this.resource.group}/${this.resource.version}` : this.resource.version,
      kind: `${this.resource.kind}List`,
      metadata,
      items,
    };
  }

  async watch(opts?: WatchOptions): Promise<WatchStream<T>> {
    const r = this.fake.invoke(this.action("watch", { options: opts }));
    if (r.handled) return r.result as WatchStream<T>;
    const rv = opts?.resourceVersion ? Number(opts.resourceVersion) : 0;
    const stream = this.tracker.watch(this.resource, this.namespace, {
      fromRevision: Number.isFinite(rv) ? rv : 0,
      filter: filterFor(opts),
      signal: opts?.signal,
      bookmarks: opts?.allowWatchBookmarks,
      sendInitialEvents: opts?.sendInitialEvents,
    }) as unknown as WatchStream<T>;
    return this.partial ? this.partialEvents(stream) : stream;
  }

  private async *partialEvents(stream: WatchStream<T>): WatchStream<T> {
    for await (const ev of stream) {
      if (ev.type === "ERROR" || ev.type === "BOOKMARK") yield ev;
      else yield { type: ev.type, object: this.out(ev.object) };
    }
  }

  async create(obj: T, opts?: WriteOptions): Promise<T> {
    refuseOnMetadataView(this.resource, "create");
    const r = this.fake.invoke(this.action("create", { object: deepCopy(un(obj)), name: obj.metadata?.name, options: opts }));
    if (r.handled) return r.result as T;
    if (opts?.dryRun === "All") return deepCopy(obj);
    return this.tracker.create(this.resource, this.nsFor(un(obj)), un(obj)) as unknown as T;
  }

  async update(obj: T, opts?: UpdateOptions): Promise<T> {
    const sub = opts?.subresource;
    refuseOnMetadataView(this.resource, sub ? `update ${sub}` : "update");
    const r = this.fake.invoke(this.action("update", { subresource: sub, object: deepCopy(un(obj)), name: obj.metadata?.name, options: opts }));
    if (r.handled) return r.result as T;
    if (opts?.dryRun === "All") return deepCopy(obj);
    if (sub === "finalize") return this.finalize(un(obj)) as unknown as T;
    if (sub !== undefined) throw StatusError.notFound(this.resource, obj.metadata?.name ?? "");
    return this.tracker.update(this.resource, this.nsFor(un(obj)), un(obj)) as unknown as T;
  }

  /**
   * namespaces/finalize as kube-apiserver's finalize REST: only spec.finalizers changes; a deleting
   * namespace left with no finalizers at all is removed.
   */
  private finalize(obj: KubeObject): KubeObject {
    if (this.resource.group !== "" || this.resource.resource !== "namespaces") throw StatusError.notFound(this.resource, obj.metadata?.name ?? "");
    type Finalizable = KubeObject & { spec?: { finalizers?: string[] } };
    const finalizers = (obj as Finalizable).spec?.finalizers ?? [];
    // The tracker removes a deleting namespace left with no finalizers of either kind.
    return this.tracker.update(this.resource, "", obj, (_n, old) => {
      const out = deepCopy(old) as Finalizable;
      out.metadata = { ...out.metadata, resourceVersion: obj.metadata?.resourceVersion ?? old.metadata?.resourceVersion };
      out.spec = { ...(out.spec ?? {}), finalizers: [...finalizers] };
      if (finalizers.length === 0) delete out.spec.finalizers;
      return out;
    });
  }

  async updateStatus(obj: T, opts?: WriteOptions): Promise<T> {
    refuseOnMetadataView(this.resource, "update status");
    const r = this.fake.invoke(
      this.action("update", { subresource: "status", object: deepCopy(un(obj)), name: obj.metadata?.name, options: opts }),
    );
    if (r.handled) return r.result as T;
    if (opts?.dryRun === "All") return deepCopy(obj);
    // As kube-apiserver's status strategies (e.g. Deployments'): spec and labels stay as stored,
    // everything else (status, annotations) is taken from the request.
    return this.tracker.update(this.resource, this.nsFor(un(obj)), un(obj), keepSpecAndLabels) as unknown as T;
  }

  async patch(name: string, type: PatchType, patch: unknown, opts?: PatchOptions): Promise<T> {
    const r = this.fake.invoke(
      this.action("patch", { name, patchType: type, patch: deepCopy(patch), subresource: opts?.subresource, options: opts }),
    );
    if (r.handled) return r.result as T;
    if (type === "apply") {
      throw StatusError.unsupportedMediaType("application/apply-patch+yaml", [
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
      ]);
    }
    const current = this.tracker.get(this.resource, this.nsFor(), name);
    let next: KubeObject;
    if (type === "json") next = applyJsonPatch(current, patch as never) as KubeObject;
    else if (type === "merge") next = applyMergePatch(current, patch) as KubeObject;
    else {
      const meta = patchMetaForKind(this.resource.group, this.resource.version, this.resource.kind);
      next = applyStrategicMergePatch(current, patch, meta) as KubeObject;
    }
    if (opts?.dryRun === "All") return this.out(next);
    // A patch without a resourceVersion applies to the current object.
    const patchedRV = next.metadata?.resourceVersion;
    if (!patchedRV) (next.metadata ??= {}).resourceVersion = current.metadata?.resourceVersion;
    if (opts?.subresource === "status") {
      return this.out(this.tracker.update(this.resource, this.nsFor(), next, keepSpecAndLabels));
    }
    return this.out(this.tracker.update(this.resource, this.nsFor(), next));
  }

  async delete(name: string, opts?: DeleteOptions): Promise<T | Status> {
    const r = this.fake.invoke(this.action("delete", { name, options: opts }));
    if (r.handled) return r.result as T | Status;
    if (opts?.dryRun === "All") return this.out(this.tracker.get(this.resource, this.nsFor(), name));
    const { object, deleted } = this.tracker.delete(this.resource, this.nsFor(), name, opts?.preconditions, opts?.propagationPolicy);
    return deleted ? { ...success, details: { name, group: this.resource.group, kind: this.resource.resource, uid: object.metadata?.uid } } : this.out(object);
  }

  async deleteCollection(listOpts?: ListOptions, deleteOpts?: DeleteOptions): Promise<KubeList<T> | Status> {
    const r = this.fake.invoke(this.action("deletecollection", { options: { ...listOpts, ...deleteOpts } }));
    if (r.handled) return r.result as KubeList<T> | Status;
    const filter = filterFor(listOpts);
    for (const o of this.tracker.list(this.resource, this.namespace).filter(filter)) {
      this.tracker.delete(this.resource, o.metadata?.namespace ?? "", o.metadata?.name ?? "");
    }
    return success;
  }

  async getScale(name: string, opts?: GetOptions): Promise<Scale> {
    refuseOnMetadataView(this.resource, "get scale");
    const r = this.fake.invoke(this.action("get", { name, subresource: "scale", options: opts }));
    if (r.handled) return r.result as Scale;
    const obj = this.tracker.get(this.resource, this.nsFor(), name) as KubeObject & {
      spec?: { replicas?: number; selector?: LabelSelector };
      status?: { replicas?: number };
    };
    return scaleOf(obj);
  }

  async updateScale(name: string, scale: Scale, opts?: WriteOptions): Promise<Scale> {
    refuseOnMetadataView(this.resource, "update scale");
    const r = this.fake.invoke(this.action("update", { name, subresource: "scale", object: deepCopy(scale) as KubeObject, options: opts }));
    if (r.handled) return r.result as Scale;
    const current = this.tracker.get(this.resource, this.nsFor(), name) as KubeObject & { spec?: { replicas?: number } };
    const next = deepCopy(current);
    (next.spec ??= {}).replicas = scale.spec?.replicas ?? 0;
    if (scale.metadata?.resourceVersion) (next.metadata ??= {}).resourceVersion = scale.metadata.resourceVersion;
    if (opts?.dryRun === "All") return scaleOf(next);
    return scaleOf(this.tracker.update(this.resource, this.nsFor(), next) as KubeObject);
  }
}

function scaleOf(obj: KubeObject & { spec?: { replicas?: number; selector?: LabelSelector }; status?: { replicas?: number } }): Scale {
  const sel = obj.spec?.selector ? labelSelectorAsSelector(obj.spec.selector).toString() : "";
  return {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: {
      name: obj.metadata?.name,
      namespace: obj.metadata?.namespace,
      uid: obj.metadata?.uid,
      resourceVersion: obj.metadata?.resourceVersion,
      creationTimestamp: obj.metadata?.creationTimestamp,
    },
    spec: { replicas: obj.spec?.replicas ?? 0 },
    status: { replicas: obj.status?.replicas ?? 0, selector: sel },
  };
}
