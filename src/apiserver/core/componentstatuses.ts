/**
 * core/v1 ComponentStatuses (deprecated since 1.19, still served): computed on every read, never
 * stored. kube-apiserver probes the scheduler, the controller manager and each etcd server; the
 * embedded server has no such processes to probe, so it answers what a 1.36 server answers for
 * a healthy cluster — scheduler and controller-manager Healthy "ok" — and reports etcd-0 from
 * its own storage: Healthy "ok" while the storage answers, Unhealthy with the error otherwise.
 * Label and field selectors apply; there is no watch (upstream serves get and list only).
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeList, KubeObject } from "../../apimachinery/types.js";
import type { ListOptions } from "../rest/options.js";
import { ResourceStore } from "../rest/store.js";

function componentStatus(name: string, healthy: boolean, message: string, error: string): KubeObject {
  const condition: Record<string, string> = { type: "Healthy", status: healthy ? "True" : "False" };
  if (message) condition.message = message;
  if (error) condition.error = error;
  return { kind: "ComponentStatus", apiVersion: "v1", metadata: { name }, conditions: [condition] };
}

export class ComponentStatusStore extends ResourceStore {
  private async statuses(): Promise<KubeObject[]> {
    let etcd: KubeObject;
    try {
      await this.storage.list("/registry/core/namespaces/", { limit: 1 });
      etcd = componentStatus("etcd-0", true, "ok", "");
    } catch (err) {
      etcd = componentStatus("etcd-0", false, "", err instanceof Error ? err.message : String(err));
    }
    return [componentStatus("controller-manager", true, "ok", ""), etcd, componentStatus("scheduler", true, "ok", "")];
  }

  override async get(_namespace: string | undefined, name: string): Promise<KubeObject> {
    const found = (await this.statuses()).find((s) => s.metadata?.name === name);
    if (!found) throw StatusError.notFound(this.gr, name);
    return found;
  }

  override async list(_namespace: string | undefined, opts: ListOptions): Promise<KubeList> {
    const predicate = this.predicate(opts.labelSelector, opts.fieldSelector);
    const items = (await this.statuses()).filter((s) => !predicate || predicate(s));
    return { apiVersion: "v1", kind: "ComponentStatusList", metadata: {}, items };
  }
}
