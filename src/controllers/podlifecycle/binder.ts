/**
 * Binding through the API: a POST of a v1 Binding to the pod's `pods/binding` subresource, as the
 * scheduler binds. The simulator uses it where the server refuses spec.nodeName updates (every
 * real API server, and the embedded one).
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { KubeClient } from "../../client/kubeclient.js";
import type { PodBinder } from "./simulator.js";

/** Binds pods through the pods/binding subresource, as a scheduler does. */
export function apiBinder(client: KubeClient): PodBinder {
  return async (pod: Pod, nodeName: string, signal?: AbortSignal) => {
    const ns = pod.metadata?.namespace ?? "default";
    const name = pod.metadata?.name ?? "";
    await client.transport.requestJSON({
      method: "POST",
      path: `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}/binding`,
      body: JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name, namespace: ns }, target: { apiVersion: "v1", kind: "Node", name: nodeName } }),
      contentType: "application/json",
      signal,
      target: { group: "", resource: "pods", name },
    });
  };
}
