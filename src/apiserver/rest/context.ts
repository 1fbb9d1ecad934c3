/** What a REST write carries besides the object: options, warnings, and the resource hooks. */
import type { KubeObject } from "../../apimachinery/types.js";
import type { DeleteOptions, FieldValidationMode } from "./options.js";
import type { UserInfo } from "../auth/user.js";

export interface WriteContext {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidationMode;
  /** Warning texts to return as `Warning: 299 - "<text>"` headers. */
  warnings: string[];
  /** The requesting user (absent: the server's own write, or a server without authentication). */
  user?: UserInfo;
  /** Set by server-side apply: the written object's managedFields come from the apply itself. */
  applied?: boolean;
  /** The subresource written ("status", "approval"), as the store passes it to hooks; absent for the main resource. */
  subresource?: string;
  /** Cancels work done for this write (admission webhooks); absent: never cancelled. */
  signal?: AbortSignal;
}

export function defaultWriteContext(partial: Partial<WriteContext> = {}): WriteContext {
  return { dryRun: false, fieldManager: "", fieldValidation: "Warn", warnings: [], ...partial };
}

/** Undoes a resource allocation (cluster IP, node port) when the write fails or is a dry run. */
export type Undo = () => void;

/**
 * Stateful per-resource behaviour the generic store calls around a write (the parts of
 * kube-apiserver's per-resource REST storage and admission that need state: IP allocation,
 * namespace lifecycle, pod graceful deletion). All optional.
 */
export interface ResourceHooks {
  /** After defaulting, preparation and validation; may allocate. Throws StatusError to refuse. */
  beforeCreate?(obj: KubeObject, ctx: WriteContext): Promise<Undo | void> | Undo | void;
  beforeUpdate?(obj: KubeObject, old: KubeObject, ctx: WriteContext): Promise<Undo | void> | Undo | void;
  /** After an object is gone from storage (not called on dry runs). */
  afterDelete?(obj: KubeObject): void;
  /**
   * Graceful deletion (pods): the grace period to apply, or 0 to delete at once. Absent: the
   * resource does not support graceful deletion.
   */
  gracePeriodSeconds?(obj: KubeObject, options: DeleteOptions): number;
  /** Refuse a delete before anything happens (protected namespaces). */
  validateDelete?(obj: KubeObject): void;
  /**
   * Namespaces: called on delete when the object has spec-level finalizers; returns the object
   * to store instead (e.g. phase Terminating), or undefined to proceed normally.
   */
  prepareDelete?(obj: KubeObject, now: string): KubeObject | undefined;
  /** Whether an object with deletionTimestamp and no metadata finalizers may be removed now. */
  canRemove?(obj: KubeObject): boolean;
}

/**
 * Field ownership (metadata.managedFields) for server-side apply; implemented by
 * ssa/fieldmanager.ts. The store calls `track` on every non-apply create and update, after
 * defaulting, preparation and validation, with the object about to be written.
 */
export interface FieldTracker {
  track(obj: KubeObject, live: KubeObject | undefined, ctx: WriteContext, subresource?: string): void;
  /**
   * Optional: `tracked` (an object `track` saw) was written to storage as `stored`. Lets the
   * tracker carry what it computed for the write over to the stored version (the next write's
   * live object) instead of recomputing it from the stored managedFields.
   */
  written?(tracked: KubeObject, stored: KubeObject): void;
  /** The object to write for `config` applied over `live` (undefined: absent); throws 409 on conflicts. */
  apply(live: KubeObject | undefined, config: KubeObject, opts: { manager: string; force: boolean; subresource?: string }): KubeObject;
}
