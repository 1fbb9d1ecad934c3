/**
 * The dynamic client: resource clients over unstructured objects (client-go's dynamic.Interface),
 * plus lookups by kind through the REST mapper.
 */
import type { GroupVersionKind } from "../apimachinery/gvk.js";
import { gvkOf } from "../apimachinery/gvk.js";
import { defineResource } from "../apimachinery/resource.js";
import type { KubeObject, TypedObject } from "../apimachinery/types.js";
import type { ResourceClient, ResourceClientFactory, ResourceDescriptor } from "./interfaces.js";
import { HttpResourceClient } from "./resource.js";
import type { DiscoveryRESTMapper } from "./restmapper.js";
import type { Transport } from "./transport.js";

/** The same resource, read and written as unstructured objects. */
function unstructured(d: ResourceDescriptor): ResourceDescriptor<KubeObject> {
  return defineResource<KubeObject>(d);
}

export class DynamicClient implements ResourceClientFactory {
  private readonly transport: Transport;
  private readonly mapper?: DiscoveryRESTMapper;

  constructor(transport: Transport, mapper?: DiscoveryRESTMapper) {
    this.transport = transport;
    if (mapper) this.mapper = mapper;
  }

  resource<T extends TypedObject>(resource: ResourceDescriptor<T>, namespace = ""): ResourceClient<T> {
    return new HttpResourceClient<T>(this.transport, resource, namespace);
  }

  /** A client for a kind, mapped to its resource through discovery (version "" → preferred). */
  async forKind(gvk: GroupVersionKind, namespace = "", signal?: AbortSignal): Promise<ResourceClient<KubeObject>> {
    if (!this.mapper) throw new Error("DynamicClient.forKind needs a REST mapper");
    const d = await this.mapper.descriptorForKind(gvk, signal);
    return this.resource(unstructured(d), namespace);
  }

  /** A client for an object's kind, in the object's namespace (or `namespace` when given). */
  forObject(obj: KubeObject, namespace?: string, signal?: AbortSignal): Promise<ResourceClient<KubeObject>> {
    return this.forKind(gvkOf(obj), namespace ?? obj.metadata?.namespace ?? "", signal);
  }
}
