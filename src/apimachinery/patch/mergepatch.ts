/**
 * RFC 7386 JSON Merge Patch (application/merge-patch+json).
 *
 * - `applyMergePatch(original, patch)`: a patch that is not an object replaces the document; an
 *   object patch is merged key by key, `null` deleting a key, nested objects merging
 *   recursively (a non-object original counts as `{}`), everything else (arrays included)
 *   replacing. Nulls inside newly added objects are dropped, as the RFC's recursive definition
 *   implies and evanphx/json-patch (kube-apiserver's implementation) does.
 * - `createMergePatch(original, modified)`: the two-way diff — keys added or changed in
 *   `modified`, `null` for keys it removed, objects diffed recursively. Applying it to `original`
 *   yields `modified` for any JSON whose objects hold no `null` values (merge patch cannot express
 *   "set to null").
 * Neither function mutates its inputs nor returns structure shared with them.
 */
import { PatchError } from "./errors.js";
import { cloneJson, hasKey, isObject, jsonEqual, setKey, type JsonObject } from "./jsonvalue.js";

export function applyMergePatch(original: unknown, patch: unknown): unknown {
  return guarded(() => {
    if (!isObject(patch)) return cloneJson(patch);
    const target: JsonObject = isObject(original) ? cloneJson(original) : {};
    mergeInto(target, patch);
    return target;
  });
}

/** Only a stack overflow on absurdly deep documents can fail here; report it as a PatchError. */
function guarded<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof RangeError) throw new PatchError("merge", 422, "merge patch: document nesting is too deep", { cause: err });
    throw err;
  }
}

/** Merges `patch` into `target` in place; `target` is owned by the caller, `patch` is only read. */
function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    if (pv === undefined) continue;
    if (pv === null) {
      delete target[k];
      continue;
    }
    if (isObject(pv)) {
      const current = hasKey(target, k) ? target[k] : undefined;
      const sub: JsonObject = isObject(current) ? current : {};
      mergeInto(sub, pv);
      setKey(target, k, sub);
    } else {
      setKey(target, k, cloneJson(pv));
    }
  }
}

export function createMergePatch(original: unknown, modified: unknown): unknown {
  return guarded(() => (!isObject(original) || !isObject(modified) ? cloneJson(modified) : diffObjects(original, modified)));
}

function diffObjects(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const k of Object.keys(original)) {
    if (original[k] !== undefined && (!hasKey(modified, k) || modified[k] === undefined)) setKey(patch, k, null);
  }
  for (const k of Object.keys(modified)) {
    const mv = modified[k];
    if (mv === undefined) continue;
    if (!hasKey(original, k) || original[k] === undefined) {
      setKey(patch, k, cloneJson(mv));
      continue;
    }
    const ov = original[k];
    if (isObject(ov) && isObject(mv)) {
      const sub = diffObjects(ov, mv);
      if (Object.keys(sub).length > 0) setKey(patch, k, sub);
    } else if (!jsonEqual(ov, mv)) {
      setKey(patch, k, cloneJson(mv));
    }
  }
  return patch;
}
