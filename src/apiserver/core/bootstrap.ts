/**
 * The objects a fresh cluster has: namespaces default, kube-system, kube-public and
 * kube-node-lease, the `kubernetes` Service (first service IP) and the `kubernetes`
 * ServiceCIDR holding the service range (as kube-apiserver's default ServiceCIDR controller). No Endpoints object: upstream
 * validation forbids the loopback address this server usually listens on. Idempotent: existing objects are left alone.
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { defaultWriteContext } from "../rest/context.js";
import type { ResourceStore } from "../rest/store.js";

export const initialNamespaces = ["default", "kube-system", "kube-public", "kube-node-lease"];

async function ensure(store: ResourceStore | undefined, ns: string | undefined, obj: KubeObject): Promise<void> {
  if (!store) return;
  // After a restart on a data directory the object exists already: leave it alone (creating it
  // again would fail in admission, e.g. the Service's cluster IP is already allocated).
  const existing = await store.storage.get(store.key(ns, obj.metadata?.name ?? ""));
  if (existing) return;
  try {
    await store.create(ns, obj, defaultWriteContext({ fieldManager: "kube-apiserver" }));
  } catch (err) {
    if (!(err instanceof StatusError && err.reason === "AlreadyExists")) throw err;
  }
}

export interface BootstrapStores {
  namespaces?: ResourceStore;
  services?: ResourceStore;
  serviceCIDRs?: ResourceStore;
}

export async function bootstrapCluster(stores: BootstrapStores, opts: { serviceIP: string; port: number; serviceCIDR?: string }): Promise<void> {
  for (const name of initialNamespaces) {
    await ensure(stores.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }
  const labels = { component: "apiserver", provider: "kubernetes" };
  await ensure(stores.services, "default", {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "kubernetes", namespace: "default", labels },
    spec: {
      type: "ClusterIP",
      clusterIP: opts.serviceIP,
      sessionAffinity: "None",
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: opts.port }],
    },
  });
  if (opts.serviceCIDR) {
    await ensure(stores.serviceCIDRs, undefined, {
      apiVersion: "networking.k8s.io/v1",
      kind: "ServiceCIDR",
      metadata: { name: "kubernetes" },
      spec: { cidrs: [opts.serviceCIDR] },
    });
  }
}
