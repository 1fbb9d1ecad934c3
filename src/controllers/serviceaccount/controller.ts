/**
 * The ServiceAccount controller (upstream pkg/controller/serviceaccount serviceaccounts_controller.go):
 * every Active namespace has the ServiceAccounts it should (`default`), created again when deleted.
 *
 * Requests: a namespace name (ObjectName with namespace ""), from namespace adds and updates and
 * from the deletion of a ServiceAccount it manages. A namespace that is gone or Terminating is left
 * alone; a create that races another writer (AlreadyExists) or the namespace's termination
 * (Forbidden, NotFound) is not an error.
 *
 * The embedded API server also keeps `default` ServiceAccounts (apiserver/core/controllers.ts), so
 * that `kubeloop apiserver` alone admits pods; both create only what is missing, so they agree.
 */
import type { Namespace, ServiceAccount } from "../../apimachinery/api/core/v1.js";
import { isAlreadyExists, isForbidden, isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";

export const SERVICE_ACCOUNT_CONTROLLER_NAME = "serviceaccount-controller";
/** kube-controller-manager runs it with one worker. */
export const DEFAULT_SERVICE_ACCOUNT_WORKERS = 1;

export interface ServiceAccountControllerOptions {
  workers?: number;
  /** The ServiceAccounts every namespace gets (upstream's default: ["default"]). */
  serviceAccounts?: readonly string[];
}

export class ServiceAccountController {
  readonly controller: Controller;
  private readonly namespaces: Lister<Namespace>;
  private readonly accounts: Lister<ServiceAccount>;
  private readonly names: readonly string[];

  constructor(mgr: Manager, opts: ServiceAccountControllerOptions = {}) {
    this.names = opts.serviceAccounts ?? ["default"];
    this.namespaces = mgr.informers.forResource(builtin.namespaces).lister();
    this.accounts = mgr.informers.forResource(builtin.serviceAccounts).lister();
    const nsKey = (name: string | undefined) => new ObjectName("", name ?? "");
    this.controller = mgr
      .controller(SERVICE_ACCOUNT_CONTROLLER_NAME)
      .watches(builtin.namespaces, {
        create: (e, q) => q.add(nsKey(e.object.metadata?.name)),
        update: (e, q) => q.add(nsKey(e.objectNew.metadata?.name)),
      })
      .watches(builtin.serviceAccounts, {
        delete: (e, q) => {
          if (this.names.includes(e.object.metadata?.name ?? "")) q.add(nsKey(e.object.metadata?.namespace));
        },
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_SERVICE_ACCOUNT_WORKERS })
      .reconcile((req, ctx) => this.syncNamespace(req.name, ctx.client));
  }

  /** syncNamespace: creates the missing ServiceAccounts of an Active namespace. */
  async syncNamespace(name: string, client: ResourceClientFactory): Promise<void> {
    let ns: Namespace;
    try {
      ns = this.namespaces.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (ns.status?.phase !== "Active") return;
    for (const sa of this.names) {
      try {
        this.accounts.namespace(name).get(sa);
        continue;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      try {
        await client.resource(builtin.serviceAccounts, name).create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: sa, namespace: name } });
      } catch (err) {
        // Another writer was first, or the namespace is terminating or gone.
        if (isAlreadyExists(err) || isForbidden(err) || isNotFound(err)) continue;
        throw err;
      }
    }
  }
}
