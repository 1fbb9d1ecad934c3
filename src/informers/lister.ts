/**
 * Listers: read-only, selector-aware views of an informer's cache (client-go's generated listers
 * in generic form). Returned objects are the frozen cached objects — never modify them; copy
 * with `deepCopy` first.
 */
import type { Selector } from "../apimachinery/labels.js";
import { StatusError } from "../apimachinery/errors.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceDescriptor } from "../apimachinery/resource.js";
import { NAMESPACE_INDEX, type Indexer } from "./store.js";

function matches(sel: Selector | undefined, obj: TypedObject): boolean {
  return !sel || sel.matches(obj.metadata?.labels ?? {});
}

export class Lister<T extends TypedObject = TypedObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    readonly resource: ResourceDescriptor<T>,
  ) {}

  /** Every cached object (all namespaces) matching the selector. */
  list(selector?: Selector): readonly T[] {
    return this.indexer.list().filter((o) => matches(selector, o));
  }

  /** A cluster-scoped object by name; 404 StatusError when absent. */
  get(name: string): T {
    const o = this.indexer.getByKey(name);
    if (!o) throw StatusError.notFound(this.resource, name);
    return o;
  }

  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister<T>(this.indexer, this.resource, namespace);
  }
}

export class NamespaceLister<T extends TypedObject = TypedObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    readonly resource: ResourceDescriptor<T>,
    readonly namespace: string,
  ) {}

  list(selector?: Selector): readonly T[] {
    return this.indexer.byIndex(NAMESPACE_INDEX, this.namespace).filter((o) => matches(selector, o));
  }

  /** An object by name in this namespace; 404 StatusError when absent. */
  get(name: string): T {
    const o = this.indexer.getByKey(`${this.namespace}/${name}`);
    if (!o) throw StatusError.notFound(this.resource, name);
    return o;
  }
}
