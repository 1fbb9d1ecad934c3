/**
 * Storage keys: `/registry/<group|core>/<resource>/[<namespace>/]<name>`. Key order is list
 * order (namespace, then name), as kube-apiserver's etcd keys.
 */
export function resourcePrefix(group: string, resource: string): string {
  return `/registry/${group === "" ? "core" : group}/${resource}/`;
}

export function collectionPrefix(group: string, resource: string, namespace: string | undefined): string {
  const p = resourcePrefix(group, resource);
  return namespace ? `${p}${namespace}/` : p;
}

export function objectKey(group: string, resource: string, namespace: string | undefined, name: string): string {
  return `${collectionPrefix(group, resource, namespace)}${name}`;
}
