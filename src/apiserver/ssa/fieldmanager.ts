/**
 * FieldManager: server-side apply and managedFields bookkeeping (upstream's fieldmanager with
 * structured-merge-diff's Updater).
 *
 * - Every non-apply write (create, update, patch) is recorded as an `Update` by its field
 *   manager: the fields it added or changed become its own and are taken from every other
 *   manager; fields it removed leave every manager.
 * - An apply (`Apply` operation) merges the configuration into the live object with the
 *   schema's list and map semantics, makes the configuration's field set the applier's, removes
 *   the fields the applier owned before, no longer applies and nobody else owns, and fails with
 *   409 when it would change a field another manager owns (unless forced, which moves the
 *   ownership to the applier). Equal values are shared, not conflicts.
 * - Field sets never include apiVersion, kind, or the metadata the server owns (name,
 *   namespace, uid, resourceVersion, generation, creationTimestamp, selfLink, managedFields).
 *   Applies to the main resource ignore `.status`; applies to /status ignore `.spec`.
 * - The manager named "kubectl" gets upstream's migration help for client-side-applied objects:
 *   conflicts on fields unchanged since the last client-side apply (the
 *   last-applied-configuration annotation) are forced, and the annotation is kept in sync.
 */
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { formatTime } from "../rest/metadata.js";
import type { FieldTracker, WriteContext } from "../rest/context.js";
import { canonicalJSON, FieldSet, pathString } from "./fieldpath.js";
import {
  decodeManagedFields,
  describeManager,
  encodeManagedFields,
  isReset,
  ManagedFieldsError,
  managerId,
  type ManagerEntry,
  type Managers,
} from "./managedfields.js";
import { builtinTypeFor, deducedType, type TypeNode } from "./schema.js";
import { compare, merge, removeItems, toFieldSet } from "./typed.js";

export const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration";

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface FieldManagerOptions {
  clock: Clock;
  /** The type of a kind; built-in kinds by default, CRDs can plug theirs in. Unknown → deduced. */
  typeFor?: (gvk: GroupVersionKind) => TypeNode | undefined;
}

export interface ApplyOptions {
  manager: string;
  force: boolean;
  subresource?: string;
}

type JSONObject = Record<string, unknown>;

const serverOwnedMetadata = ["name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "selfLink", "managedFields"];

/** The object as field sets see it: without type meta and server-owned metadata. */
export function fieldView(obj: KubeObject | undefined): JSONObject {
  if (!obj) return {};
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj as JSONObject;
  if (metadata && typeof metadata === "object") {
    const m: JSONObject = { ...(metadata as JSONObject) };
    for (const f of serverOwnedMetadata) delete m[f];
    if (Object.keys(m).length > 0) rest.metadata = m;
  }
  return rest;
}

function gvkOf(obj: KubeObject): GroupVersionKind {
  const av = obj.apiVersion ?? "";
  const slash = av.indexOf("/");
  return { group: slash < 0 ? "" : av.slice(0, slash), version: slash < 0 ? av : av.slice(slash + 1), kind: obj.kind ?? "" };
}

function decodeOrEmpty(entries: readonly ManagedFieldsEntry[] | undefined): Managers {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

/** Keeps only the members nobody else still owns something at or below. */
function unownedMembers(toRemove: FieldSet, owned: FieldSet): FieldSet {
  const walk = (r: FieldSet, o: FieldSet | undefined, out: FieldSet) => {
    for (const [k, rc] of r.children) {
      const oc = o?.children.get(k);
      const c = new FieldSet();
      c.member = rc.member && !(oc && (oc.member || oc.children.size > 0));
      walk(rc, oc, c);
      if (c.member || c.children.size > 0) out.children.set(k, c);
    }
  };
  const out = new FieldSet();
  walk(toRemove, owned, out);
  return out;
}

export function applyConflictError(conflicts: ReadonlyMap<string, FieldSet>): StatusError {
  const list: Array<{ manager: string; path: string }> = [];
  for (const id of [...conflicts.keys()].sort()) {
    for (const p of conflicts.get(id)!.paths()) list.push({ manager: id, path: pathString(p) });
  }
  let message: string;
  if (list.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${describeManager(list[0].manager)}: ${list[0].path}`;
  } else {
    const lines: string[] = [];
    let last = "";
    for (const c of list) {
      if (c.manager !== last) lines.push(`conflicts with ${describeManager(c.manager)}:`);
      last = c.manager;
      lines.push(`- ${c.path}`);
    }
    message = `Apply failed with ${list.length} conflicts: ${lines.join("\n")}`;
  }
  return new StatusError({
    message,
    reason: "Conflict",
    code: 409,
    details: { causes: list.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${describeManager(c.manager)}`, field: c.path })) },
  });
}

export class FieldManager implements FieldTracker {
  /** Types registered at run time (custom resources), by "group/version/kind". */
  private readonly types = new Map<string, TypeNode>();

  constructor(private readonly opts: FieldManagerOptions) {}

  /**
   * Registers (or, with undefined, forgets) the type of a kind, e.g. a custom resource's
   * structural schema: `setType(gvk, new SchemaTypes({}).convert(openAPIV3Schema))`.
   */
  setType(gvk: GroupVersionKind, type: TypeNode | undefined): void {
    const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
    if (type) this.types.set(key, type);
    else this.types.delete(key);
  }

  typeOf(obj: KubeObject): TypeNode {
    const gvk = gvkOf(obj);
    return this.types.get(`${gvk.group}/${gvk.version}/${gvk.kind}`) ?? this.opts.typeFor?.(gvk) ?? builtinTypeFor(gvk) ?? deducedType;
  }

  private now(): string {
    return formatTime(this.opts.clock.now());
  }

  /** FieldTracker: records a non-apply write as an Update by the request's field manager. */
  track(obj: KubeObject, live: KubeObject | undefined, ctx: WriteContext, subresource?: string): void {
    this.update(live, obj, ctx.fieldManager, subresource);
  }

  /** Sets obj.metadata.managedFields for a non-apply write from `live` (undefined: a create) to `obj`. */
  update(live: KubeObject | undefined, obj: KubeObject, manager: string, subresource?: string): void {
    const meta = (obj.metadata ??= {});
    const requested = meta.managedFields;
    let managers: Managers;
    if (isReset(requested)) managers = new Map();
    else {
      let fromRequest: Managers | undefined;
      try {
        fromRequest = requested && requested.length > 0 ? decodeManagedFields(requested) : undefined;
      } catch {
        fromRequest = undefined;
      }
      // A client that drops or garbles managedFields does not erase the tracking.
      managers = fromRequest && fromRequest.size > 0 ? fromRequest : decodeOrEmpty(live?.metadata?.managedFields);
    }
    const t = this.typeOf(obj);
    const cmp = compare(fieldView(live), fieldView(obj), t);
    const changed = cmp.modified.union(cmp.added);
    const id = managerId({ manager, operation: "Update", apiVersion: obj.apiVersion ?? "", subresource });
    for (const [other, e] of managers) {
      if (other !== id) managers.set(other, { ...e, fields: e.fields.difference(changed).difference(cmp.removed) });
    }
    const prev = managers.get(id);
    const fields = (prev?.fields ?? new FieldSet()).difference(cmp.removed).union(changed);
    const entry: ManagerEntry = { manager, operation: "Update", apiVersion: obj.apiVersion ?? "", subresource, time: prev?.time, fields };
    if (!prev || !prev.fields.equals(fields)) entry.time = this.now();
    managers.set(id, entry);
    this.store(obj, managers);
  }

  private store(obj: KubeObject, managers: Managers): void {
    const meta = (obj.metadata ??= {});
    const encoded = encodeManagedFields(managers);
    if (encoded.length > 0) meta.managedFields = encoded;
    else delete meta.managedFields;
  }

  /**
   * Server-side apply of `config` over `live` (undefined: the object does not exist yet).
   * Returns the object to write, with its managedFields. Throws 409 on conflicts, 400 on a
   * configuration that carries managedFields.
   */
  apply(live: KubeObject | undefined, config: KubeObject, opts: ApplyOptions): KubeObject {
    if (config.metadata?.managedFields !== undefined && config.metadata.managedFields !== null) {
      throw StatusError.badRequest("metadata.managedFields must be nil");
    }
    const t = this.typeOf(live ?? config);
    const managers = decodeOrEmpty(live?.metadata?.managedFields);
    const configView = fieldView(config);
    const applied = toFieldSet(configView, t).without(opts.subresource === "status" ? "f:spec" : "f:status");
    const id = managerId({ manager: opts.manager, operation: "Apply", apiVersion: config.apiVersion ?? "", subresource: opts.subresource });
    const previous = managers.get(id)?.fields;

    let merged = (live ? merge(deepCopy(live), config, t) : deepCopy(config)) as KubeObject;
    managers.set(id, {
      manager: opts.manager,
      operation: "Apply",
      apiVersion: config.apiVersion ?? "",
      subresource: opts.subresource,
      time: this.now(),
      fields: applied,
    });

    // Fields this applier set before, no longer applies, and nobody else owns are removed.
    if (previous && !previous.empty()) {
      let owned = new FieldSet();
      for (const e of managers.values()) owned = owned.union(e.fields);
      const toRemove = unownedMembers(previous.difference(owned), owned);
      merged = removeItems(merged, toRemove, t) as KubeObject;
    }

    const cmp = compare(fieldView(live), fieldView(merged), t);
    const changed = cmp.modified.union(cmp.added);
    let conflicts = new Map<string, FieldSet>();
    for (const [other, e] of managers) {
      if (other === id) continue;
      const c = e.fields.intersection(changed);
      if (!c.empty()) conflicts.set(other, c);
    }
    if (conflicts.size > 0 && !opts.force) {
      const allowed = opts.manager === "kubectl" ? this.allowedByLastApplied(live, t) : undefined;
      if (!allowed) throw applyConflictError(conflicts);
      const remaining = new Map<string, FieldSet>();
      for (const [other, c] of conflicts) {
        const rest = c.difference(allowed);
        if (!rest.empty()) remaining.set(other, rest);
      }
      if (remaining.size > 0) throw applyConflictError(remaining);
    } else if (!opts.force) {
      conflicts = new Map();
    }
    for (const [other, e] of managers) {
      if (other === id) continue;
      managers.set(other, { ...e, fields: e.fields.difference(conflicts.get(other) ?? new FieldSet()).difference(cmp.removed) });
    }

    const annotations = merged.metadata?.annotations;
    if (opts.manager === "kubectl" && annotations?.[lastAppliedAnnotation] !== undefined && live?.metadata?.annotations?.[lastAppliedAnnotation] !== undefined) {
      merged.metadata!.annotations = { ...annotations, [lastAppliedAnnotation]: buildLastApplied(config) };
    }
    this.store(merged, managers);
    return merged;
  }

  /** Fields of the last client-side-applied configuration whose live value is still the applied one. */
  private allowedByLastApplied(live: KubeObject | undefined, t: TypeNode): FieldSet | undefined {
    const text = live?.metadata?.annotations?.[lastAppliedAnnotation];
    if (!text) return undefined;
    let lastApplied: KubeObject;
    try {
      lastApplied = JSON.parse(text) as KubeObject;
    } catch {
      return undefined;
    }
    const view = fieldView(lastApplied);
    return toFieldSet(view, t).difference(compare(view, fieldView(live), t).modified);
  }
}

/** The last-applied-configuration annotation for a configuration (without the annotation itself). */
export function buildLastApplied(config: KubeObject): string {
  const copy = deepCopy(config);
  const ann = copy.metadata?.annotations;
  if (ann) {
    delete ann[lastAppliedAnnotation];
    if (Object.keys(ann).length === 0) delete copy.metadata!.annotations;
  }
  return `${canonicalJSON(copy)}\n`;
}

export { ManagedFieldsError };
