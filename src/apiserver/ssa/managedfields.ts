/**
 * metadata.managedFields: decoding into per-manager field sets and encoding back, with
 * upstream's manager identity and entry order.
 *
 * A manager is identified by (manager, operation, subresource) and, for Update operations, the
 * apiVersion — the JSON upstream builds from the entry without time and fields
 * (BuildManagerIdentifier). Appliers keep one entry whatever version they apply with.
 */
import type { ManagedFieldsEntry } from "../../apimachinery/api/meta/v1.js";
import { FieldSet } from "./fieldpath.js";

export type Operation = "Apply" | "Update";

export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: FieldSet;
}

/** Manager identity → entry. */
export type Managers = Map<string, ManagerEntry>;

/** Upstream's identifier: the entry's JSON without time, fields, and (for appliers) apiVersion. */
export function managerId(e: Pick<ManagerEntry, "manager" | "operation" | "apiVersion" | "subresource">): string {
  const o: Record<string, string> = { manager: e.manager, operation: e.operation };
  if (e.operation === "Update" && e.apiVersion) o.apiVersion = e.apiVersion;
  if (e.subresource) o.subresource = e.subresource;
  return JSON.stringify(o);
}

/** How conflict messages name a manager: `"kubectl"`, `"x" with subresource "status"`, `"y" using apps/v1`. */
export function describeManager(id: string): string {
  let e: { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  try {
    e = JSON.parse(id) as typeof e;
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(e.manager ?? "");
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === "Update") s += ` using ${e.apiVersion ?? ""}`;
  return s;
}

export class ManagedFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManagedFieldsError";
  }
}

/** Whether a request's managedFields ask for tracking to be reset (`[]` or `[{}]`). */
export function isReset(entries: readonly ManagedFieldsEntry[] | undefined): boolean {
  if (!entries) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && Object.keys(entries[0]).length === 0;
}

export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Managers {
  const out: Managers = new Map();
  for (const [i, e] of (entries ?? []).entries()) {
    if (e.operation !== "Apply" && e.operation !== "Update") {
      throw new ManagedFieldsError(`.metadata.managedFields[${i}]: operation must be Apply or Update`);
    }
    if (e.fieldsType !== undefined && e.fieldsType !== "FieldsV1") {
      throw new ManagedFieldsError(`.metadata.managedFields[${i}]: unsupported fieldsType ${JSON.stringify(e.fieldsType)}`);
    }
    let fields: FieldSet;
    try {
      fields = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new ManagedFieldsError(`.metadata.managedFields[${i}].fieldsV1: ${err instanceof Error ? err.message : String(err)}`);
    }
    const entry: ManagerEntry = {
      manager: e.manager ?? "",
      operation: e.operation,
      apiVersion: e.apiVersion ?? "",
      subresource: e.subresource || undefined,
      time: e.time,
      fields,
    };
    const id = managerId(entry);
    const prev = out.get(id);
    // Duplicate entries (hand-edited managedFields): their sets are merged.
    out.set(id, prev ? { ...prev, fields: prev.fields.union(fields) } : entry);
  }
  return out;
}

/** The managedFields list, in upstream's order: Apply before Update, then by time, manager, version, subresource. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const entries = [...managers.values()].filter((e) => !e.fields.empty());
  entries.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const pt = p.time ? Date.parse(p.time) : 0;
    const qt = q.time ? Date.parse(q.time) : 0;
    if (pt !== qt) return pt - qt;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? "") < (q.subresource ?? "") ? -1 : (p.subresource ?? "") > (q.subresource ?? "") ? 1 : 0;
  });
  return entries.map((e) => {
    const out: ManagedFieldsEntry = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time) out.time = e.time;
    out.fieldsType = "FieldsV1";
    out.fieldsV1 = e.fields.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}
