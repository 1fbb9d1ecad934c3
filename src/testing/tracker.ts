/**
 * ObjectTracker: the in-memory store behind the fake client, with the semantics controllers rely
 * on — a global resourceVersion bumped on every write that changes the object (a no-op write keeps
 * it and emits no event), 409 on a stale resourceVersion, 404/409 for
 * missing/existing names, generateName, finalizers delaying deletion, and watches that replay from
 * a retained history of events (410 Expired beyond it).
 *
 * Invariants: `objects` maps resource key → "ns/name" → the stored object, which is never handed
 * out (callers get deep copies); `history` holds the last `historyLimit` events in revision order;
 * every event in `history` has been delivered to every open watcher it matches.
 */
import type { Status } from "../apimachinery/api/meta/v1.js";
import type { Clock } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
import { deepCopy } from "../apimachinery/deepcopy.js";
import { deepEqual } from "../apimachinery/equality.js";
import { StatusError } from "../apimachinery/errors.js";
import { fieldErrors } from "../apimachinery/fielderrors.js";
import type { KubeObject } from "../apimachinery/types.js";
import type { ResourceDescriptor, WatchEvent } from "../client/interfaces.js";
import { AsyncQueue } from "./asyncqueue.js";

export interface TrackerEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  resourceKey: string;
  revision: number;
  object: KubeObject;
  /** The previous state, for MODIFIED: a watcher whose filter matched only one side sees ADDED or DELETED. */
  old?: KubeObject;
}

interface Watcher {
  resourceKey: string;
  namespace: string;
  filter: (obj: KubeObject) => boolean;
  queue: AsyncQueue<WatchEvent>;
  bookmarks: boolean;
  resource: ResourceDescriptor;
}

export function resourceKey(r: { group: string; version: string; resource: string }): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

let uidCounter = 0;
function newUID(): string {
  uidCounter++;
  const hex = uidCounter.toString(16).padStart(12, "0");
  return `00000000-0000-4000-8000-${hex}`;
}

const nameChars = "bcdfghjklmnpqrstvwxz2456789";

const isNamespaces = (r: ResourceDescriptor) => r.group === "" && r.resource === "namespaces";

/** metadata.finalizers, and for namespaces spec.finalizers too, hold the object back from removal. */
function hasFinalizers(r: ResourceDescriptor, obj: KubeObject): boolean {
  if ((obj.metadata?.finalizers ?? []).length > 0) return true;
  return isNamespaces(r) && ((obj as { spec?: { finalizers?: string[] } }).spec?.finalizers ?? []).length > 0;
}

export class ObjectTracker {
  private objects = new Map<string, Map<string, KubeObject>>();
  private revision = 0;
  private history: TrackerEvent[] = [];
  private watchers = new Set<Watcher>();
  /** The oldest revision a watch may start from; older → 410 Expired. */
  private compactedRevision = 0;

  constructor(
    readonly clock: Clock = realClock,
    private readonly historyLimit = 1000,
  ) {}

  get currentRevision(): number {
    return this.revision;
  }

  private bucket(rk: string): Map<string, KubeObject> {
    let b = this.objects.get(rk);
    if (!b) {
      b = new Map();
      this.objects.set(rk, b);
    }
    return b;
  }

  get(r: ResourceDescriptor, namespace: string, name: string): KubeObject {
    const o = this.bucket(resourceKey(r)).get(objectKey(namespace, name));
    if (!o) throw StatusError.notFound(r, name);
    return deepCopy(o);
  }

  /** All objects of a resource in a namespace ("" = all), sorted by namespace/name, as copies. */
  list(r: ResourceDescriptor, namespace: string): KubeObject[] {
    const out: KubeObject[] = [];
    const keys = [...this.bucket(resourceKey(r)).keys()].sort();
    for (const k of keys) {
      const o = this.bucket(resourceKey(r)).get(k)!;
      if (namespace === "" || (o.metadata?.namespace ?? "") === namespace) out.push(deepCopy(o));
    }
    return out;
  }

  create(r: ResourceDescriptor, namespace: string, input: KubeObject): KubeObject {
    const obj = deepCopy(input);
    const meta = (obj.metadata ??= {});
    if (r.namespaced) meta.namespace = namespace || meta.namespace || "default";
    else delete meta.namespace;
    if (!meta.name && meta.generateName) {
      let suffix = "";
      for (let i = 0; i < 5; i++) suffix += nameChars[Math.floor(Math.random() * nameChars.length)];
      meta.name = meta.generateName + suffix;
    }
    if (!meta.name) {
      throw StatusError.invalid({ group: r.group, kind: r.kind }, "", [
        fieldErrors.required("metadata.name", "name or generateName is required"),
      ]);
    }
    const b = this.bucket(resourceKey(r));
    const key = objectKey(meta.namespace ?? "", meta.name);
    if (b.has(key)) throw StatusError.alreadyExists(r, meta.name);
    if (meta.resourceVersion) {
      throw StatusError.badRequest("resourceVersion should not be set on objects to be created");
    }
    meta.uid ??= newUID();
    meta.creationTimestamp ??= new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    obj.apiVersion ??= r.group ? `${r.group}/${r.version}` : r.version;
    obj.kind ??= r.kind;
    meta.resourceVersion = String(++this.revision);
    b.set(key, obj);
    this.emit({ type: "ADDED", resourceKey: resourceKey(r), revision: this.revision, object: obj });
    return deepCopy(obj);
  }

  /**
   * Replaces a stored object. With a resourceVersion in `input` it must match (409 otherwise);
   * `mutate` (for subresources) builds the stored form from the old and new objects.
   */
  update(
    r: ResourceDescriptor,
    namespace: string,
    input: KubeObject,
    mutate?: (next: KubeObject, old: KubeObject) => KubeObject,
  ): KubeObject {
    const meta = input.metadata ?? {};
    const name = meta.name ?? "";
    const ns = r.namespaced ? namespace || meta.namespace || "default" : "";
    const b = this.bucket(resourceKey(r));
    const key = objectKey(ns, name);
    const old = b.get(key);
    if (!old) throw StatusError.notFound(r, name);
    if (meta.resourceVersion && meta.resourceVersion !== old.metadata?.resourceVersion) {
      throw StatusError.conflict(r, name, "the object has been modified; please apply your changes to the latest version and try again");
    }
    if (meta.uid && meta.uid !== old.metadata?.uid) {
      throw StatusError.invalid({ group: r.group, kind: r.kind }, name, [fieldErrors.invalid("metadata.uid", meta.uid, "field is immutable")]);
    }
    let next = deepCopy(input);
    if (mutate) next = mutate(next, deepCopy(old));
    const nm = (next.metadata ??= {});
    nm.name = name;
    if (r.namespaced) nm.namespace = ns;
    nm.uid = old.metadata?.uid;
    nm.creationTimestamp = old.metadata?.creationTimestamp;
    if (old.metadata?.deletionTimestamp) nm.deletionTimestamp = old.metadata.deletionTimestamp;
    next.apiVersion ??= old.apiVersion;
    next.kind ??= old.kind;
    // A deleting object whose last finalizer was removed goes away.
    if (nm.deletionTimestamp && !hasFinalizers(r, next)) {
      nm.resourceVersion = String(++this.revision);
      b.delete(key);
      this.emit({ type: "DELETED", resourceKey: resourceKey(r), revision: this.revision, object: next });
      return deepCopy(next);
    }
    // A write that changes nothing is a no-op, as kube-apiserver's: no new resourceVersion and
    // no watch event; the caller gets the stored object back.
    nm.resourceVersion = old.metadata?.resourceVersion;
    if (deepEqual(next, old)) return deepCopy(old);
    nm.resourceVersion = String(++this.revision);
    b.set(key, next);
    this.emit({ type: "MODIFIED", resourceKey: resourceKey(r), revision: this.revision, object: next, old });
    return deepCopy(next);
  }

  /**
   * Deletes an object; one with finalizers only gets a deletionTimestamp. Returns the object as
   * it was last stored (with its final resourceVersion).
   */
  delete(
    r: ResourceDescriptor,
    namespace: string,
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
    propagationPolicy?: "Orphan" | "Background" | "Foreground",
  ): { object: KubeObject; deleted: boolean } {
    const b = this.bucket(resourceKey(r));
    const key = objectKey(r.namespaced ? namespace : "", name);
    const old = b.get(key);
    if (!old) throw StatusError.notFound(r, name);
    if (preconditions?.uid && preconditions.uid !== old.metadata?.uid) {
      throw StatusError.conflict(
        r,
        name,
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${old.metadata?.uid ?? ""}`,
      );
    }
    if (preconditions?.resourceVersion && preconditions.resourceVersion !== old.metadata?.resourceVersion) {
      throw StatusError.conflict(
        r,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${old.metadata?.resourceVersion ?? ""}`,
      );
    }
    const next = deepCopy(old);
    const meta = (next.metadata ??= {});
    // As kube-apiserver records propagation: a finalizer the garbage collector acts on.
    const policyFinalizer = propagationPolicy === "Orphan" ? "orphan" : propagationPolicy === "Foreground" ? "foregroundDeletion" : undefined;
    if (policyFinalizer && !meta.deletionTimestamp && !(meta.finalizers ?? []).includes(policyFinalizer)) {
      meta.finalizers = [...(meta.finalizers ?? []), policyFinalizer];
    }
    if (hasFinalizers(r, next)) {
      if (!meta.deletionTimestamp) {
        meta.deletionTimestamp = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
        meta.deletionGracePeriodSeconds = 0;
        // A namespace waiting for its spec finalizers is Terminating (kube-apiserver's namespace REST).
        if (isNamespaces(r)) (next as { status?: { phase?: string } }).status = { ...(next as { status?: object }).status, phase: "Terminating" };
        meta.resourceVersion = String(++this.revision);
        b.set(key, next);
        this.emit({ type: "MODIFIED", resourceKey: resourceKey(r), revision: this.revision, object: next, old });
      }
      return { object: deepCopy(next), deleted: false };
    }
    meta.resourceVersion = String(++this.revision);
    b.delete(key);
    this.emit({ type: "DELETED", resourceKey: resourceKey(r), revision: this.revision, object: next });
    return { object: deepCopy(next), deleted: true };
  }

  /**
   * Opens a watch. `fromRevision` undefined/0 → synthetic ADDED events for the current state, then
   * changes; otherwise the events after that revision (410 Expired if the history no longer
   * reaches back that far).
   */
  watch(
    r: ResourceDescriptor,
    namespace: string,
    opts: {
      fromRevision?: number;
      filter: (obj: KubeObject) => boolean;
      signal?: AbortSignal;
      bookmarks?: boolean;
      sendInitialEvents?: boolean;
    },
  ): AsyncQueue<WatchEvent> {
    const rk = resourceKey(r);
    const from = opts.fromRevision ?? 0;
    if (from > 0 && from < this.compactedRevision) {
      throw StatusError.expired(`too old resource version: ${from} (${this.compactedRevision})`);
    }
    const w: Watcher = {
      resourceKey: rk,
      namespace,
      filter: opts.filter,
      queue: new AsyncQueue<WatchEvent>(opts.signal, () => this.watchers.delete(w)),
      bookmarks: opts.bookmarks ?? false,
      resource: r,
    };
    if (!opts.sendInitialEvents && from === 0) {
      // resourceVersion "" or "0": like kube-apiserver, start with synthetic ADDED events for
      // the current state, then stream changes.
      for (const o of this.list(r, namespace)) if (opts.filter(o)) w.queue.push({ type: "ADDED", object: o });
    } else if (opts.sendInitialEvents) {
      for (const o of this.list(r, namespace)) if (opts.filter(o)) w.queue.push({ type: "ADDED", object: o });
      w.queue.push({
        type: "BOOKMARK",
        object: this.bookmarkObject(r, { "k8s.io/initial-events-end": "true" }),
      });
    } else if (from > 0) {
      for (const e of this.history) {
        if (e.revision <= from || e.resourceKey !== rk) continue;
        const ev = this.eventFor(w, e);
        if (ev) w.queue.push(ev);
      }
    }
    this.watchers.add(w);
    return w.queue;
  }

  /** Sends a BOOKMARK at the current revision to every watcher that asked for bookmarks. */
  sendBookmarks(): void {
    for (const w of this.watchers) {
      if (w.bookmarks) w.queue.push({ type: "BOOKMARK", object: this.bookmarkObject(w.resource) });
    }
  }

  /** Ends every open watch, as a server does at its timeout or on restart. */
  closeWatches(): void {
    for (const w of [...this.watchers]) w.queue.end();
  }

  /** Sends an ERROR event (e.g. 410 Expired) to every open watch of a resource, then closes them. */
  failWatches(r: ResourceDescriptor, status: Status): void {
    for (const w of [...this.watchers]) {
      if (w.resourceKey !== resourceKey(r)) continue;
      w.queue.push({ type: "ERROR", object: status });
      w.queue.end();
    }
  }

  /** Forgets the event history, so watches from any earlier revision get 410 Expired. */
  compact(): void {
    this.compactedRevision = this.revision + 1;
    this.history = [];
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  private bookmarkObject(r: ResourceDescriptor, annotations?: Record<string, string>): KubeObject {
    return {
      apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
      kind: r.kind,
      metadata: { resourceVersion: String(this.revision), ...(annotations ? { annotations } : {}) },
    };
  }

  private matchesWatcher(w: Watcher, obj: KubeObject): boolean {
    if (w.namespace !== "" && (obj.metadata?.namespace ?? "") !== w.namespace) return false;
    return w.filter(obj);
  }

  /** What a watcher sees of an event: MODIFIED across its filter's edge becomes ADDED or DELETED. */
  private eventFor(w: Watcher, e: TrackerEvent): WatchEvent | undefined {
    const now = this.matchesWatcher(w, e.object);
    if (e.type !== "MODIFIED" || !e.old) return now ? { type: e.type, object: deepCopy(e.object) } : undefined;
    const before = this.matchesWatcher(w, e.old);
    if (now && before) return { type: "MODIFIED", object: deepCopy(e.object) };
    if (now) return { type: "ADDED", object: deepCopy(e.object) };
    if (before) return { type: "DELETED", object: deepCopy(e.object) };
    return undefined;
  }

  private emit(e: TrackerEvent): void {
    this.history.push(e);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.shift()!;
      this.compactedRevision = dropped.revision;
    }
    for (const w of this.watchers) {
      if (w.resourceKey !== e.resourceKey) continue;
      const ev = this.eventFor(w, e);
      if (ev) w.queue.push(ev);
    }
  }
}
