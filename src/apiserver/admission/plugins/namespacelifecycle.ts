/**
 * NamespaceLifecycle (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle): no new
 * objects in a namespace that does not exist (404) or is being terminated (403 with the
 * NamespaceTerminating cause); the immortal namespaces (default, kube-system, kube-public)
 * cannot be deleted. Deletes of other objects, access reviews and cluster-scoped objects are
 * always allowed.
 *
 * A namespace is terminating when its phase is Terminating (what the namespace controller and
 * upstream's namespace registry set on DELETE) or, for today's lifecycle without spec
 * finalizers, when it carries a deletionTimestamp.
 *
 * Namespaces are read from a StorageCache of the namespaces once the plugin is started (upstream
 * reads them from an informer): it is kept in step with every committed write as it commits, so
 * a namespace created or marked for deletion an instant before a write is seen by that write, and
 * the check finishes synchronously. Before `start` (or after `stop`) the namespace is read from
 * storage.
 */
import { StatusError } from "../../../apimachinery/errors.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import { isTerminating, namespacesGR, protectedNamespaces } from "../../core/namespaces.js";
import { objectKey, resourcePrefix } from "../../rest/keys.js";
import { StorageCache } from "../../storage/cache.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { admissionForbidden } from "../attributes.js";
import type { AdmissionAttributes, AdmissionOperation } from "../interfaces.js";

const accessReviews = new Set(["localsubjectaccessreviews", "subjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews"]);

/** Throws when `a` may not write into its namespace, whose stored object is `ns`. */
function checkNamespace(a: AdmissionAttributes, ns: KubeObject | undefined): void {
  if (!ns) throw StatusError.notFound(namespacesGR, a.namespace);
  if (a.operation !== "CREATE" || !isTerminating(ns)) return;
  const err = admissionForbidden(a, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
  err.status.details = {
    ...err.status.details,
    causes: [{ reason: "NamespaceTerminating", message: `namespace ${a.namespace} is being terminated`, field: "metadata.namespace" }],
  };
  throw err;
}

export function namespaceLifecyclePlugin(ctx: AdmissionPluginContext, immortal: ReadonlySet<string> = protectedNamespaces): AnyAdmissionPlugin {
  const isNamespaceKind = (a: AdmissionAttributes) => a.kind.group === "" && a.kind.kind === "Namespace";
  const namespaces = new StorageCache(ctx.storage, [resourcePrefix("", "namespaces")]);
  let started = false;
  return {
    name: "NamespaceLifecycle",
    handles: (op: AdmissionOperation) => op === "CREATE" || op === "UPDATE" || op === "DELETE",
    async start() {
      await namespaces.start();
      started = true;
    },
    async stop() {
      started = false;
      await namespaces.stop();
    },
    admit(a) {
      if (a.operation === "DELETE" && isNamespaceKind(a) && immortal.has(a.name)) {
        throw StatusError.forbidden(namespacesGR, a.name, "this namespace may not be deleted");
      }
      // Cluster-scoped objects, and namespaces themselves, are always allowed.
      if (a.namespace === "" || isNamespaceKind(a)) return;
      if (a.operation === "DELETE") return;
      if (a.resource.group === "authorization.k8s.io" && accessReviews.has(a.resource.resource)) return;
      const key = objectKey("", "namespaces", undefined, a.namespace);
      if (started && namespaces.current()) return checkNamespace(a, namespaces.get(key));
      return ctx.storage.get(key).then((ns) => checkNamespace(a, ns?.object));
    },
  };
}

export const namespaceLifecycle: AdmissionPluginRegistration = { name: "NamespaceLifecycle", create: (ctx) => namespaceLifecyclePlugin(ctx) };
