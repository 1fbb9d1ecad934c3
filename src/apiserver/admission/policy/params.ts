/**
 * What admission policies share: reading their stored objects, the namespace of a request,
 * and a binding's parameters (paramKind + paramRef: name, namespace, selector,
 * parameterNotFoundAction), as k8s.io/apiserver/pkg/admission/plugin/policy/generic's
 * dispatchers collect them.
 */
import type { LabelSelector } from "../../../apimachinery/api/meta/v1.js";
import { labelSelectorAsSelector } from "../../../apimachinery/labels.js";
import { parseGroupVersion } from "../../../apimachinery/gvk.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import { objectKey, resourcePrefix } from "../../rest/keys.js";
import { StorageCache } from "../../storage/cache.js";
import type { AdmissionPluginContext } from "../chain.js";
import type { AdmissionAttributes } from "../interfaces.js";

export const admissionGroup = "admissionregistration.k8s.io";

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: string;
}

/** A configuration problem of a policy or binding, answered by the failure policy. */
export class PolicyConfigError extends Error {}

export async function storedObjects(ctx: AdmissionPluginContext, resource: string): Promise<KubeObject[]> {
  return (await ctx.storage.list(resourcePrefix(admissionGroup, resource))).items.map((i) => i.object);
}

/**
 * The stored policies and bindings a policy plugin reads on every request: from a StorageCache
 * of their resources once `start` has run (kept in step with every committed write as it
 * commits, so a binding stored an instant before a request applies to it, and a request with no
 * bindings is answered without a storage read), from storage before that and after `stop`.
 */
export class PolicyObjects {
  private readonly cache: StorageCache;
  private started = false;

  constructor(
    private readonly ctx: AdmissionPluginContext,
    resources: readonly string[],
  ) {
    this.cache = new StorageCache(ctx.storage, resources.map((r) => resourcePrefix(admissionGroup, r)));
  }

  async start(): Promise<void> {
    await this.cache.start();
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.cache.stop();
  }

  /** The stored objects of `resource` (one given to the constructor) in key order, when known without a read. */
  cached(resource: string): KubeObject[] | undefined {
    if (!this.started || !this.cache.current()) return undefined;
    return this.cache.list(resourcePrefix(admissionGroup, resource));
  }

  /** The stored objects of `resource` in key order. */
  async list(resource: string): Promise<KubeObject[]> {
    return this.cached(resource) ?? (await storedObjects(this.ctx, resource));
  }
}

export async function namespaceObject(ctx: AdmissionPluginContext, namespace: string): Promise<KubeObject | undefined> {
  if (namespace === "") return undefined;
  return (await ctx.storage.get(objectKey("", "namespaces", undefined, namespace)))?.object;
}

/**
 * The parameter objects of a binding: [undefined] when the policy has no paramKind or the
 * binding no paramRef (evaluate once with null params), [] when none is found and the binding
 * allows that (skip it); throws PolicyConfigError when the binding is misconfigured or denies
 * on missing params.
 */
export async function collectParams(
  ctx: AdmissionPluginContext,
  paramKind: { apiVersion?: string; kind?: string } | undefined,
  paramRef: ParamRef | undefined,
  a: AdmissionAttributes,
): Promise<(KubeObject | undefined)[]> {
  // Without paramKind, or a binding that does not use it, the policy is evaluated once with null params.
  if (!paramKind || !paramRef) return [undefined];
  const gv = parseGroupVersion(paramKind.apiVersion ?? "");
  const store = ctx
    .registry()
    .all()
    .find((s) => s.strategy.names.group === gv.group && s.strategy.names.version === gv.version && s.strategy.names.kind === paramKind.kind);
  if (!store) throw new PolicyConfigError(`failed to find resource referenced by paramKind: '${paramKind.apiVersion}, Kind=${paramKind.kind}'`);
  let namespace: string | undefined;
  if (!store.namespaced && paramRef.namespace) throw new PolicyConfigError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`");
  if (store.namespaced) {
    namespace = paramRef.namespace || a.namespace;
    if (!namespace) throw new PolicyConfigError("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources");
  }
  let found: KubeObject[];
  if (paramRef.name) {
    const cur = await ctx.storage.get(store.key(namespace, paramRef.name));
    found = cur ? [cur.object] : [];
  } else {
    const selector = labelSelectorAsSelector(paramRef.selector ?? {});
    found = (await ctx.storage.list(store.prefix(namespace))).items.map((i) => i.object).filter((o) => selector.matches(o.metadata?.labels ?? {}));
  }
  if (found.length === 0 && (paramRef.parameterNotFoundAction ?? "Deny") === "Deny") {
    throw new PolicyConfigError("no params found for policy binding with `Deny` parameterNotFoundAction");
  }
  return found;
}
