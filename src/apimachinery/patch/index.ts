export { PatchError, isPatchError, type PatchErrorCode, type PatchErrorSource } from "./errors.js";
export { applyJsonPatch, createJsonPatch, MAX_JSON_PATCH_OPERATIONS, type JsonPatchOperation, type JsonPatchOptions } from "./jsonpatch.js";
export { applyMergePatch, createMergePatch } from "./mergepatch.js";
export { applyStrategicMergePatch, createTwoWayMergePatch, type PatchMeta } from "./strategicpatch.js";
export {
  builtinPatchTypes,
  patchMetaForKind,
  patchMetaForType,
  rootTypeForKind,
  type BuiltinFieldPatchInfo,
  type BuiltinPatchTypeTable,
} from "./builtinpatchmeta.js";
export type { JsonObject } from "./jsonvalue.js";
