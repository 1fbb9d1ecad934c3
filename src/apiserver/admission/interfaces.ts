/**
 * The admission contract of the embedded API server (k8s.io/apiserver/pkg/admission): what a
 * request looks like to an admission plugin, and the two plugin shapes.
 *
 * Order, as kube-apiserver runs it for a write:
 *   decode + defaults → every mutating plugin in chain order (built-in plugins,
 *   MutatingAdmissionPolicy, MutatingAdmissionWebhook, with reinvocation) → the resource's
 *   strategy (prepare, validate) → every validating plugin in chain order (built-in plugins,
 *   ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota last) → storage.
 *
 * A plugin denies by throwing a StatusError (upstream's admission errors: Forbidden with
 * `admission webhook "x" denied the request: ...`, Invalid for policy violations, ...).
 * Mutating plugins change `attributes.object` in place or replace it via `setObject`.
 */
import type { GroupResource, GroupVersionKind, GroupVersionResource } from "../../apimachinery/gvk.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { UserInfo } from "../auth/user.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** One request as admission sees it (upstream admission.Attributes). */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  /** The kind of `object` (for subresources: the subresource's kind, e.g. autoscaling/v1 Scale). */
  readonly kind: GroupVersionKind;
  /** The resource addressed (its group/version as requested). */
  readonly resource: GroupVersionResource;
  /** "" for the main resource; "status", "scale", "eviction", ... otherwise. */
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The new object (CREATE/UPDATE; for DELETE absent; CONNECT: the options object). */
  object: KubeObject | undefined;
  /** The stored object (UPDATE, DELETE). */
  readonly oldObject: KubeObject | undefined;
  /** CreateOptions / UpdateOptions / DeleteOptions as sent (PatchOptions for patches are UpdateOptions). */
  readonly options: KubeObject | undefined;
  readonly dryRun: boolean;
  readonly userInfo: UserInfo;
  /** Warnings to return as `Warning: 299 - "<text>"` headers. */
  readonly warnings: string[];
  /** Audit annotations added by plugins ("<plugin>/<key>" → value). */
  readonly auditAnnotations: Map<string, string>;
  /**
   * The reinvocation state of this request's mutating pass (upstream ReinvocationContext):
   * a plugin that supports reinvocation (MutatingAdmissionPolicy, MutatingAdmissionWebhook)
   * sets `shouldReinvoke` when it changed the object, and the chain then runs every mutating
   * plugin once more with `isReinvoke` true; plugins keep their own state between the passes
   * in `values` under their name. Set by the chain for its mutating pass only (absent outside it).
   */
  reinvocation?: ReinvocationContext;
}

export interface ReinvocationContext {
  isReinvoke: boolean;
  shouldReinvoke: boolean;
  readonly values: Map<string, unknown>;
}

/** What every plugin has: a name (as upstream names it) and which operations it handles. */
export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: AdmissionOperation): boolean;
  /**
   * Whether the plugin can act on requests for this resource and subresource at all. The answer
   * must be fixed per plugin (the chain asks once per operation, resource and subresource and
   * keeps it); absent, the plugin sees every resource. Built-in plugins that only look at pods,
   * nodes or claims say so here, so a ConfigMap write does not pass through them.
   */
  handlesResource?(resource: GroupResource, subresource: string): boolean;
}

/** A plugin that may change the object (upstream admission.MutationInterface). */
export interface MutatingAdmissionPlugin extends AdmissionPlugin {
  /** May finish synchronously (return nothing) when it has nothing to wait for. */
  admit(attributes: AdmissionAttributes, signal: AbortSignal): Promise<void> | void;
}

/** A plugin that may only accept or refuse (upstream admission.ValidationInterface). */
export interface ValidatingAdmissionPlugin extends AdmissionPlugin {
  /** May finish synchronously (return nothing) when it has nothing to wait for. */
  validate(attributes: AdmissionAttributes, signal: AbortSignal): Promise<void> | void;
}

/** The configured chain: mutating plugins in order, then validating plugins in order. */
export interface AdmissionChain {
  readonly mutating: readonly MutatingAdmissionPlugin[];
  readonly validating: readonly ValidatingAdmissionPlugin[];
}
