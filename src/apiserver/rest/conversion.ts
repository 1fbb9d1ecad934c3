/**
 * Serving one stored kind at several API versions (autoscaling/v1 and autoscaling/v2
 * HorizontalPodAutoscalers): the kube-apiserver model of an internal type behind several
 * external versions, reduced to what the embedded server needs.
 *
 * Where the state lives:
 * - storage holds every object of the group/resource once, in the *storage version* (one key per
 *   object, shared by every served version; the storage key has no version in it);
 * - each served version has its own ResourceStore, whose strategy names carry the served
 *   version and whose `conversion` (this interface) maps request objects to the storage version
 *   on the way in and stored objects to the served version on the way out;
 * - the store of the storage version itself has no conversion: it reads and writes as is.
 *
 * Within a store, defaulting runs in the served version (each version's SetDefaults_*), then
 * `toStorage`; preparation and validation run on the storage-version object (upstream runs them
 * on the internal type, which for HPAs is shaped like v2: field paths are v2's). Every read —
 * GET, LIST, watch events, write responses, Table rows — goes through `fromStorage`, cached per
 * stored object (stored objects are frozen and never change, so their conversion never does).
 */
import { deepFreeze } from "../../apimachinery/deepcopy.js";
import type { KubeObject } from "../../apimachinery/types.js";

export interface VersionConversion {
  /** apiVersion of the objects in storage, e.g. "autoscaling/v2". */
  readonly storageVersion: string;
  /**
   * A request object of the served version, already defaulted in that version, as the
   * storage version (with the storage version's defaults, as upstream applies them when it
   * decodes the stored object). May reuse `obj`'s parts: the caller owns it.
   */
  toStorage(obj: KubeObject): KubeObject;
  /** A stored object as the served version. Must not modify `obj`. */
  fromStorage(obj: KubeObject): KubeObject;
}

/**
 * The served-version view of stored objects: `present` converts, caching the frozen result per
 * frozen stored object so that every reader (and the response byte cache) shares it.
 */
export class VersionView {
  private readonly cache = new WeakMap<object, KubeObject>();

  constructor(readonly conversion: VersionConversion) {}

  present(obj: KubeObject): KubeObject {
    if (!Object.isFrozen(obj)) return this.conversion.fromStorage(obj);
    let out = this.cache.get(obj);
    if (out === undefined) {
      out = deepFreeze(this.conversion.fromStorage(obj));
      this.cache.set(obj, out);
    }
    return out;
  }
}
