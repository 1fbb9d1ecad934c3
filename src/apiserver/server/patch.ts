/**
 * PATCH bodies: JSON Patch, JSON merge patch and strategic merge patch (apimachinery/patch),
 * applied to the current object; server-side apply ("apply") is served by ssa/applyhandler.ts;
 * unknown patch types are refused (415).
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  isPatchError,
  patchMetaForKind,
} from "../../apimachinery/patch/index.js";
import { parseMediaType } from "./negotiate.js";
import { parseJSON } from "./body.js";
import { checkValueBounds, NestingTooDeepError } from "./decodelimits.js";
import { fieldErrors } from "../../apimachinery/fielderrors.js";
import { checkObjectMetaTypes, FieldTypeError } from "../rest/metatypes.js";

export type ServedPatchType = "json" | "merge" | "strategic" | "apply";

const patchTypes = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"];

export function patchTypeOf(contentType: string | undefined): ServedPatchType {
  const m = contentType ? parseMediaType(contentType) : undefined;
  const t = m ? `${m.type}/${m.subtype}` : "";
  switch (t) {
    case "application/json-patch+json":
      return "json";
    case "application/merge-patch+json":
      return "merge";
    case "application/strategic-merge-patch+json":
      return "strategic";
    case "application/apply-patch+yaml":
      return "apply";
    case "application/apply-patch+cbor":
      throw new StatusError({
        message: "application/apply-patch+cbor is not supported by this server; send application/apply-patch+yaml",
        reason: "UnsupportedMediaType",
        details: { causes: [{ reason: "UnexpectedServerResponse", message: t }] },
        code: 415,
      });
    default:
      throw StatusError.unsupportedMediaType(contentType ?? "", patchTypes);
  }
}

/** Parses the patch body once (400 on malformed JSON). */
export function parsePatchBody(buf: Buffer): unknown {
  return parseJSON(buf, "error decoding patch");
}

function patchFailure(err: unknown): StatusError {
  if (isPatchError(err)) {
    switch (err.code) {
      case 400:
        return StatusError.badRequest(err.message);
      case 413:
        return StatusError.requestEntityTooLarge(err.message);
      case 422:
        return new StatusError({
          message: `the server rejected our request due to an error in our request`,
          reason: "Invalid",
          details: { causes: [{ message: err.message }] },
          code: 422,
        });
      default:
        return StatusError.internalError(err);
    }
  }
  return StatusError.internalError(err);
}

/** Applies a parsed patch to `current` (an object of the given group/version/kind). */
export function applyPatch(
  type: ServedPatchType,
  current: KubeObject,
  patch: unknown,
  gvk: { group: string; version: string; kind: string },
): KubeObject {
  let out: unknown;
  try {
    switch (type) {
      case "json":
        out = applyJsonPatch(current, patch);
        // Moves and copies can nest the result deeper than the patch or the object were.
        checkValueBounds(out);
        break;
      case "merge":
        if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
          throw StatusError.badRequest("error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}");
        }
        out = applyMergePatch(current, patch);
        break;
      case "strategic": {
        const meta = patchMetaForKind(gvk.group, gvk.version, gvk.kind);
        if (!meta) {
          throw StatusError.unsupportedMediaType("application/strategic-merge-patch+json", [
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml",
          ]);
        }
        if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
          throw StatusError.badRequest("error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}");
        }
        out = applyStrategicMergePatch(current, patch, meta);
        break;
      }
      case "apply":
        throw StatusError.internalError(new Error("server-side apply is not a patch of the current object"));
    }
  } catch (err) {
    if (err instanceof StatusError) throw err;
    if (err instanceof NestingTooDeepError) throw StatusError.badRequest(`the patched object is too deeply nested: ${err.message}`);
    throw patchFailure(err);
  }
  if (typeof out !== "object" || out === null || Array.isArray(out)) {
    throw StatusError.badRequest("the patched document is not a JSON object");
  }
  try {
    checkObjectMetaTypes(out as Record<string, unknown>, gvk.kind);
  } catch (err) {
    // Upstream decodes the patched JSON into the kind's struct: a failure is a 422 on "patch".
    if (err instanceof FieldTypeError) throw StatusError.invalid({ group: "", kind: "" }, "", [fieldErrors.invalid("patch", JSON.stringify(out), err.message)]);
    throw err;
  }
  return out as KubeObject;
}
