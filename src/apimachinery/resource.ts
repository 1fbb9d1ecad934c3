/**
 * Typed resource descriptors: what a client, an informer or a lister needs to address one
 * resource (its group, version, plural name, kind and scope), carrying the TypeScript type of its
 * objects so that everything built from a descriptor infers that type.
 *
 *   const apps = defineResource<Application>({ group: "kubeloop.dev", version: "v1alpha1",
 *     resource: "applications", kind: "Application", namespaced: true });
 *   client.resource(apps, "default")           // ResourceClient<Application>
 *   informers.forResource(builtin.deployments) // SharedIndexInformer<Deployment>
 *
 * The object type is a type-level tag only: a descriptor is a frozen plain object of five fields
 * (six for a metadata-only view) at run time, so descriptors from discovery or from JSON are
 * descriptors too (of `TypedObject`).
 *
 * A metadata-only view (`metadataOnly(d)`) addresses the same resource but reads it as
 * `PartialObjectMetadata` (kind, apiVersion and metadata only): clients ask the server for that
 * representation (Accept `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`), so an
 * informer over the view caches metadata instead of whole objects — what upstream's garbage
 * collector and controller-runtime's `OnlyMetadata` watches do.
 */
import type { ObjectMeta } from "./api/meta/v1.js";
import type { GroupVersionResource } from "./gvk.js";
import type { TypedObject } from "./types.js";

/** Type-only key of the object-type tag (no value exists at run time). */
declare const objectTypeTag: unique symbol;

/** A resource as clients, informers and listers address it; `T` is the type of its objects. */
export interface ResourceDescriptor<T extends TypedObject = TypedObject> extends GroupVersionResource {
  /** The kind of its objects, e.g. "Deployment". */
  readonly kind: string;
  /** Whether objects live in namespaces. */
  readonly namespaced: boolean;
  /** A metadata-only view: reads return PartialObjectMetadata (see `metadataOnly`). */
  readonly metadataOnly?: true;
  /** The object type (a compile-time tag; never set). */
  readonly [objectTypeTag]?: T;
}

/** The object type a descriptor carries: `ObjectOf<typeof builtin.pods>` is `Pod`. */
export type ObjectOf<D> = D extends ResourceDescriptor<infer T> ? T : never;

/** What `defineResource` takes: the five facts that address a resource. */
export interface ResourceDefinition {
  /** "" for the core group. */
  group: string;
  version: string;
  /** The plural, lower-case resource name used in URLs ("deployments"). */
  resource: string;
  kind: string;
  namespaced: boolean;
}

export class InvalidResourceDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidResourceDefinitionError";
  }
}

/**
 * The one way to make a descriptor: built-in resources (`builtin`) and custom resources alike.
 * Returns a frozen object holding exactly the five fields. Throws
 * InvalidResourceDefinitionError for an empty version, resource or kind, or a resource name with
 * a slash (a subresource is not a resource).
 */
export function defineResource<T extends TypedObject>(def: ResourceDefinition): ResourceDescriptor<T> {
  const { group, version, resource, kind, namespaced } = def;
  if (typeof group !== "string") throw new InvalidResourceDefinitionError("group must be a string (\"\" for the core group)");
  for (const [field, v] of [
    ["version", version],
    ["resource", resource],
    ["kind", kind],
  ] as const) {
    if (typeof v !== "string" || v === "") throw new InvalidResourceDefinitionError(`resource ${field} must not be empty`);
  }
  if (resource.includes("/")) throw new InvalidResourceDefinitionError(`resource "${resource}" must not contain "/"`);
  return Object.freeze({ group, version, resource, kind, namespaced: namespaced === true });
}

/**
 * An object read through a metadata-only view: the object's kind and apiVersion as the server
 * answers them (meta.k8s.io/v1 PartialObjectMetadata) and its whole metadata.
 */
export interface PartialObjectMetadata extends TypedObject {
  metadata?: ObjectMeta;
}

export const PARTIAL_OBJECT_METADATA_API_VERSION = "meta.k8s.io/v1";
export const PARTIAL_OBJECT_METADATA_KIND = "PartialObjectMetadata";

/** The metadata-only view of a resource (idempotent; drops nothing but the object type). */
export function metadataOnly(d: ResourceDescriptor): ResourceDescriptor<PartialObjectMetadata> {
  return Object.freeze({ group: d.group, version: d.version, resource: d.resource, kind: d.kind, namespaced: d.namespaced, metadataOnly: true as const });
}

/** `obj` reduced to what a metadata-only read returns. */
export function toPartialObjectMetadata(obj: TypedObject): PartialObjectMetadata {
  return { apiVersion: PARTIAL_OBJECT_METADATA_API_VERSION, kind: PARTIAL_OBJECT_METADATA_KIND, metadata: obj.metadata ?? {} };
}

/** The descriptor without its metadata-only flag: the full resource. */
export function fullResource(d: ResourceDescriptor): ResourceDescriptor {
  if (!d.metadataOnly) return d;
  return defineResource({ group: d.group, version: d.version, resource: d.resource, kind: d.kind, namespaced: d.namespaced });
}
