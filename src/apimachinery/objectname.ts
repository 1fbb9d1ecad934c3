/**
 * ObjectName: the (namespace, name) key of an object, as client-go's cache.ObjectName.
 *
 * Values are compared by value through `toString()` ("ns/name", or "name" for cluster-scoped
 * objects); the work queue uses that string as the identity of a key.
 */
export class ObjectName {
  readonly namespace: string;
  readonly name: string;

  constructor(namespace: string, name: string) {
    this.namespace = namespace;
    this.name = name;
    Object.freeze(this);
  }

  /** "namespace/name", or "name" when namespace is empty (MetaNamespaceKeyFunc's format). */
  toString(): string {
    return this.namespace === "" ? this.name : `${this.namespace}/${this.name}`;
  }

  equals(other: ObjectName): boolean {
    return this.namespace === other.namespace && this.name === other.name;
  }

  /**
   * Parses "ns/name" or "name". More than one slash, or an empty name, is an error
   * (SplitMetaNamespaceKey's rules).
   */
  static parse(key: string): ObjectName {
    const parts = key.split("/");
    if (parts.length === 1) {
      if (parts[0] === "") throw new Error(`invalid object key "${key}": empty name`);
      return new ObjectName("", parts[0]);
    }
    if (parts.length === 2) {
      if (parts[1] === "") throw new Error(`invalid object key "${key}": empty name`);
      return new ObjectName(parts[0], parts[1]);
    }
    throw new Error(`unexpected key format: "${key}"`);
  }

  /** The name of an object from its metadata. */
  static of(obj: { metadata?: { namespace?: string; name?: string } }): ObjectName {
    return new ObjectName(obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
  }
}

/** The cache key of an object: "ns/name" or "name" (client-go MetaNamespaceKeyFunc). */
export function metaNamespaceKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  // On every cache operation: build the string directly, with no ObjectName allocation.
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? "";
  return ns ? `${ns}/${name}` : name;
}
