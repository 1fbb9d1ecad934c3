/**
 * RevisionHistory: a controller's ControllerRevisions through the API (upstream history.Interface
 * and its realHistory). Reads come from the informer's lister when one is given (as upstream), or
 * from a LIST otherwise; writes go through the client. Every call takes the caller's AbortSignal.
 *
 * Invariants kept from upstream:
 * - `list` returns the revisions matching the selector that `parent` controls or that nobody
 *   controls (orphans, which the caller may adopt) — never another controller's;
 * - `create` never overwrites: on a name collision with a revision holding other data it bumps the
 *   collision count and tries the next name (`<parent>-<hash(data, count)>`); a revision already
 *   there with the same data is returned as created (a retry of our own create);
 * - nothing returned is a cached object: callers may modify what they get.
 */
import type { ControllerRevision } from "../../apimachinery/api/apps/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isAlreadyExists, isConflict, isInvalid, isNotFound } from "../../apimachinery/errors.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import type { Selector } from "../../apimachinery/labels.js";
import { AlreadyOwnedError, getControllerOf } from "../../apimachinery/ownerrefs.js";
import type { ResourceClient, ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import { adoptPatch, releasePatch } from "../../runtime/controllerrefmanager.js";
import { controllerRevisionName, hashControllerRevision, revisionDataText, type RevisionParent } from "./revision.js";

/** How many times updateRevision tries when it meets conflicts (retry.DefaultBackoff's 4 steps). */
export const UPDATE_REVISION_ATTEMPTS = 4;

/** What `create` made (or found) and the collision count to record in the parent's status. */
export interface CreatedRevision {
  revision: ControllerRevision;
  /** The collision count after the create: the given one plus the collisions met. */
  collisionCount: number;
}

export interface RevisionHistoryOptions {
  /** Reads `list` (and re-reads after a conflict) from this cache; absent, they go to the API. */
  lister?: Lister<ControllerRevision>;
  /** The field manager of every write. */
  fieldManager?: string;
}

export class RevisionHistory {
  private readonly lister: Lister<ControllerRevision> | undefined;
  private readonly fieldManager: string | undefined;

  constructor(
    private readonly client: ResourceClientFactory,
    opts: RevisionHistoryOptions = {},
  ) {
    this.lister = opts.lister;
    this.fieldManager = opts.fieldManager;
  }

  private revisions(namespace: string): ResourceClient<ControllerRevision> {
    return this.client.resource(builtin.controllerRevisions, namespace);
  }

  /** The revisions in parent's namespace matching `selector` that parent controls or nobody does (ListControllerRevisions). */
  async list(parent: RevisionParent, selector: Selector, signal?: AbortSignal): Promise<ControllerRevision[]> {
    const namespace = parent.metadata?.namespace ?? "";
    const uid = parent.metadata?.uid;
    let all: readonly ControllerRevision[];
    if (this.lister) {
      all = this.lister.namespace(namespace).list(selector);
    } else {
      const list = await this.revisions(namespace).list({ labelSelector: selector.toString(), signal });
      all = list.items;
    }
    const owned: ControllerRevision[] = [];
    for (const r of all) {
      const ref = getControllerOf(r);
      if (!ref || ref.uid === uid) owned.push(deepCopy(r));
    }
    return owned;
  }

  /**
   * Creates `revision` in parent's namespace under the name its data and the collision count give
   * (CreateControllerRevision). A name taken by a revision with the same data returns that
   * revision; one taken by other data bumps the count and tries again. Rejects with the API's error
   * otherwise; `collisionCount` is then to be treated as not advanced.
   */
  async create(parent: RevisionParent, revision: ControllerRevision, collisionCount: number, signal?: AbortSignal): Promise<CreatedRevision> {
    const namespace = parent.metadata?.namespace ?? "";
    const client = this.revisions(namespace);
    const clone = deepCopy(revision);
    const meta = (clone.metadata ??= {});
    if (namespace) meta.namespace = namespace;
    const wanted = revisionDataText(revision.data);
    let count = collisionCount;
    for (;;) {
      const hash = hashControllerRevision(revision, count);
      meta.name = controllerRevisionName(parent.metadata?.name ?? "", hash);
      try {
        const created = await client.create(clone, { signal, fieldManager: this.fieldManager });
        return { revision: created, collisionCount: count };
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      const exists = await client.get(meta.name, { signal });
      if (revisionDataText(exists.data) === wanted) return { revision: exists, collisionCount: count };
      count++;
    }
  }

  /**
   * Sets the revision number of `revision` to `newRevision` (UpdateControllerRevision): nothing is
   * written when it already has it; a conflict re-reads the object (cache, else API) and tries
   * again, up to UPDATE_REVISION_ATTEMPTS times. Resolves to the revision as written.
   */
  async updateRevision(revision: ControllerRevision, newRevision: number, signal?: AbortSignal): Promise<ControllerRevision> {
    const namespace = revision.metadata?.namespace ?? "";
    const name = revision.metadata?.name ?? "";
    const client = this.revisions(namespace);
    let clone = deepCopy(revision);
    for (let attempt = 1; ; attempt++) {
      if (clone.revision === newRevision) return clone;
      clone.revision = newRevision;
      try {
        return await client.update(clone, { signal, fieldManager: this.fieldManager });
      } catch (err) {
        if (!isConflict(err) || attempt >= UPDATE_REVISION_ATTEMPTS) throw err;
      }
      clone = await this.reread(client, namespace, name, signal);
    }
  }

  private async reread(client: ResourceClient<ControllerRevision>, namespace: string, name: string, signal?: AbortSignal): Promise<ControllerRevision> {
    if (this.lister) {
      try {
        return deepCopy(this.lister.namespace(namespace).get(name));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return client.get(name, { signal });
  }

  /** Deletes `revision` (DeleteControllerRevision); rejects with NotFound when it is gone. */
  async delete(revision: ControllerRevision, signal?: AbortSignal): Promise<void> {
    await this.revisions(revision.metadata?.namespace ?? "").delete(revision.metadata?.name ?? "", { signal });
  }

  /**
   * Makes `parent` (of kind `parentKind`) the controller of the orphan `revision` with a strategic
   * merge patch carrying the revision's UID (AdoptControllerRevision). Rejects with
   * AlreadyOwnedError when something controls it already, and with the API's error (NotFound
   * included) when the patch fails.
   */
  async adopt(parent: RevisionParent, parentKind: GroupVersionKind, revision: ControllerRevision, signal?: AbortSignal): Promise<ControllerRevision> {
    const owner = getControllerOf(revision);
    if (owner) throw new AlreadyOwnedError(revision, owner);
    const patch = adoptPatch(parent, parentKind, revision.metadata?.uid ?? "");
    return this.revisions(parent.metadata?.namespace ?? "").patch(revision.metadata?.name ?? "", "strategic", patch, {
      signal,
      fieldManager: this.fieldManager,
    });
  }

  /**
   * Removes parent's owner reference from `revision` (ReleaseControllerRevision). A revision that is
   * gone (NotFound) or no longer ours (Invalid: the UID precondition failed) resolves to undefined,
   * as upstream ignores both.
   */
  async release(parent: RevisionParent, revision: ControllerRevision, signal?: AbortSignal): Promise<ControllerRevision | undefined> {
    const patch = releasePatch(parent.metadata?.uid ?? "", revision.metadata?.uid ?? "");
    try {
      return await this.revisions(revision.metadata?.namespace ?? "").patch(revision.metadata?.name ?? "", "strategic", patch, {
        signal,
        fieldManager: this.fieldManager,
      });
    } catch (err) {
      if (isNotFound(err) || isInvalid(err)) return undefined;
      throw err;
    }
  }
}
