/**
 * Version conversion of custom resources as a view of the shared storage: every served
 * version's ResourceStore gets a VersionedStorage, so the generic store, watch and pagination
 * code run unchanged while
 *
 * - objects are written in the storage version, and
 * - objects read (get, list, watch events) come back in the requested version, pruned and
 *   defaulted with that version's schema, as apiextensions-apiserver's storage codec does —
 *   so a schema change shows on read.
 *
 * Conversion strategy None: only apiVersion differs between versions (synchronous). Strategy
 * Webhook: a WebhookConverter (conversion.ts) converts, asynchronously — a list page in one
 * ConversionReview; a write converts the request object to the storage version and the stored
 * result back, as upstream's storage does; objects converted for the storage version are pruned
 * with its schema. A conversion failure fails the request (500, upstream's message); a watch
 * whose event cannot be converted ends (the client relists and sees the error), as upstream's
 * watch server closes a stream it cannot encode.
 *
 * Invariants: decoded objects are deep-frozen like the stored ones and memoised per stored
 * object (stored objects are immutable, so identity is a valid cache key) — so a stored object
 * is sent to a conversion webhook once per served version while it is unchanged, as upstream's
 * watch cache holds converted objects; a changed CRD gets new codecs and starts over; watch events are
 * wrapped once per codec, so every watcher of a version shares one serialisation per format.
 * The view never closes the underlying storage (the server owns it).
 */
import { deepCopy, deepFreeze } from "../../apimachinery/deepcopy.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ListRequest, ListResult, Storage, StorageEvent, StorageWatch, StoredObject, WatchRequest } from "../storage/interface.js";
import type { WebhookConverter } from "./conversion.js";
import { applyDefaults, prune, pruneNonNullableNulls } from "./prune.js";
import type { Schema } from "./schema.js";

export interface VersionCodecOptions {
  /** Set for conversion strategy Webhook. */
  converter?: WebhookConverter;
  /** The storage version's schema (objects converted for storage are pruned with it). */
  storageSchema?: Schema;
  /** Told when a watch ends because an event could not be converted. */
  onWatchError?: (err: unknown) => void;
}

export class VersionCodec {
  private readonly decoded = new WeakMap<KubeObject, KubeObject>();
  private readonly pendingDecode = new WeakMap<KubeObject, Promise<KubeObject>>();
  private readonly events = new WeakMap<StorageEvent, StorageEvent>();
  private readonly pendingEvents = new WeakMap<StorageEvent, Promise<StorageEvent>>();

  constructor(
    /** The served version's apiVersion, e.g. "stable.example.com/v1beta1". */
    readonly apiVersion: string,
    /** The storage version's apiVersion. */
    readonly storageAPIVersion: string,
    private readonly schema: Schema | undefined,
    private readonly opts: VersionCodecOptions = {},
  ) {}

  /** Whether conversions call a webhook (then only the async methods may be used). */
  get converting(): boolean {
    return this.opts.converter !== undefined;
  }

  get onWatchError(): ((err: unknown) => void) | undefined {
    return this.opts.onWatchError;
  }

  /** A request object → its stored form (strategy None). */
  encode(obj: KubeObject): KubeObject {
    if (obj.apiVersion === this.storageAPIVersion) return obj;
    return { ...obj, apiVersion: this.storageAPIVersion };
  }

  /** A request object → its stored form, through the webhook when converting. */
  async encodeAsync(obj: KubeObject, signal?: AbortSignal): Promise<KubeObject> {
    const converter = this.opts.converter;
    if (!converter || obj.apiVersion === this.storageAPIVersion) return this.encode(obj);
    const [out] = await converter.convert([obj], this.storageAPIVersion, signal);
    if (this.opts.storageSchema) {
      prune(out, this.opts.storageSchema, true);
      pruneNonNullableNulls(out, this.opts.storageSchema);
    }
    return out;
  }

  /** Prunes and defaults an object already in this version, and freezes it. */
  private finish(out: KubeObject): KubeObject {
    out.apiVersion = this.apiVersion;
    if (this.schema) {
      prune(out, this.schema, true);
      pruneNonNullableNulls(out, this.schema);
      applyDefaults(out, this.schema);
    }
    return deepFreeze(out);
  }

  /** A stored object → this version (frozen); strategy None only. */
  decode(stored: KubeObject): KubeObject {
    const hit = this.decoded.get(stored);
    if (hit) return hit;
    const out = this.finish(deepCopy(stored) as KubeObject);
    this.decoded.set(stored, out);
    return out;
  }

  /**
   * Stored objects → this version (frozen, memoised); one webhook call for all that need it.
   * With `memo: false` the inputs may be any objects (not stored ones) and nothing is cached.
   */
  async decodeMany(objects: readonly KubeObject[], signal?: AbortSignal, memo = true): Promise<KubeObject[]> {
    const converter = this.opts.converter;
    if (!converter) return objects.map((o) => (memo ? this.decode(o) : this.finish(deepCopy(o) as KubeObject)));
    const out: (KubeObject | Promise<KubeObject>)[] = new Array(objects.length);
    const todo: number[] = [];
    objects.forEach((o, i) => {
      const hit = memo ? (this.decoded.get(o) ?? this.pendingDecode.get(o)) : undefined;
      if (hit) out[i] = hit;
      else if (o.apiVersion === this.apiVersion) out[i] = memo ? this.decode(o) : this.finish(deepCopy(o) as KubeObject);
      else todo.push(i);
    });
    if (todo.length) {
      const batch = converter.convert(
        todo.map((i) => objects[i]),
        this.apiVersion,
        signal,
      );
      todo.forEach((i, n) => {
        const p = batch.then((converted) => {
          const done = this.finish(deepCopy(converted[n]) as KubeObject);
          if (memo) this.decoded.set(objects[i], done);
          return done;
        });
        if (memo) {
          this.pendingDecode.set(objects[i], p);
          p.catch(() => undefined).finally(() => this.pendingDecode.delete(objects[i]));
        }
        out[i] = p;
      });
    }
    return Promise.all(out);
  }

  decodeStored(s: StoredObject): StoredObject {
    return { key: s.key, rev: s.rev, object: this.decode(s.object) };
  }

  async decodeStoredAsync(s: StoredObject, signal?: AbortSignal): Promise<StoredObject> {
    if (!this.converting) return this.decodeStored(s);
    const [object] = await this.decodeMany([s.object], signal);
    return { key: s.key, rev: s.rev, object };
  }

  private wrapEvent(ev: StorageEvent, object: KubeObject, prevObject: KubeObject | undefined): StorageEvent {
    const frames = new Map<string, Buffer>();
    const out: StorageEvent = {
      type: ev.type,
      key: ev.key,
      rev: ev.rev,
      object,
      ...(prevObject ? { prevObject } : {}),
      encoded(format: string, build: () => Buffer): Buffer {
        let b = frames.get(format);
        if (!b) {
          b = build();
          frames.set(format, b);
        }
        return b;
      },
    };
    this.events.set(ev, out);
    return out;
  }

  decodeEvent(ev: StorageEvent): StorageEvent {
    return this.events.get(ev) ?? this.wrapEvent(ev, this.decode(ev.object), ev.prevObject ? this.decode(ev.prevObject) : undefined);
  }

  async decodeEventAsync(ev: StorageEvent): Promise<StorageEvent> {
    if (!this.converting) return this.decodeEvent(ev);
    const hit = this.events.get(ev) ?? this.pendingEvents.get(ev);
    if (hit) return hit;
    const p = this.decodeMany(ev.prevObject ? [ev.object, ev.prevObject] : [ev.object]).then(([object, prev]) => this.wrapEvent(ev, object, prev));
    this.pendingEvents.set(ev, p);
    return p;
  }
}

/** The shared storage seen through one version's codec. */
export class VersionedStorage implements Storage {
  constructor(
    private readonly inner: Storage,
    readonly codec: VersionCodec,
  ) {}

  currentRevision(): number {
    return this.inner.currentRevision();
  }

  compactedRevision(): number {
    return this.inner.compactedRevision();
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const s = await this.inner.get(key);
    return s && this.codec.decodeStoredAsync(s);
  }

  async list(prefix: string, req: ListRequest = {}): Promise<ListResult> {
    const pred = req.predicate;
    const codec = this.codec;
    if (!codec.converting) {
      const r = await this.inner.list(prefix, pred ? { ...req, predicate: (o) => pred(codec.decode(o)) } : req);
      return { ...r, items: r.items.map((i) => codec.decodeStored(i)) };
    }
    if (!pred) {
      const r = await this.inner.list(prefix, req);
      const objects = await codec.decodeMany(r.items.map((i) => i.object));
      return { ...r, items: r.items.map((i, n) => ({ key: i.key, rev: i.rev, object: objects[n] })) };
    }
    // Selection needs the converted objects: convert from startKey on, then select and page here.
    const all = await this.inner.list(prefix, { revision: req.revision, startKey: req.startKey });
    const objects = await codec.decodeMany(all.items.map((i) => i.object));
    const items: StoredObject[] = [];
    let nextKey: string | undefined;
    for (let n = 0; n < all.items.length; n++) {
      if (!pred(objects[n])) continue;
      if (req.limit && items.length >= req.limit) {
        nextKey = all.items[n].key;
        break;
      }
      items.push({ key: all.items[n].key, rev: all.items[n].rev, object: objects[n] });
    }
    return { items, revision: all.revision, ...(nextKey !== undefined ? { nextKey } : {}) };
  }

  async create(key: string, obj: KubeObject): Promise<StoredObject> {
    return this.codec.decodeStoredAsync(await this.inner.create(key, await this.codec.encodeAsync(obj)));
  }

  async update(key: string, obj: KubeObject, expectedRev?: number): Promise<StoredObject> {
    return this.codec.decodeStoredAsync(await this.inner.update(key, await this.codec.encodeAsync(obj), expectedRev));
  }

  async delete(key: string, expectedRev?: number): Promise<StoredObject> {
    return this.codec.decodeStoredAsync(await this.inner.delete(key, expectedRev));
  }

  watch(prefix: string, req: WatchRequest): StorageWatch {
    const inner = this.inner.watch(prefix, req);
    const codec = this.codec;
    return {
      close: () => inner.close(),
      get endReason() {
        return inner.endReason;
      },
      async *[Symbol.asyncIterator]() {
        for await (const ev of inner) {
          if (!codec.converting) {
            yield codec.decodeEvent(ev);
            continue;
          }
          let out: StorageEvent;
          try {
            out = await codec.decodeEventAsync(ev);
          } catch (err) {
            codec.onWatchError?.(err);
            inner.close();
            return;
          }
          yield out;
        }
      },
    };
  }

  compact(rev: number): void {
    this.inner.compact(rev);
  }

  /** The underlying storage belongs to the server: closing a view does nothing. */
  async close(): Promise<void> {}
}
