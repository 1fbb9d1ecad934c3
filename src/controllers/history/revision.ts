/**
 * ControllerRevisions as values (upstream pkg/controller/history, the functions before its
 * Interface): naming, hashing, construction, equality, ordering.
 *
 * A revision's `data` is a JSON value (a RawExtension: the StatefulSet's template patch, the
 * DaemonSet's). Upstream hashes and compares the raw bytes its controllers produce with Go's
 * json.Marshal of a map — keys in sorted order. kubeloop uses the same canonical form
 * (`canonicalJSON`: keys sorted, undefined dropped), so data equal as JSON is equal as bytes, and
 * the data read back from the API server compares equal to the data the controller built.
 */
import type { ControllerRevision } from "../../apimachinery/api/apps/v1.js";
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import { newControllerRef } from "../../apimachinery/ownerrefs.js";
import { parseTime } from "../../apimachinery/time.js";
import { canonicalJSON, safeEncodeString } from "../deployment/hash.js";

/** The label holding the hash of a ControllerRevision's data (ControllerRevisionHashLabel). */
export const CONTROLLER_REVISION_HASH_LABEL = "controller.kubernetes.io/hash";

/** The longest name prefix kept, so that prefix-hash stays within 253 bytes. */
const MAX_PREFIX_LENGTH = 223;

const FNV32_OFFSET_BASIS = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** The owner a revision belongs to: anything with a name, a namespace and a UID. */
export interface RevisionParent {
  metadata?: ObjectMeta;
}

/**
 * Continues an FNV-1 32-bit hash (Go's hash/fnv New32, which HashControllerRevision uses:
 * multiply, then xor — not the 1a variant the pod-template hash uses).
 */
export function fnv1_32(bytes: Uint8Array, hash = FNV32_OFFSET_BASIS): number {
  let h = hash >>> 0;
  for (let i = 0; i < bytes.length; i++) {
    h = Math.imul(h, FNV32_PRIME) >>> 0;
    h = (h ^ bytes[i]) >>> 0;
  }
  return h >>> 0;
}

/** The bytes a revision's data is hashed and compared by: its canonical JSON, UTF-8. */
export function revisionDataBytes(data: unknown): Uint8Array {
  return new TextEncoder().encode(revisionDataText(data));
}

/** The canonical JSON text of a revision's data ("" when there is none, as an empty Raw). */
export function revisionDataText(data: unknown): string {
  return data === undefined || data === null ? "" : canonicalJSON(data);
}

/** `prefix-hash`, the prefix cut to 223 characters so the name stays within 253 (ControllerRevisionName). */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > MAX_PREFIX_LENGTH ? prefix.slice(0, MAX_PREFIX_LENGTH) : prefix}-${hash}`;
}

/**
 * The hash of a revision's data and, when given, the collision count written after it as decimal
 * digits (HashControllerRevision's probe); rendered as the decimal of the 32-bit FNV-1 sum mapped
 * through the safe alphabet (rand.SafeEncodeString).
 */
export function hashControllerRevision(revision: Pick<ControllerRevision, "data">, collisionCount?: number | null): string {
  let h = FNV32_OFFSET_BASIS;
  const text = revisionDataText(revision.data);
  if (text.length > 0) h = fnv1_32(new TextEncoder().encode(text), h);
  if (collisionCount !== undefined && collisionCount !== null) h = fnv1_32(new TextEncoder().encode(String(Math.trunc(collisionCount))), h);
  return safeEncodeString(String(h >>> 0));
}

/**
 * A revision controlled by `parent` (of kind `parentKind`) with the template's labels, `data` and
 * `revision`; named `<parent>-<hash>` and labelled with the hash (NewControllerRevision). The
 * namespace is left to the caller (or to RevisionHistory.create, which uses the parent's).
 */
export function newControllerRevision(
  parent: RevisionParent,
  parentKind: GroupVersionKind,
  templateLabels: Readonly<Record<string, string>> | undefined,
  data: unknown,
  revision: number,
  collisionCount?: number | null,
): ControllerRevision {
  const cr: ControllerRevision = {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      labels: { ...(templateLabels ?? {}) },
      ownerReferences: [newControllerRef(parent, parentKind)],
    },
    data: data as ControllerRevision["data"],
    revision,
  };
  const hash = hashControllerRevision(cr, collisionCount);
  cr.metadata!.name = controllerRevisionName(parent.metadata?.name ?? "", hash);
  cr.metadata!.labels![CONTROLLER_REVISION_HASH_LABEL] = hash;
  return cr;
}

/** Go's strconv.ParseInt(s, 10, 32) as uint32, or undefined when it fails. */
function parseHashLabel(s: string | undefined): number | undefined {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  if (n < -2147483648 || n > 2147483647) return undefined;
  return n >>> 0;
}

/**
 * Whether two revisions hold the same data (EqualRevision): both absent, or both present with
 * equal data. When both hash labels parse as 32-bit integers and differ, they are not equal
 * without looking further (safe-encoded hashes rarely parse, so data decides in practice).
 */
export function equalRevision(lhs: ControllerRevision | undefined | null, rhs: ControllerRevision | undefined | null): boolean {
  if (!lhs || !rhs) return !lhs && !rhs;
  const lh = parseHashLabel(lhs.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]);
  const rh = parseHashLabel(rhs.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]);
  if (lh !== undefined && rh !== undefined && lh !== rh) return false;
  return revisionDataText(lhs.data) === revisionDataText(rhs.data);
}

/** The revisions equal to `needle`, in their order (FindEqualRevisions). */
export function findEqualRevisions(revisions: readonly ControllerRevision[], needle: ControllerRevision): ControllerRevision[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

function creationMs(r: ControllerRevision): number {
  return parseTime(r.metadata?.creationTimestamp) ?? 0;
}

/** byRevision's order: revision, then older creation first, then name. */
export function compareRevisions(a: ControllerRevision, b: ControllerRevision): number {
  if (a.revision !== b.revision) return a.revision - b.revision;
  const ta = creationMs(a);
  const tb = creationMs(b);
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? "";
  const nb = b.metadata?.name ?? "";
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Sorts in place by revision (stable; ties by creation time, then name) — SortControllerRevisions. */
export function sortControllerRevisions<R extends ControllerRevision>(revisions: R[]): R[] {
  return revisions.sort(compareRevisions);
}

/**
 * The revision number after the last of `revisions` (sorted as sortControllerRevisions), 1 when
 * there are none (the StatefulSet and DaemonSet controllers' nextRevision).
 */
export function nextRevision(revisions: readonly ControllerRevision[]): number {
  const n = revisions.length;
  return n <= 0 ? 1 : revisions[n - 1].revision + 1;
}
