/**
 * The client contract shared by the real HTTP client (src/client) and the fake client
 * (kubeloop/testing). Informers, event sinks, leader election and controllers are written
 * against these interfaces only, so every one of them runs unchanged on either.
 */
import type { Status } from "../apimachinery/api/meta/v1.js";
import type { Scale } from "../apimachinery/api/autoscaling/v1.js";
import type { KubeList, KubeObject, TypedObject } from "../apimachinery/types.js";
import type { ResourceDescriptor } from "../apimachinery/resource.js";

/** Typed resource descriptors live in apimachinery (resource.ts); re-exported here for compatibility. */
export type { ResourceDescriptor, ObjectOf, PartialObjectMetadata } from "../apimachinery/resource.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * One watch event. BOOKMARK carries an object with only apiVersion, kind and
 * metadata.resourceVersion (plus the `k8s.io/initial-events-end` annotation at the end of a
 * watch-list's initial events); ERROR carries a Status.
 */
export type WatchEvent<T extends TypedObject = KubeObject> =
  | { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T }
  | { type: "ERROR"; object: Status };

export interface RequestOptions {
  /** Cancels the request (and, for a watch, ends the stream). */
  signal?: AbortSignal;
}

export interface GetOptions extends RequestOptions {
  resourceVersion?: string;
}

export interface ListOptions extends RequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
  timeoutSeconds?: number;
}

export interface WatchOptions extends RequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  /** Watch-list: initial ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end. */
  sendInitialEvents?: boolean;
}

export type FieldValidation = "Ignore" | "Warn" | "Strict";

export interface WriteOptions extends RequestOptions {
  fieldManager?: string;
  dryRun?: "All";
  fieldValidation?: FieldValidation;
}

/** An update of the object or of a subresource that takes the whole object (namespaces/finalize). */
export interface UpdateOptions extends WriteOptions {
  /** e.g. "finalize" (PUT …/namespaces/{name}/finalize); absent for the object itself. */
  subresource?: string;
}

export type PatchType = "json" | "merge" | "strategic" | "apply";

export interface PatchOptions extends WriteOptions {
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean;
  /** "status" or "scale"; absent for the main resource. */
  subresource?: string;
}

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface DeleteOptions extends RequestOptions {
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: "All";
}

/**
 * A watch stream: an async iterable of events that ends when the server closes the watch,
 * the timeout passes, or the signal aborts. Errors starting the watch (e.g. 410 Expired for a
 * too-old resourceVersion) are thrown by `watch()` itself as `StatusError`; a failure mid-stream
 * is an ERROR event or a thrown error from the iterator.
 */
export type WatchStream<T extends TypedObject> = AsyncIterable<WatchEvent<T>>;

/** Typed access to one resource, namespaced (namespace set, or "" for all namespaces) or cluster-scoped. */
export interface ResourceClient<T extends TypedObject = KubeObject> {
  readonly resource: ResourceDescriptor<T>;
  /** The namespace this client addresses; "" means all namespaces (list/watch) or cluster scope. */
  readonly namespace: string;

  get(name: string, opts?: GetOptions): Promise<T>;
  list(opts?: ListOptions): Promise<KubeList<T>>;
  watch(opts?: WatchOptions): Promise<WatchStream<T>>;
  create(obj: T, opts?: WriteOptions): Promise<T>;
  update(obj: T, opts?: UpdateOptions): Promise<T>;
  updateStatus(obj: T, opts?: WriteOptions): Promise<T>;
  patch(name: string, type: PatchType, patch: unknown, opts?: PatchOptions): Promise<T>;
  /** Resolves to the object (when deletion is deferred by finalizers or grace) or a Success Status. */
  delete(name: string, opts?: DeleteOptions): Promise<T | Status>;
  deleteCollection(listOpts?: ListOptions, deleteOpts?: DeleteOptions): Promise<KubeList<T> | Status>;
  getScale(name: string, opts?: GetOptions): Promise<Scale>;
  updateScale(name: string, scale: Scale, opts?: WriteOptions): Promise<Scale>;
}

/**
 * Anything that hands out resource clients: the real client, the dynamic client, the fake client.
 * The object type comes from the descriptor: `resource(builtin.pods, ns)` is a
 * `ResourceClient<Pod>`. A metadata-only descriptor (`metadataOnly(d)`) gives a client whose
 * get, list, watch, patch and delete return PartialObjectMetadata; it refuses create, update,
 * updateStatus and the scale subresource.
 */
export interface ResourceClientFactory {
  resource<T extends TypedObject>(resource: ResourceDescriptor<T>, namespace?: string): ResourceClient<T>;
}
