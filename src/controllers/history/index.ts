/**
 * ControllerRevision history (kube-controller-manager's pkg/controller/history), shared by the
 * StatefulSet and DaemonSet controllers.
 *
 * Values (revision.ts):
 * - `controllerRevisionName(prefix, hash)` — `prefix-hash`, the prefix cut to 223 characters.
 * - `hashControllerRevision(revision, collisionCount?)` — FNV-1 32-bit (Go's fnv.New32, as
 *   upstream) over the canonical JSON of `revision.data`, then the collision count's decimal
 *   digits; the decimal of the sum mapped through rand.SafeEncodeString's alphabet.
 * - `newControllerRevision(parent, parentKind, templateLabels, data, revision, collisionCount?)` —
 *   a revision controlled by `parent`, labelled with the template's labels and
 *   `controller.kubernetes.io/hash`, named `<parent>-<hash>` (namespace left to the caller).
 * - `equalRevision(a, b)`, `findEqualRevisions(revisions, needle)` — equal data (canonical JSON).
 * - `sortControllerRevisions(revisions)` (in place: revision, then creation time, then name) and
 *   `compareRevisions`; `nextRevision(sorted)` — last revision + 1, or 1.
 *
 * API access (history.ts), every call taking an AbortSignal:
 * - `new RevisionHistory(client, { lister?, fieldManager? })` over any ResourceClientFactory (the
 *   reconcile's `ctx.client`, the HTTP client, the FakeClient);
 * - `list(parent, selector, signal)` — revisions parent controls or nobody does (orphans);
 * - `create(parent, revision, collisionCount, signal)` → `{ revision, collisionCount }` — renames
 *   on collision with other data, returns an existing revision with equal data;
 * - `updateRevision(revision, newRevision, signal)` — retried on conflict;
 * - `delete(revision, signal)`;
 * - `adopt(parent, parentKind, revision, signal)` (AlreadyOwnedError if controlled) and
 *   `release(parent, revision, signal)` (undefined when gone or not ours) — strategic merge
 *   patches of ownerReferences with the revision's UID, as upstream.
 */
export {
  CONTROLLER_REVISION_HASH_LABEL,
  controllerRevisionName,
  hashControllerRevision,
  newControllerRevision,
  equalRevision,
  findEqualRevisions,
  compareRevisions,
  sortControllerRevisions,
  nextRevision,
  revisionDataText,
  fnv1_32,
} from "./revision.js";
export type { RevisionParent } from "./revision.js";
export { RevisionHistory, UPDATE_REVISION_ATTEMPTS } from "./history.js";
export type { CreatedRevision, RevisionHistoryOptions } from "./history.js";
