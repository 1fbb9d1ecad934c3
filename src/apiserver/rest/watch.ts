/**
 * The watch of one collection with kube-apiserver's semantics: start point from
 * resourceVersion (legacy synthetic ADDED events for ""/"0", resume after N, 410 Expired as an
 * ERROR event when N is compacted), watch-list (sendInitialEvents: initial ADDED events then a
 * BOOKMARK annotated k8s.io/initial-events-end), selector transitions (an object that starts
 * matching is ADDED, one that stops matching is DELETED), periodic bookmarks, timeoutSeconds.
 *
 * Events carry the storage event they came from (`source`) when their type and object are the
 * storage event's own, so that encoders can share one serialisation across watchers. A store
 * serving another version than the storage version converts every object (store.present) and
 * leaves `source` out: the shared serialisation is the storage version's.
 */
import type { Status } from "../../apimachinery/api/meta/v1.js";
import type { Clock, Timer } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CompactedError } from "../storage/errors.js";
import type { StorageEvent, StorageWatch } from "../storage/interface.js";
import { parseResourceVersion, type ListOptions } from "./options.js";
import type { ResourceStore } from "./store.js";

export type WatchOutType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchOutEvent {
  type: WatchOutType;
  object: KubeObject | Status;
  source?: StorageEvent;
}

export interface WatchSettings {
  clock: Clock;
  /** Interval between bookmarks when allowWatchBookmarks is set (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Timeout when the request sets none (default 30 min). */
  defaultTimeoutMs?: number;
}

export const initialEventsEndAnnotation = "k8s.io/initial-events-end";

function expiredEvent(requested: number, oldest: number): WatchOutEvent {
  return { type: "ERROR", object: StatusError.expired(`too old resource version: ${requested} (${oldest})`).status };
}

export async function* watchCollection(
  store: ResourceStore,
  namespace: string | undefined,
  opts: ListOptions,
  settings: WatchSettings,
  signal: AbortSignal,
): AsyncGenerator<WatchOutEvent> {
  const clock = settings.clock;
  const storage = store.storage;
  const predicate = store.predicate(opts.labelSelector, opts.fieldSelector);
  const matches = (o: KubeObject | undefined) => o !== undefined && (!predicate || predicate(o));
  const prefix = store.prefix(namespace);
  const bookmarks = opts.allowWatchBookmarks;
  const bookmark = (rv: number, annotations?: Record<string, string>): WatchOutEvent => ({
    type: "BOOKMARK",
    object: {
      kind: store.gk.kind,
      apiVersion: store.apiVersion,
      metadata: { resourceVersion: String(rv), ...(annotations ? { annotations } : {}) },
    },
  });

  const rv = parseResourceVersion(opts.resourceVersion);
  let from: number;
  const initial: KubeObject[] = [];
  let initialEnd = false;
  if (opts.sendInitialEvents === true || (opts.sendInitialEvents === undefined && rv === undefined)) {
    // Initial state: a consistent snapshot (≥ rv), then changes after it.
    if (rv !== undefined && rv > storage.currentRevision()) {
      yield { type: "ERROR", object: StatusError.timeout(`Too large resource version: ${rv}, current: ${storage.currentRevision()}`, 1).status };
      return;
    }
    const list = await storage.list(prefix, { predicate });
    for (const item of list.items) initial.push(item.object);
    from = list.revision;
    initialEnd = opts.sendInitialEvents === true;
  } else {
    from = rv ?? storage.currentRevision();
  }

  let sw: StorageWatch;
  try {
    sw = storage.watch(prefix, { fromRevision: Math.min(from, storage.currentRevision()), signal });
  } catch (err) {
    if (err instanceof CompactedError) {
      yield expiredEvent(from, err.oldest);
      return;
    }
    throw err;
  }
  try {
    for (const o of initial) yield { type: "ADDED", object: store.present(o) };
    if (initialEnd && bookmarks) yield bookmark(from, { [initialEventsEndAnnotation]: "true" });

    const timeoutMs = opts.timeoutSeconds !== undefined && opts.timeoutSeconds > 0 ? opts.timeoutSeconds * 1000 : settings.defaultTimeoutMs ?? 30 * 60_000;
    const deadline = clock.now() + timeoutMs;
    const interval = settings.bookmarkIntervalMs ?? 60_000;
    let nextBookmark = clock.now() + interval;
    let lastRev = from;
    const it = sw[Symbol.asyncIterator]();
    let pending: Promise<IteratorResult<StorageEvent>> | undefined;
    let settled = false;
    // One timer for the next wake-up (the deadline or the next bookmark), kept across events:
    // both times change only when it fires, so events neither read the clock nor set a timer.
    let timer: Timer | undefined;
    let fired = false;
    let wakeWaiter: ((v: undefined) => void) | undefined;
    const arm = () => {
      fired = false;
      const wake = Math.min(deadline, bookmarks ? nextBookmark : Infinity) - clock.now();
      if (!Number.isFinite(wake)) return;
      timer = clock.setTimer(Math.max(0, wake), () => {
        fired = true;
        timer = undefined;
        wakeWaiter?.(undefined);
      });
    };
    arm();
    try {
      while (!signal.aborted) {
        if (!pending) {
          settled = false;
          pending = it.next();
          void pending.then(() => (settled = true));
        }
        const next = pending;
        const r = fired
          ? undefined
          : await new Promise<IteratorResult<StorageEvent> | undefined>((resolve, reject) => {
              wakeWaiter = resolve;
              next.then(resolve, reject);
            });
        if (r === undefined) {
          // Timer: caught up with the store unless an event is waiting to be read.
          const rvNow = settled ? lastRev : Math.max(lastRev, storage.currentRevision());
          if (clock.now() >= deadline) {
            if (bookmarks) yield bookmark(rvNow);
            return;
          }
          if (bookmarks) yield bookmark(rvNow);
          nextBookmark = clock.now() + interval;
          arm();
          continue;
        }
        pending = undefined;
        if (r.done) return;
        const ev = r.value;
        lastRev = ev.rev;
        if (rv !== undefined && ev.rev <= rv) continue;
        const out = transform(ev, matches);
        if (out) yield store.converts ? { type: out.type, object: store.present(out.object as KubeObject) } : out;
      }
    } finally {
      timer?.cancel();
    }
  } finally {
    sw.close();
  }
}

/** A storage event as the watcher's selector sees it (upstream's watch cache conversion). */
function transform(ev: StorageEvent, matches: (o: KubeObject | undefined) => boolean): WatchOutEvent | undefined {
  switch (ev.type) {
    case "ADDED":
      return matches(ev.object) ? { type: "ADDED", object: ev.object, source: ev } : undefined;
    case "DELETED":
      return matches(ev.prevObject ?? ev.object) ? { type: "DELETED", object: ev.object, source: ev } : undefined;
    case "MODIFIED": {
      const now = matches(ev.object);
      const before = matches(ev.prevObject);
      if (now && before) return { type: "MODIFIED", object: ev.object, source: ev };
      if (now) return { type: "ADDED", object: ev.object };
      if (before) {
        const prev = structuredClone(ev.prevObject!) as KubeObject;
        prev.metadata = { ...(prev.metadata ?? {}), resourceVersion: String(ev.rev) };
        return { type: "DELETED", object: prev };
      }
      return undefined;
    }
  }
}
