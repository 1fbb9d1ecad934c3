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
import { checkJSONDepth } from "../server/decodelimits.js";
import type { ManagedFieldsEntry } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { deepCopy, semanticEqual } from "../../apimachinery/deepcopy.js";
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
  type Managers,
} from "./managedfields.js";
import { builtinTypeFor, deducedType, type TypeNode } from "./schema.js";
import { addedFieldsV1, compare, merge, removeItems, toFieldSet } from "./typed.js";

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

const serverOwnedMetadata = new Set(["name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "selfLink", "managedFields"]);

/**
 * The object as field sets see it: without type meta and server-owned metadata. Built by
 * copying the fields kept (in their order, metadata last) rather than deleting the others,
 * which would turn the copies into slow dictionary objects.
 */
export function fieldView(obj: KubeObject | undefined): JSONObject {
  if (!obj) return {};
  // An own "__proto__" key (parsed JSON can have one) must stay a plain property.
  const put = (o: JSONObject, k: string, v: unknown) => {
    if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    else o[k] = v;
  };
  const source = obj as JSONObject;
  const rest: JSONObject = {};
  for (const k of Object.keys(source)) {
    if (k !== "metadata" && k !== "apiVersion" && k !== "kind") put(rest, k, source[k]);
  }
  const metadata = source.metadata;
  if (metadata && typeof metadata === "object") {
    const meta = metadata as JSONObject;
    const m: JSONObject = {};
    let kept = false;
    for (const k of Object.keys(meta)) {
      if (serverOwnedMetadata.has(k)) continue;
      put(m, k, meta[k]);
      kept = true;
    }
    if (kept) rest.metadata = m;
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

/**
 * The managers of stored objects' managedFields, by array, as a write left them (see
 * `written`): the next write to the object starts from them instead of decoding the array.
 * Stored objects are deep-frozen, so such an array never changes; it is exactly the encoding of
 * its managers, so a write that leaves them all unchanged may keep the array itself. An entry
 * is taken out when used (the object's next write), so the map holds one entry per object
 * last written through a FieldManager, not one per retained version; the maps are handed out
 * once, and nobody changes the entries or field sets in them (every operation builds new ones).
 */
const writtenManagers = new WeakMap<readonly ManagedFieldsEntry[], Managers>();

/**
 * The managers behind managedFields arrays this module encoded (FieldManager.store), by array,
 * until the write is stored: `written` then files them under the stored copy's array in
 * `writtenManagers`.
 */
const encodedFrom = new WeakMap<readonly ManagedFieldsEntry[], Managers>();

/**
 * decodeOrEmpty for the live object's managedFields, taken from `writtenManagers` when the
 * array is known (`exact`: the array is their encoding).
 */
function liveManagers(entries: readonly ManagedFieldsEntry[] | undefined): { managers: Managers; exact: boolean } {
  const known = entries && writtenManagers.get(entries);
  if (!known) return { managers: decodeOrEmpty(entries), exact: false };
  writtenManagers.delete(entries);
  return { managers: known, exact: true };
}

function decodeLive(entries: readonly ManagedFieldsEntry[] | undefined): Managers {
  return liveManagers(entries).managers;
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
  /** builtinTypeFor's answers by "group/version/kind" (null: none). */
  private readonly builtinTypes = new Map<string, TypeNode | null>();

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
    const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
    const found = this.types.get(key) ?? this.opts.typeFor?.(gvk);
    if (found) return found;
    // Built-in types never change: looked up once per kind (null: not a built-in kind).
    let builtin = this.builtinTypes.get(key);
    if (builtin === undefined) {
      builtin = builtinTypeFor(gvk) ?? null;
      this.builtinTypes.set(key, builtin);
    }
    return builtin ?? deducedType;
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
    // Whether `managers` are exactly what the live managedFields encode (see writtenManagers).
    let exactLive = false;
    const liveEntries = live?.metadata?.managedFields;
    if (isReset(requested)) managers = new Map();
    else if (requested && liveEntries && semanticEqual(requested, liveEntries)) {
      // The client sent back what it read (client-go updates do): the live object's managers,
      // as the write that stored it left them when known.
      ({ managers, exact: exactLive } = liveManagers(liveEntries));
    } else {
      let fromRequest: Managers | undefined;
      try {
        fromRequest = requested && requested.length > 0 ? decodeManagedFields(requested) : undefined;
      } catch {
        fromRequest = undefined;
      }
      // A client that drops or garbles managedFields does not erase the tracking.
      if (fromRequest && fromRequest.size > 0) managers = fromRequest;
      else ({ managers, exact: exactLive } = liveManagers(liveEntries));
    }
    const t = this.typeOf(obj);
    if (!live && managers.size === 0) {
      // A create with no managers to carry over: the manager owns exactly the object's fields,
      // encoded directly (what the general path below computes, without its intermediate sets).
      const fieldsV1 = addedFieldsV1(fieldView(obj), t);
      if (!fieldsV1) {
        delete meta.managedFields;
        return;
      }
      const entry: ManagedFieldsEntry = { manager, operation: "Update", apiVersion: obj.apiVersion ?? "", time: this.now(), fieldsType: "FieldsV1", fieldsV1 };
      if (subresource) entry.subresource = subresource;
      meta.managedFields = [entry];
      return;
    }
    const cmp = compare(fieldView(live), fieldView(obj), t);
    // Field sets are never mutated once built, so fresh results are used as they are rather than
    // copied again (a create changes nothing but `added` and has no previous entry).
    const changed = cmp.modified.empty() ? cmp.added : cmp.modified.union(cmp.added);
    const id = managerId({ manager, operation: "Update", apiVersion: obj.apiVersion ?? "", subresource });
    // Entries whose fields do not change are kept as they are (their content would be the same).
    let unchanged = true;
    for (const [other, e] of managers) {
      if (other === id) continue;
      const rest = e.fields.difference(changed).difference(cmp.removed);
      if (rest.equals(e.fields)) continue;
      managers.set(other, { ...e, fields: rest });
      unchanged = false;
    }
    const prev = managers.get(id);
    const fields = prev ? prev.fields.difference(cmp.removed).union(changed) : changed;
    if (!prev || !prev.fields.equals(fields)) {
      managers.set(id, { manager, operation: "Update", apiVersion: obj.apiVersion ?? "", subresource, time: this.now(), fields });
      unchanged = false;
    }
    if (unchanged && exactLive && liveEntries) {
      // Every entry is as the live object has it, and its array is exactly their encoding: keep
      // it (frozen; storage copies what it stores) instead of encoding the same entries again.
      meta.managedFields = liveEntries;
      encodedFrom.set(liveEntries, managers);
      return;
    }
    this.store(obj, managers);
  }

  private store(obj: KubeObject, managers: Managers): void {
    const meta = (obj.metadata ??= {});
    const encoded = encodeManagedFields(managers);
    if (encoded.length > 0) {
      meta.managedFields = encoded;
      encodedFrom.set(encoded, managers);
    } else delete meta.managedFields;
  }

  /**
   * FieldTracker: `stored` is the stored copy of `tracked`. When tracked's managedFields are
   * what `store` encoded and the stored copy carries the same entries, the stored array is
   * known to decode to those managers (without the entries left with no fields, which encoding
   * drops), and the next write to the object uses them as they are.
   */
  written(tracked: KubeObject, stored: KubeObject): void {
    const encoded = tracked.metadata?.managedFields;
    const managers = encoded && encodedFrom.get(encoded);
    const storedEntries = stored.metadata?.managedFields;
    if (!managers || !storedEntries || !Object.isFrozen(storedEntries) || writtenManagers.has(storedEntries)) return;
    if (storedEntries !== encoded && !semanticEqual(storedEntries, encoded)) return;
    const kept: Managers = new Map();
    for (const [id, e] of managers) if (!e.fields.empty()) kept.set(id, e);
    writtenManagers.set(storedEntries, kept);
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
    const managers = decodeLive(live?.metadata?.managedFields);
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
      // An annotation is client text: bounded like a request body before the recursive passes.
      checkJSONDepth(text);
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
