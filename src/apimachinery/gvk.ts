/** Group/version/kind and group/version/resource identifiers, as in apimachinery's schema package. */

export interface GroupVersion {
  group: string;
  version: string;
}

export interface GroupVersionKind extends GroupVersion {
  kind: string;
}

export interface GroupVersionResource extends GroupVersion {
  resource: string;
}

export interface GroupResource {
  group: string;
  resource: string;
}

/** "apps/v1" → { group: "apps", version: "v1" }; "v1" → { group: "", version: "v1" }. */
export function parseGroupVersion(apiVersion: string): GroupVersion {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/** The apiVersion string of a group/version: "v1" for the core group, "apps/v1" otherwise. */
export function groupVersionString(gv: GroupVersion): string {
  return gv.group === "" ? gv.version : `${gv.group}/${gv.version}`;
}

/** The GVK of an object from its apiVersion and kind fields. */
export function gvkOf(obj: { apiVersion?: string; kind?: string }): GroupVersionKind {
  const gv = parseGroupVersion(obj.apiVersion ?? "");
  return { ...gv, kind: obj.kind ?? "" };
}

export function gvkString(gvk: GroupVersionKind): string {
  return `${groupVersionString(gvk)}, Kind=${gvk.kind}`;
}

export function gvrString(gvr: GroupVersionResource): string {
  return `${groupVersionString(gvr)}, Resource=${gvr.resource}`;
}

/** "deployments.apps" / "pods": the form kube-apiserver uses in error messages. */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === "" ? gr.resource : `${gr.resource}.${gr.group}`;
}

export function sameGVK(a: GroupVersionKind, b: GroupVersionKind): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

export function sameGVR(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}
