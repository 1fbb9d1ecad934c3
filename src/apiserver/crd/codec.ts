/**
 * Version conversion of custom resources (conversion strategy None) as a view of the shared
 * storage: every served version's ResourceStore gets a VersionedStorage, so the generic store,
 * watch and pagination code run unchanged while
 *
 * - objects are written in the storage version (only apiVersion differs between versions), and
 * - objects read (get, list, watch events) come back in the requested version, pruned and
 *   defaulted with that version's schema, as apiextensions-apiserver's storage codec does —
 *   so a schema change shows on read.
 *
 * Invariants: decoded objects are deep-frozen like the stored ones and memoised per stored
 * object (stored objects are immutable, so identity is a valid cache key); watch events are
 * wrapped once per codec, so every watcher of a version shares one serialisation per format.
 * The view never closes the underlying storage (the server owns it).
 */
import { deepCopy, deepFreeze } from "../../apimachinery/deepcopy.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ListRequest, ListResult, Storage, StorageEvent, StorageWatch, StoredObject, WatchRequest } from "../storage/interface.js";
import { applyDefaults, prune, pruneNonNullableNulls } from "./prune.js";
import type { Schema } from "./schema.js";

export class VersionCodec {
  private readonly decoded = new WeakMap<KubeObject, KubeObject>();
  private readonly events = new WeakMap<StorageEvent, StorageEvent>();

  constructor(
    /** The served version's apiVersion, e.g. "stable.example.com/v1beta1". */
    readonly apiVersion: string,
    /** The storage version's apiVersion. */
    readonly storageAPIVersion: string,
    private readonly schema: Schema | undefined,
  ) {}

  /** A request object → its stored form. */
  encode(obj: KubeObject): KubeObject {
    if (obj.apiVersion === this.storageAPIVersion) return obj;
    return { ...obj, apiVersion: this.storageAPIVersion };
  }

  /** A stored object → this version (frozen). */
  decode(stored: KubeObject): KubeObject {
    const hit = this.decoded.get(stored);
    if (hit) return hit;
    const out = deepCopy(stored) as KubeObject;
    out.apiVersion = this.apiVersion;
    if (this.schema) {
      prune(out, this.schema, true);
      pruneNonNullableNulls(out, this.schema);
      applyDefaults(out, this.schema);
    }
    deepFreeze(out);
    this.decoded.set(stored, out);
    return out;
  }

  decodeStored(s: StoredObject): StoredObject {
    return { key: s.key, rev: s.rev, object: this.decode(s.object) };
  }

  decodeEvent(ev: StorageEvent): StorageEvent {
    let out = this.events.get(ev);
    if (!out) {
      const frames = new Map<string, Buffer>();
      out = {
        type: ev.type,
        key: ev.key,
        rev: ev.rev,
        object: this.decode(ev.object),
        ...(ev.prevObject ? { prevObject: this.decode(ev.prevObject) } : {}),
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
    }
    return out;
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
    return s && this.codec.decodeStored(s);
  }

  async list(prefix: string, req: ListRequest = {}): Promise<ListResult> {
    const pred = req.predicate;
    const r = await this.inner.list(prefix, pred ? { ...req, predicate: (o) => pred(this.codec.decode(o)) } : req);
    return { ...r, items: r.items.map((i) => this.codec.decodeStored(i)) };
  }

  async create(key: string, obj: KubeObject): Promise<StoredObject> {
    return this.codec.decodeStored(await this.inner.create(key, this.codec.encode(obj)));
  }

  async update(key: string, obj: KubeObject, expectedRev?: number): Promise<StoredObject> {
    return this.codec.decodeStored(await this.inner.update(key, this.codec.encode(obj), expectedRev));
  }

  async delete(key: string, expectedRev?: number): Promise<StoredObject> {
    return this.codec.decodeStored(await this.inner.delete(key, expectedRev));
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
        for await (const ev of inner) yield codec.decodeEvent(ev);
      },
    };
  }

  compact(rev: number): void {
    this.inner.compact(rev);
  }

  /** The underlying storage belongs to the server: closing a view does nothing. */
  async close(): Promise<void> {}
}
