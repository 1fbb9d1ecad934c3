/**
 * The HTTP ResourceClient: one resource (GVR) in one namespace, over a Transport — client-go's
 * dynamic ResourceInterface with typed results.
 *
 * Paths: /api/v1/... for the core group, /apis/<group>/<version>/... otherwise;
 * /namespaces/<ns> is inserted for a namespaced resource when the client has a namespace. A
 * client for a namespaced resource with namespace "" lists and watches across all namespaces;
 * create/update/updateStatus then take the namespace from the object, and calls that name an
 * object (get, patch, delete, scale) are refused, as client-go's request preflight check does.
 * For a cluster-scoped resource the namespace is ignored.
 */
import type { Status } from "../apimachinery/api/meta/v1.js";
import type { Scale } from "../apimachinery/api/autoscaling/v1.js";
import { toPartialObjectMetadata, PARTIAL_OBJECT_METADATA_KIND } from "../apimachinery/resource.js";
import type { KubeList, KubeObject, TypedObject } from "../apimachinery/types.js";
import { RequestConstructionError } from "./errors.js";
import type {
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceDescriptor,
  WatchOptions,
  WatchStream,
  UpdateOptions,
  WriteOptions,
} from "./interfaces.js";
import type { HttpMethod, QueryValue, RestRequest, Transport } from "./transport.js";
import { watchStream } from "./watch.js";

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const JSON_TYPE = "application/json";

/**
 * What a metadata-only client accepts (client-go's metadata client and kube-rs send the same):
 * PartialObjectMetadata[List] as JSON, else plain JSON from a server that cannot convert — the
 * client then reduces the answer to metadata itself.
 */
export const PARTIAL_OBJECT_METADATA_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
export const PARTIAL_OBJECT_METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/** A metadata-only client refuses the calls that send or return whole objects. */
export function refuseOnMetadataView(rd: ResourceDescriptor, verb: string): void {
  if (rd.metadataOnly) {
    throw new RequestConstructionError(`${verb} is not supported on a metadata-only client for ${rd.resource}: use the full resource descriptor`);
  }
}

/** `obj` as a metadata-only read returns it (already PartialObjectMetadata when the server converted it). */
function asPartial<T>(obj: unknown): T {
  const o = obj as TypedObject;
  return (o.kind === PARTIAL_OBJECT_METADATA_KIND ? o : toPartialObjectMetadata(o)) as T;
}

/** client-go's IsValidPathSegmentName. */
export function validatePathSegment(what: string, name: string): void {
  const problems: string[] = [];
  if (name === "." || name === "..") problems.push(`may not be '${name}'`);
  for (const bad of ["/", "%"]) if (name.includes(bad)) problems.push(`may not contain '${bad}'`);
  if (problems.length > 0) throw new RequestConstructionError(`invalid ${what} "${name}": [${problems.join(", ")}]`);
}

/** The API path of a group/version: "/api/v1" or "/apis/apps/v1". */
export function groupVersionPath(gv: { group: string; version: string }): string {
  return gv.group === "" ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
}

/** The path of a collection, an object or an object's subresource. */
export function resourcePath(rd: ResourceDescriptor, namespace: string, name?: string, subresource?: string): string {
  let p = groupVersionPath(rd);
  if (rd.namespaced && namespace !== "") {
    validatePathSegment("namespace", namespace);
    p += `/namespaces/${namespace}`;
  }
  validatePathSegment("resource", rd.resource);
  p += `/${rd.resource}`;
  if (name !== undefined) {
    if (name === "") throw new RequestConstructionError("resource name may not be empty");
    validatePathSegment("resource name", name);
    p += `/${name}`;
  }
  if (subresource) {
    for (const s of subresource.split("/")) validatePathSegment("subresource", s);
    p += `/${subresource}`;
  }
  return p;
}

export function listQuery(o: ListOptions | undefined): Record<string, QueryValue> {
  if (!o) return {};
  return {
    labelSelector: o.labelSelector || undefined,
    fieldSelector: o.fieldSelector || undefined,
    limit: o.limit && o.limit > 0 ? o.limit : undefined,
    continue: o.continue || undefined,
    resourceVersion: o.resourceVersion || undefined,
    resourceVersionMatch: o.resourceVersionMatch || undefined,
    timeoutSeconds: o.timeoutSeconds && o.timeoutSeconds > 0 ? o.timeoutSeconds : undefined,
  };
}

export function watchQuery(o: WatchOptions | undefined): Record<string, QueryValue> {
  return {
    watch: "true",
    labelSelector: o?.labelSelector || undefined,
    fieldSelector: o?.fieldSelector || undefined,
    resourceVersion: o?.resourceVersion || undefined,
    resourceVersionMatch: o?.resourceVersionMatch || undefined,
    timeoutSeconds: o?.timeoutSeconds && o.timeoutSeconds > 0 ? o.timeoutSeconds : undefined,
    allowWatchBookmarks: o?.allowWatchBookmarks ? "true" : undefined,
    sendInitialEvents: o?.sendInitialEvents === undefined ? undefined : String(o.sendInitialEvents),
  };
}

export function writeQuery(o: WriteOptions | undefined): Record<string, QueryValue> {
  return {
    fieldManager: o?.fieldManager || undefined,
    dryRun: o?.dryRun,
    fieldValidation: o?.fieldValidation,
  };
}

/** The DeleteOptions body client-go's dynamic client sends. */
export function deleteOptionsBody(o: DeleteOptions | undefined): string {
  const body: Record<string, unknown> = { kind: "DeleteOptions", apiVersion: "v1" };
  if (o?.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o?.preconditions && (o.preconditions.uid !== undefined || o.preconditions.resourceVersion !== undefined)) {
    body.preconditions = { ...o.preconditions };
  }
  if (o?.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
  if (o?.dryRun) body.dryRun = [o.dryRun];
  return JSON.stringify(body);
}

function isStatus(doc: unknown): doc is Status {
  return typeof doc === "object" && doc !== null && (doc as { kind?: unknown }).kind === "Status";
}

function encodePatch(patch: unknown): string | Uint8Array {
  if (typeof patch === "string" || patch instanceof Uint8Array) return patch;
  return JSON.stringify(patch);
}

export class HttpResourceClient<T extends TypedObject = KubeObject> implements ResourceClient<T> {
  readonly resource: ResourceDescriptor<T>;
  readonly namespace: string;
  private readonly transport: Transport;
  /** The Accept header of object responses: PartialObjectMetadata for a metadata-only view. */
  private readonly accept: string | undefined;

  constructor(transport: Transport, resource: ResourceDescriptor<T>, namespace = "") {
    this.transport = transport;
    this.resource = resource;
    this.namespace = resource.namespaced ? namespace : "";
    this.accept = resource.metadataOnly ? PARTIAL_OBJECT_METADATA_ACCEPT : undefined;
  }

  /** The namespace for a call naming an object. */
  private namedNamespace(): string {
    if (this.resource.namespaced && this.namespace === "") {
      throw new RequestConstructionError("an empty namespace may not be set when a resource name is provided");
    }
    return this.namespace;
  }

  /** The namespace for a write carrying an object: the client's, else the object's. */
  private objectNamespace(obj: TypedObject, verb: "create" | "update"): string {
    if (!this.resource.namespaced) return "";
    if (this.namespace !== "") return this.namespace;
    const ns = obj.metadata?.namespace ?? "";
    if (ns === "") {
      throw new RequestConstructionError(
        verb === "create" ? "an empty namespace may not be set during creation" : "an empty namespace may not be set when a resource name is provided",
      );
    }
    return ns;
  }

  private target(name?: string): RestRequest["target"] {
    return { group: this.resource.group, resource: this.resource.resource, ...(name ? { name } : {}) };
  }

  private call<R>(
    method: HttpMethod,
    path: string,
    opts: { query?: Record<string, QueryValue>; body?: string | Uint8Array; contentType?: string; signal?: AbortSignal; name?: string; accept?: string },
  ): Promise<R> {
    const req: RestRequest = { method, path, target: this.target(opts.name) };
    if (opts.accept) req.accept = opts.accept;
    if (opts.query) req.query = opts.query;
    if (opts.body !== undefined) {
      req.body = opts.body;
      req.contentType = opts.contentType ?? JSON_TYPE;
    }
    if (opts.signal) req.signal = opts.signal;
    return this.transport.requestJSON<R>(req);
  }

  get(name: string, opts?: GetOptions): Promise<T> {
    const got = this.call<T>("GET", resourcePath(this.resource, this.namedNamespace(), name), {
      query: { resourceVersion: opts?.resourceVersion || undefined },
      signal: opts?.signal,
      name,
      accept: this.accept,
    });
    return this.accept ? got.then((obj) => asPartial<T>(obj)) : got;
  }

  async list(opts?: ListOptions): Promise<KubeList<T>> {
    const list = await this.call<KubeList<T>>("GET", resourcePath(this.resource, this.namespace), {
      query: listQuery(opts),
      signal: opts?.signal,
      accept: this.accept ? PARTIAL_OBJECT_METADATA_LIST_ACCEPT : undefined,
    });
    if (!Array.isArray(list.items)) list.items = [];
    if (this.accept && list.kind !== `${PARTIAL_OBJECT_METADATA_KIND}List`) {
      // A server that could not convert: fill in each item's type, then keep only its metadata.
      const apiVersion = list.apiVersion ?? (this.resource.group ? `${this.resource.group}/${this.resource.version}` : this.resource.version);
      list.items = list.items.map((item) => asPartial<T>({ ...item, apiVersion: item.apiVersion ?? apiVersion }));
      list.kind = `${PARTIAL_OBJECT_METADATA_KIND}List`;
      return list;
    }
    // Items of a list carry no apiVersion/kind on the wire; fill them in (as client-go's UnstructuredList does).
    const apiVersion = list.apiVersion ?? (this.resource.group ? `${this.resource.group}/${this.resource.version}` : this.resource.version);
    const kind = list.kind?.endsWith("List") ? list.kind.slice(0, -4) : this.resource.kind;
    for (const item of list.items) {
      if (item.apiVersion === undefined) item.apiVersion = apiVersion;
      if (item.kind === undefined) item.kind = kind;
    }
    return list;
  }

  async watch(opts?: WatchOptions): Promise<WatchStream<T>> {
    const req: RestRequest = {
      method: "GET",
      path: resourcePath(this.resource, this.namespace),
      query: watchQuery(opts),
      target: this.target(),
    };
    if (opts?.signal) req.signal = opts.signal;
    if (this.accept) req.accept = this.accept;
    const res = await this.transport.stream(req);
    const stream = watchStream<T>(res);
    return this.accept ? partialWatchStream(stream) : stream;
  }

  create(obj: T, opts?: WriteOptions): Promise<T> {
    refuseOnMetadataView(this.resource, "create");
    return this.call<T>("POST", resourcePath(this.resource, this.objectNamespace(obj, "create")), {
      query: writeQuery(opts),
      body: JSON.stringify(obj),
      signal: opts?.signal,
    });
  }

  private put(obj: T, subresource: string | undefined, opts?: WriteOptions): Promise<T> {
    refuseOnMetadataView(this.resource, subresource ? `update ${subresource}` : "update");
    const name = obj.metadata?.name ?? "";
    return this.call<T>("PUT", resourcePath(this.resource, this.objectNamespace(obj, "update"), name, subresource), {
      query: writeQuery(opts),
      body: JSON.stringify(obj),
      signal: opts?.signal,
      name,
    });
  }

  update(obj: T, opts?: UpdateOptions): Promise<T> {
    return this.put(obj, opts?.subresource, opts);
  }

  updateStatus(obj: T, opts?: WriteOptions): Promise<T> {
    return this.put(obj, "status", opts);
  }

  patch(name: string, type: PatchType, patch: unknown, opts?: PatchOptions): Promise<T> {
    const contentType = PATCH_CONTENT_TYPES[type];
    if (!contentType) throw new RequestConstructionError(`unknown patch type "${String(type)}"`);
    if (type === "apply" && !opts?.fieldManager) {
      throw new RequestConstructionError("fieldManager is required for apply patches");
    }
    return this.call<T>("PATCH", resourcePath(this.resource, this.namedNamespace(), name, opts?.subresource), {
      query: { ...writeQuery(opts), force: opts?.force === undefined ? undefined : String(opts.force) },
      body: encodePatch(patch),
      contentType,
      signal: opts?.signal,
      name,
      accept: this.accept,
    }).then((obj) => (this.accept ? asPartial<T>(obj) : obj));
  }

  delete(name: string, opts?: DeleteOptions): Promise<T | Status> {
    return this.call<T | Status>("DELETE", resourcePath(this.resource, this.namedNamespace(), name), {
      body: deleteOptionsBody(opts),
      signal: opts?.signal,
      name,
      accept: this.accept,
    }).then((doc) => (isStatus(doc) ? doc : this.accept ? asPartial<T>(doc) : (doc as T)));
  }

  deleteCollection(listOpts?: ListOptions, deleteOpts?: DeleteOptions): Promise<KubeList<T> | Status> {
    return this.call<KubeList<T> | Status>("DELETE", resourcePath(this.resource, this.namespace), {
      query: listQuery(listOpts),
      body: deleteOptionsBody(deleteOpts),
      signal: deleteOpts?.signal ?? listOpts?.signal,
    });
  }

  getScale(name: string, opts?: GetOptions): Promise<Scale> {
    refuseOnMetadataView(this.resource, "get scale");
    return this.call<Scale>("GET", resourcePath(this.resource, this.namedNamespace(), name, "scale"), {
      query: { resourceVersion: opts?.resourceVersion || undefined },
      signal: opts?.signal,
      name,
    });
  }

  updateScale(name: string, scale: Scale, opts?: WriteOptions): Promise<Scale> {
    refuseOnMetadataView(this.resource, "update scale");
    return this.call<Scale>("PUT", resourcePath(this.resource, this.namedNamespace(), name, "scale"), {
      query: writeQuery(opts),
      body: JSON.stringify(scale),
      signal: opts?.signal,
      name,
    });
  }
}

/** A watch over a metadata-only view: objects reduced to metadata where the server sent more. */
async function* partialWatchStream<T extends TypedObject>(stream: WatchStream<T>): WatchStream<T> {
  for await (const ev of stream) {
    if (ev.type === "ERROR" || ev.type === "BOOKMARK") yield ev;
    else yield { type: ev.type, object: asPartial<T>(ev.object) };
  }
}
