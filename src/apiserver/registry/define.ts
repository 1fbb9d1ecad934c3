/**
 * The shared skeleton of every built-in strategy, mirroring what upstream's generic registry
 * (rest.BeforeCreate / rest.BeforeUpdate) and each resource's strategy do around the
 * kind-specific parts:
 *
 * - create: reset `.status` for kinds with a status subresource (to the kind's empty status),
 *   set `metadata.generation = 1` for kinds that track generation, then the kind's hook;
 * - update of the main resource: `metadata.generation` starts from the stored value (clients
 *   cannot set it), `.status` is kept from the stored object, the kind's hook runs, then the
 *   generation is bumped when the spec (or what the kind counts, see `generationInputs`) changed;
 * - status update: `.spec` is kept from the stored object, generation stays, the kind's hook
 *   runs (e.g. Deployments also keep labels, Pods keep owner references);
 * - validation: ObjectMeta (create) or ObjectMetaUpdate (updates) first, then the kind's rules.
 */
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ValidateNameFunc } from "../../apimachinery/validation.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "./meta.js";
import type { ResourceNames, ResourceStrategy, Subresources } from "./strategy.js";

/** Verbs of a namespaced or cluster-scoped collection in upstream discovery. */
export const standardVerbs: readonly string[] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

export interface StrategyDefinition {
  names: ResourceNames;
  verbs?: readonly string[];
  /** `updates`: subresources with their own update strategy (certificatesigningrequests/approval). */
  subresources?: Subresources;
  /** Name rule for metadata.name / generateName. */
  nameFn: ValidateNameFunc;
  /** Kinds that set generation 1 on create and bump it on spec changes. */
  tracksGeneration?: boolean;
  /** What a generation bump compares (default: `.spec`). */
  generationInputs?(obj: KubeObject): unknown;
  /** Keep a client-supplied status on create (Nodes: the kubelet registers with status). */
  keepStatusOnCreate?: boolean;
  /** The status a new object starts with when the kind has a status subresource (default {}). */
  emptyStatus?(obj: KubeObject): unknown;
  defaults?(obj: KubeObject): void;
  prepareForCreate?(obj: KubeObject): void;
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Skip the generic ObjectMeta validation (core/v1 Events validate their own way). */
  skipObjectMetaValidation?: boolean;
  /** Kind rules applied on create and on every main-resource update. */
  validateSpec?(obj: KubeObject): FieldError[];
  /** Extra rules on create only (after validateSpec). */
  validateCreate?(obj: KubeObject): FieldError[];
  /**
   * Extra rules on main-resource updates (immutability and transitions). They run after
   * validateSpec unless `updateChecksFirst` (upstream's order differs per kind).
   */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  updateChecksFirst?: boolean;
  /** Rules for status updates (beyond ObjectMetaUpdate). */
  validateStatus?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Kind-specific selectable fields (metadata.name and metadata.namespace are added). */
  fields?(obj: KubeObject): Record<string, string>;
  allowCreateOnUpdate?: boolean;
  allowUnconditionalUpdate?: boolean;
  /** See ResourceStrategy.orphanDependentsByDefault. */
  orphanDependentsByDefault?: { warning: string };
}

/**
 * The names of a resource whose plural is its lower-cased kind + "s" (or `resource`), singular
 * the lower-cased kind and list kind `<Kind>List`, with no short names or categories unless given.
 */
export function resourceNames(
  group: string,
  version: string,
  kind: string,
  opts: { resource?: string; namespaced: boolean; shortNames?: string[]; categories?: string[] },
): ResourceNames {
  return {
    group,
    version,
    kind,
    resource: opts.resource ?? `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    listKind: `${kind}List`,
    shortNames: opts.shortNames ?? [],
    categories: opts.categories ?? [],
    namespaced: opts.namespaced,
  };
}

/** ObjectMeta with its read-only system fields (generation, uid, …) writable, for the registry. */
export type MutableObjectMeta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/** The metadata of an object, created when absent. */
export function metaOf(obj: KubeObject): MutableObjectMeta {
  obj.metadata ??= {};
  return obj.metadata as MutableObjectMeta;
}

/** `{ metadata.name, metadata.namespace }` (namespace only for namespaced kinds), as ObjectMetaFieldsSet. */
export function objectMetaFields(obj: KubeObject, namespaced: boolean): Record<string, string> {
  const f: Record<string, string> = { "metadata.name": obj.metadata?.name ?? "" };
  if (namespaced) f["metadata.namespace"] = obj.metadata?.namespace ?? "";
  return f;
}

/**
 * The error for an object whose shape a kind's hooks cannot read (a string where an object
 * belongs, a number where a list does). Bodies are decoded against the kind's schema before they
 * get here, so this only happens for shapes the decoder let through: it is a 400, as upstream's
 * decoding failure ("X in version "v" cannot be handled as a X: ..."), never a 500.
 */
export function malformedObjectError(names: ResourceNames, err: unknown): StatusError {
  const detail = err instanceof Error ? err.message : String(err);
  return StatusError.badRequest(`${names.kind} in version "${names.version}" cannot be handled as a ${names.kind}: ${detail}`);
}

/** `fn`, with any failure that is not a StatusError reported as a malformed object. */
function guarded<A extends unknown[], R>(names: ResourceNames, fn: (...args: A) => R): (...args: A) => R {
  return (...args: A): R => {
    try {
      return fn(...args);
    } catch (err) {
      if (err instanceof StatusError) throw err;
      throw malformedObjectError(names, err);
    }
  };
}

export function defineStrategy(def: StrategyDefinition): ResourceStrategy {
  const names = def.names;
  const g = <A extends unknown[], R>(fn: (...args: A) => R) => guarded(names, fn);
  const status = def.subresources?.status === true;
  const generationInputs = def.generationInputs ?? ((o: KubeObject) => o.spec);
  const namespaced = def.names.namespaced;
  return {
    names: def.names,
    verbs: [...(def.verbs ?? standardVerbs)],
    subresources: { ...(def.subresources ?? {}) },
    allowCreateOnUpdate: def.allowCreateOnUpdate ?? false,
    allowUnconditionalUpdate: def.allowUnconditionalUpdate ?? true,
    ...(def.orphanDependentsByDefault ? { orphanDependentsByDefault: def.orphanDependentsByDefault } : {}),

    defaults: g((obj: KubeObject) => {
      def.defaults?.(obj);
    }),

    prepareForCreate: g((obj: KubeObject) => {
      if (status && !def.keepStatusOnCreate) obj.status = def.emptyStatus ? def.emptyStatus(obj) : {};
      if (def.tracksGeneration) metaOf(obj).generation = 1;
      def.prepareForCreate?.(obj);
    }),

    prepareForUpdate: g((obj: KubeObject, old: KubeObject) => {
      const meta = metaOf(obj);
      if (old.metadata?.generation !== undefined) meta.generation = old.metadata.generation;
      else delete meta.generation;
      if (status) {
        if (old.status === undefined) delete obj.status;
        else obj.status = structuredClone(old.status);
      }
      def.prepareForUpdate?.(obj, old);
      if (def.tracksGeneration && !semanticEqual(generationInputs(obj), generationInputs(old))) {
        meta.generation = (old.metadata?.generation ?? 0) + 1;
      }
    }),

    prepareForStatusUpdate: g((obj: KubeObject, old: KubeObject) => {
      const meta = metaOf(obj);
      if (old.metadata?.generation !== undefined) meta.generation = old.metadata.generation;
      else delete meta.generation;
      if (old.spec === undefined) delete obj.spec;
      else obj.spec = structuredClone(old.spec);
      def.prepareForStatusUpdate?.(obj, old);
    }),

    validate: g((obj: KubeObject) => {
      const errs = def.skipObjectMetaValidation ? [] : validateObjectMeta(obj.metadata, namespaced, def.nameFn);
      if (def.validateSpec) errs.push(...def.validateSpec(obj));
      if (def.validateCreate) errs.push(...def.validateCreate(obj));
      return errs;
    }),

    validateUpdate: g((obj: KubeObject, old: KubeObject) => {
      const errs = def.skipObjectMetaValidation ? [] : validateObjectMetaUpdate(obj.metadata, old.metadata);
      if (def.updateChecksFirst && def.validateUpdate) errs.push(...def.validateUpdate(obj, old));
      if (def.validateSpec) errs.push(...def.validateSpec(obj));
      if (!def.updateChecksFirst && def.validateUpdate) errs.push(...def.validateUpdate(obj, old));
      return errs;
    }),

    validateStatusUpdate: g((obj: KubeObject, old: KubeObject) => {
      const errs = validateObjectMetaUpdate(obj.metadata, old.metadata);
      if (def.validateStatus) errs.push(...def.validateStatus(obj, old));
      return errs;
    }),

    fieldSet(obj) {
      const meta = objectMetaFields(obj, namespaced);
      try {
        return { ...meta, ...(def.fields?.(obj) ?? {}) };
      } catch {
        // A shape the kind's fields cannot read: it still has its metadata fields.
        return meta;
      }
    },
  };
}
