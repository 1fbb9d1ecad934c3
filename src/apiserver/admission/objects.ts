/**
 * What admission needs to know about kinds beyond one request (upstream admission.
 * ObjectInterfaces): which resources are the same objects served at other versions
 * (EquivalentResourceMapper, for `matchPolicy: Equivalent`), the kind of a resource, conversion
 * of an object to another version of its kind, and the defaults of a version (re-applied after
 * a webhook's patch).
 *
 * `registryObjectInterfaces` answers from the served resources: the versions of one
 * group/resource share one storage, so they are equivalent; custom resources convert through
 * their CRD's conversion (None or Webhook); other kinds change only apiVersion.
 */
import type { GroupVersionKind, GroupVersionResource } from "../../apimachinery/gvk.js";
import { groupVersionString } from "../../apimachinery/gvk.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ResourceRegistry } from "../server/resources.js";

export interface ObjectInterfaces {
  /** Every resource serving the same objects as `resource`, `resource` included (registration order). */
  equivalentResourcesFor(resource: GroupVersionResource, subresource: string): GroupVersionResource[];
  /** The kind of `resource` (for a subresource: the subresource's kind), or undefined when unknown. */
  kindFor(resource: GroupVersionResource, subresource: string): GroupVersionKind | undefined;
  /** `obj` converted to `to` (a new object; `obj` is not changed). */
  convert(obj: KubeObject, to: GroupVersionKind, signal: AbortSignal): Promise<KubeObject>;
  /** Applies the defaults of `gvk` to `obj` in place. */
  default(obj: KubeObject, gvk: GroupVersionKind): void;
}

/** Converts a custom resource to `apiVersion`; undefined when `obj` is not a custom resource. */
export type CustomResourceConverter = (obj: KubeObject, apiVersion: string, signal: AbortSignal) => Promise<KubeObject> | undefined;

const scaleKind: GroupVersionKind = { group: "autoscaling", version: "v1", kind: "Scale" };

export function registryObjectInterfaces(registry: ResourceRegistry, convertCustomResource?: CustomResourceConverter): ObjectInterfaces {
  const storeOf = (r: GroupVersionResource) => registry.lookup(r.group, r.version, r.resource);
  return {
    equivalentResourcesFor(resource) {
      const out = registry
        .all()
        .filter((s) => s.gr.group === resource.group && s.gr.resource === resource.resource)
        .map((s) => ({ group: s.gr.group, version: s.strategy.names.version, resource: s.gr.resource }));
      return out.length ? out : [resource];
    },
    kindFor(resource, subresource) {
      const store = storeOf(resource);
      if (!store) return undefined;
      if (subresource === "scale") return scaleKind;
      if (subresource !== "" && subresource !== "status") return undefined;
      return { group: store.gr.group, version: store.strategy.names.version, kind: store.strategy.names.kind };
    },
    async convert(obj, to, signal) {
      const apiVersion = groupVersionString(to);
      if (obj.apiVersion === apiVersion) return deepCopy(obj);
      const converted = convertCustomResource?.(obj, apiVersion, signal);
      if (converted) return converted;
      return { ...deepCopy(obj), apiVersion };
    },
    default(obj, gvk) {
      const store = registry.all().find((s) => s.gr.group === gvk.group && s.strategy.names.version === gvk.version && s.strategy.names.kind === gvk.kind);
      store?.strategy.defaults(obj);
    },
  };
}
