/**
 * The root CA publisher (upstream pkg/controller/certificates/rootcacertpublisher publisher.go):
 * every namespace has the ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA bundle that
 * verifies the API server (what the ServiceAccount admission's projected kube-api-access volume
 * mounts), with upstream's `kubernetes.io/description` annotation. A deleted ConfigMap is created
 * again, edited data or a removed description put back; a Terminating namespace is left alone.
 *
 * Requests: a namespace name (ObjectName with namespace ""), from namespace adds and updates and
 * from updates and deletions of a `kube-root-ca.crt`.
 */
import { readFileSync } from "node:fs";
import type { ConfigMap, Namespace } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isAlreadyExists, isForbidden, isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { RestConfig } from "../../client/config.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";

export const ROOT_CA_PUBLISHER_NAME = "root-ca-certificate-publisher";
export const ROOT_CA_CONFIGMAP_NAME = "kube-root-ca.crt";
export const ROOT_CA_KEY = "ca.crt";
export const DESCRIPTION_ANNOTATION = "kubernetes.io/description";
export const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";
export const DEFAULT_ROOT_CA_PUBLISHER_WORKERS = 1;

export interface RootCACertPublisherOptions {
  /** The PEM bundle to publish. */
  rootCA: string;
  workers?: number;
}

/** The CA bundle of a client configuration (certificate-authority-data, else the file), or undefined. */
export function rootCAFromConfig(config: RestConfig): string | undefined {
  const tls = config.tls;
  if (tls?.caData !== undefined) return typeof tls.caData === "string" ? tls.caData : tls.caData.toString("utf8");
  if (tls?.caFile) return readFileSync(tls.caFile, "utf8");
  return undefined;
}

export class RootCACertPublisher {
  readonly controller: Controller;
  private readonly namespaces: Lister<Namespace>;
  private readonly configMaps: Lister<ConfigMap>;
  private readonly rootCA: string;

  constructor(mgr: Manager, opts: RootCACertPublisherOptions) {
    this.rootCA = opts.rootCA;
    this.namespaces = mgr.informers.forResource(builtin.namespaces).lister();
    this.configMaps = mgr.informers.forResource(builtin.configMaps).lister();
    const nsKey = (name: string | undefined) => new ObjectName("", name ?? "");
    const ours = (cm: ConfigMap) => cm.metadata?.name === ROOT_CA_CONFIGMAP_NAME;
    this.controller = mgr
      .controller(ROOT_CA_PUBLISHER_NAME)
      .watches(builtin.namespaces, {
        create: (e, q) => q.add(nsKey(e.object.metadata?.name)),
        update: (e, q) => q.add(nsKey(e.objectNew.metadata?.name)),
      })
      .watches(builtin.configMaps, {
        update: (e, q) => {
          if (ours(e.objectNew)) q.add(nsKey(e.objectNew.metadata?.namespace));
        },
        delete: (e, q) => {
          if (ours(e.object)) q.add(nsKey(e.object.metadata?.namespace));
        },
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_ROOT_CA_PUBLISHER_WORKERS })
      .reconcile((req, ctx) => this.syncNamespace(req.name, ctx.client));
  }

  /** syncNamespace: create the ConfigMap, or put its data and annotation back. */
  async syncNamespace(name: string, client: ResourceClientFactory): Promise<void> {
    let ns: Namespace;
    try {
      ns = this.namespaces.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (ns.status?.phase === "Terminating" || ns.metadata?.deletionTimestamp) return;
    const cms = client.resource(builtin.configMaps, name);
    let cm: ConfigMap | undefined;
    try {
      cm = this.configMaps.namespace(name).get(ROOT_CA_CONFIGMAP_NAME);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const data = { [ROOT_CA_KEY]: this.rootCA };
    if (!cm) {
      try {
        await cms.create({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: ROOT_CA_CONFIGMAP_NAME, namespace: name, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
          data,
        });
      } catch (err) {
        // Created meanwhile (its event brings us back if it differs), or the namespace is going.
        if (isAlreadyExists(err) || isForbidden(err) || isNotFound(err)) return;
        throw err;
      }
      return;
    }
    // The data and the one annotation describing the ConfigMap's use (any description will do).
    const sameData = Object.keys(cm.data ?? {}).length === 1 && cm.data?.[ROOT_CA_KEY] === this.rootCA;
    if (sameData && cm.metadata?.annotations?.[DESCRIPTION_ANNOTATION]) return;
    const next = deepCopy(cm);
    next.data = data;
    next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } };
    try {
      await cms.update(next);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
