/**
 * Cache: typed reads of the manager's informer caches (controller-runtime's cache reader), what a
 * reconcile reads through `ctx.cache`:
 *
 *   const app = ctx.cache.get(applications, req);              // Application | undefined
 *   const rss = ctx.cache.list(builtin.replicaSets, { namespace, selector });
 *
 * Objects are the cached, frozen ones: copy (deepCopy) before changing. Only resources some
 * informer of the factory was created for can be read — a controller's `for`, `owns` and
 * `watches` create theirs — so a read of anything else throws NotWatchedError instead of
 * answering from an empty, never-synced cache.
 */
import type { Selector } from "../apimachinery/labels.js";
import type { ObjectName } from "../apimachinery/objectname.js";
import type { ResourceDescriptor } from "../apimachinery/resource.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { SharedInformerFactory } from "../informers/factory.js";
import type { Lister } from "../informers/lister.js";
import type { Indexer } from "../informers/store.js";

export class NotWatchedError extends Error {
  constructor(r: ResourceDescriptor) {
    super(
      `no informer watches ${r.resource}${r.group ? `.${r.group}` : ""}${r.metadataOnly ? " (metadata only)" : ""}: ` +
        "add it to the controller with for(), owns() or watches() before reading it from the cache",
    );
    this.name = "NotWatchedError";
  }
}

export interface ListFilter {
  /** One namespace; absent: every namespace. */
  namespace?: string;
  selector?: Selector;
}

export class Cache {
  /** Without a factory (an engine built without informers) every read throws NotWatchedError. */
  constructor(private readonly informers: SharedInformerFactory | undefined) {}

  /** The lister of a watched resource. */
  lister<T extends TypedObject>(r: ResourceDescriptor<T>): Lister<T> {
    return this.informer(r).lister();
  }

  /** The indexer of a watched resource (index lookups such as CONTROLLER_UID_INDEX). */
  indexer<T extends TypedObject>(r: ResourceDescriptor<T>): Indexer<T> {
    return this.informer(r).getIndexer();
  }

  /** The cached object, or undefined when the cache does not hold it. */
  get<T extends TypedObject>(r: ResourceDescriptor<T>, key: ObjectName | { namespace?: string; name: string }): T | undefined {
    const ns = r.namespaced ? (key.namespace ?? "") : "";
    return this.informer(r).getIndexer().getByKey(ns ? `${ns}/${key.name}` : key.name);
  }

  /** The cached objects in a namespace (or all), optionally matching a label selector. */
  list<T extends TypedObject>(r: ResourceDescriptor<T>, filter: ListFilter = {}): readonly T[] {
    const lister = this.informer(r).lister();
    return filter.namespace !== undefined && r.namespaced ? lister.namespace(filter.namespace).list(filter.selector) : lister.list(filter.selector);
  }

  private informer<T extends TypedObject>(r: ResourceDescriptor<T>) {
    const inf = this.informers?.existing(r);
    if (!inf) throw new NotWatchedError(r);
    return inf;
  }
}
