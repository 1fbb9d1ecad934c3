/**
 * The admission chain of the embedded API server (k8s.io/apiserver/pkg/admission chainAdmissionHandler
 * with its reinvoker): which plugins run, in which order, and how a request passes them.
 *
 * Plugins are registered by name (`AdmissionPluginRegistration`) and always run in upstream's
 * order (`admissionPluginOrder`, kube-apiserver's AllOrderedPlugins), whatever order they were
 * registered in — so a plugin written elsewhere (the webhook plugins, a user's own) is added by
 * appending its registration to the server config's `admissionPlugins`. A plugin object may
 * implement `admit` (mutating), `validate` (validating) or both; it appears in each list it
 * implements. Names unknown to the order run after the known built-ins and before the policy
 * and webhook plugins, in registration order (upstream: "new admission plugins should generally
 * be inserted above here").
 *
 * A request runs every mutating plugin that handles its operation, in order; if a plugin asked
 * for reinvocation (`attributes.reinvocation.shouldReinvoke`), the whole mutating list runs once
 * more with `isReinvoke` set (built-in plugins are idempotent; the policy and webhook plugins
 * decide themselves). Then, after the strategy's validation, every validating plugin. The first
 * error stops the request.
 */
import type { Clock } from "../../apimachinery/clock.js";
import type { Decision } from "../rbac/authorizer.js";
import type { Attributes as AuthorizationAttributes } from "../rbac/attributes.js";
import type { ResourceRegistry } from "../server/resources.js";
import type { Storage } from "../storage/interface.js";
import type {
  AdmissionAttributes,
  AdmissionChain,
  AdmissionOperation,
  AdmissionPlugin,
  MutatingAdmissionPlugin,
  ReinvocationContext,
  ValidatingAdmissionPlugin,
} from "./interfaces.js";

/** What a plugin may use: the server's storage, its resources, its clock, its authorizer. */
export interface AdmissionPluginContext {
  readonly storage: Storage;
  /** The served resources (looked up when needed: custom resources come and go). */
  readonly registry: () => ResourceRegistry;
  readonly clock: Clock;
  /** The server's authorizer (RBAC); absent when the server runs without authorization. */
  readonly authorize?: (attrs: AuthorizationAttributes) => Decision;
  readonly log?: (msg: string, err?: unknown) => void;
}

/** Optional start/stop of a plugin that follows stored objects (policies, webhook configurations). */
export interface AdmissionPluginLifecycle {
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

export type AnyAdmissionPlugin = AdmissionPlugin &
  Partial<Pick<MutatingAdmissionPlugin, "admit">> &
  Partial<Pick<ValidatingAdmissionPlugin, "validate">> &
  AdmissionPluginLifecycle;

export interface AdmissionPluginRegistration {
  /** Upstream's plugin name ("NamespaceLifecycle", "MutatingAdmissionWebhook", ...). */
  readonly name: string;
  /** Off unless enabled (`enableAdmissionPlugins`), as upstream's default-off plugins. */
  readonly defaultOff?: boolean;
  create(ctx: AdmissionPluginContext): AnyAdmissionPlugin;
}

/** kube-apiserver 1.36's AllOrderedPlugins: the order plugins run in. */
export const admissionPluginOrder: readonly string[] = [
  "AlwaysAdmit",
  "NamespaceAutoProvision",
  "NamespaceLifecycle",
  "NamespaceExists",
  "LimitPodHardAntiAffinityTopology",
  "LimitRanger",
  "ServiceAccount",
  "NodeRestriction",
  "TaintNodesByCondition",
  "AlwaysPullImages",
  "ImagePolicyWebhook",
  "PodSecurity",
  "PodNodeSelector",
  "Priority",
  "DefaultTolerationSeconds",
  "PodTolerationRestriction",
  "EventRateLimit",
  "ExtendedResourceToleration",
  "DefaultStorageClass",
  "StorageObjectInUseProtection",
  "PodGroupProtection",
  "OwnerReferencesPermissionEnforcement",
  "PersistentVolumeClaimResize",
  "RuntimeClass",
  "CertificateApproval",
  "CertificateSigning",
  "ClusterTrustBundleAttest",
  "CertificateSubjectRestriction",
  "DefaultIngressClass",
  "DenyServiceExternalIPs",
  "PodTopologyLabels",
  "PodGroupWorkloadExists",
  "NodeDeclaredFeatureValidator",
  "JobValidation",
  "PodResizeValidator",
  // Plugins not named above run here (before the policy and webhook plugins).
  "MutatingAdmissionPolicy",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
  "AlwaysDeny",
];

const firstLatePlugin = admissionPluginOrder.indexOf("MutatingAdmissionPolicy");

export interface AdmissionSettings {
  /** Every plugin that can run (the server's default: `defaultAdmissionPlugins()`). */
  plugins: readonly AdmissionPluginRegistration[];
  /** Default-off plugins to turn on (--enable-admission-plugins). */
  enable?: readonly string[];
  /** Plugins to turn off (--disable-admission-plugins); wins over `enable`. */
  disable?: readonly string[];
}

/** Sorts registrations into upstream's order; unknown names keep their relative order before the late plugins. */
export function orderRegistrations(regs: readonly AdmissionPluginRegistration[]): AdmissionPluginRegistration[] {
  const rank = (name: string): number => {
    const i = admissionPluginOrder.indexOf(name);
    return i < 0 ? firstLatePlugin - 0.5 : i;
  };
  const seen = new Set<string>();
  for (const r of regs) {
    if (seen.has(r.name)) throw new Error(`admission plugin ${r.name} is registered twice`);
    seen.add(r.name);
  }
  return regs.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r.name) - rank(b.r.name) || a.i - b.i).map((x) => x.r);
}

const neverAborted = new AbortController().signal;

function requestKey(a: AdmissionAttributes): string {
  return `${a.operation} ${a.resource.group}/${a.resource.resource}/${a.subresource}`;
}

function applies(p: AnyAdmissionPlugin, a: AdmissionAttributes): boolean {
  return p.handles(a.operation) && (p.handlesResource === undefined || p.handlesResource(a.resource, a.subresource));
}

export class Admission implements AdmissionChain {
  readonly mutating: readonly MutatingAdmissionPlugin[];
  readonly validating: readonly ValidatingAdmissionPlugin[];
  /** The enabled plugins' names in the order they run. */
  readonly names: readonly string[];
  private readonly plugins: readonly AnyAdmissionPlugin[];
  /**
   * The mutating / validating plugins that handle a request, computed once per operation,
   * resource and subresource (`handles` and `handlesResource` are fixed per plugin) and keyed
   * `<op> <group>/<resource>/<subresource>`. The resources a server addresses are finite, so
   * the maps stay small.
   */
  private readonly mutatingByRequest = new Map<string, readonly MutatingAdmissionPlugin[]>();
  private readonly validatingByRequest = new Map<string, readonly ValidatingAdmissionPlugin[]>();

  constructor(plugins: readonly AnyAdmissionPlugin[]) {
    this.plugins = plugins;
    this.names = plugins.map((p) => p.name);
    this.mutating = plugins.filter((p): p is AnyAdmissionPlugin & MutatingAdmissionPlugin => typeof p.admit === "function");
    this.validating = plugins.filter((p): p is AnyAdmissionPlugin & ValidatingAdmissionPlugin => typeof p.validate === "function");
  }

  private mutatingFor(a: AdmissionAttributes): readonly MutatingAdmissionPlugin[] {
    const key = requestKey(a);
    let list = this.mutatingByRequest.get(key);
    if (!list) this.mutatingByRequest.set(key, (list = this.mutating.filter((p) => applies(p, a))));
    return list;
  }

  private validatingFor(a: AdmissionAttributes): readonly ValidatingAdmissionPlugin[] {
    const key = requestKey(a);
    let list = this.validatingByRequest.get(key);
    if (!list) this.validatingByRequest.set(key, (list = this.validating.filter((p) => applies(p, a))));
    return list;
  }

  /** The enabled plugins of `settings`, created with `ctx`, in upstream's order. */
  static build(settings: AdmissionSettings, ctx: AdmissionPluginContext): Admission {
    const enable = new Set(settings.enable ?? []);
    const disable = new Set(settings.disable ?? []);
    const known = new Set(settings.plugins.map((p) => p.name));
    for (const n of [...enable, ...disable]) {
      if (!known.has(n)) throw new Error(`unknown admission plugin ${JSON.stringify(n)}`);
    }
    const enabled = orderRegistrations(settings.plugins).filter((r) => !disable.has(r.name) && (!r.defaultOff || enable.has(r.name)));
    return new Admission(enabled.map((r) => r.create(ctx)));
  }

  /**
   * Runs the mutating plugins (with one reinvocation pass when a plugin asks for it). The
   * reinvocation context lives on `attrs` for the pass and is taken off again afterwards.
   * Finishes synchronously (returns nothing, or throws the first plugin's error) when every
   * plugin does; otherwise returns the promise of the rest of the pass from the first plugin that
   * had to wait.
   */
  mutate(attrs: AdmissionAttributes, signal: AbortSignal = neverAborted): Promise<void> | void {
    const plugins = this.mutatingFor(attrs);
    if (plugins.length === 0) return;
    const reinvocation: ReinvocationContext = { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    const outer = attrs.reinvocation;
    attrs.reinvocation = reinvocation;
    let handedOver = false;
    try {
      for (let i = 0; i < plugins.length; i++) {
        const pending = plugins[i].admit(attrs, signal);
        if (pending) {
          handedOver = true;
          return this.mutateRest(attrs, signal, plugins, i + 1, pending, outer);
        }
      }
      if (reinvocation.shouldReinvoke) {
        handedOver = true;
        return this.mutateRest(attrs, signal, plugins, plugins.length, undefined, outer);
      }
    } finally {
      if (!handedOver) attrs.reinvocation = outer;
    }
  }

  /** The rest of `mutate` once a plugin returned a promise: `pending`, the plugins from `from` on, the reinvocation pass. */
  private async mutateRest(
    attrs: AdmissionAttributes,
    signal: AbortSignal,
    plugins: readonly MutatingAdmissionPlugin[],
    from: number,
    pending: Promise<void> | undefined,
    outer: ReinvocationContext | undefined,
  ): Promise<void> {
    const reinvocation = attrs.reinvocation!;
    try {
      if (pending) await pending;
      for (let i = from; i < plugins.length; i++) {
        const p = plugins[i].admit(attrs, signal);
        if (p) await p;
      }
      if (reinvocation.shouldReinvoke) {
        reinvocation.isReinvoke = true;
        for (const p of plugins) {
          const again = p.admit(attrs, signal);
          if (again) await again;
        }
      }
    } finally {
      attrs.reinvocation = outer;
    }
  }

  /** Runs the validating plugins; synchronously (as `mutate`) when every plugin finishes synchronously. */
  validate(attrs: AdmissionAttributes, signal: AbortSignal = neverAborted): Promise<void> | void {
    const plugins = this.validatingFor(attrs);
    for (let i = 0; i < plugins.length; i++) {
      const pending = plugins[i].validate(attrs, signal);
      if (pending) return this.validateRest(attrs, signal, plugins, i + 1, pending);
    }
  }

  private async validateRest(attrs: AdmissionAttributes, signal: AbortSignal, plugins: readonly ValidatingAdmissionPlugin[], from: number, pending: Promise<void>): Promise<void> {
    await pending;
    for (let i = from; i < plugins.length; i++) {
      const p = plugins[i].validate(attrs, signal);
      if (p) await p;
    }
  }

  /** Whether any plugin handles `operation` (lets the store skip building attributes). */
  handles(operation: AdmissionOperation): boolean {
    return this.plugins.some((p) => p.handles(operation));
  }

  async start(): Promise<void> {
    for (const p of this.plugins) await p.start?.();
  }

  async stop(): Promise<void> {
    for (const p of [...this.plugins].reverse()) await p.stop?.();
  }
}
