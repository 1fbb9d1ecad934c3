/** Server-side apply and managedFields bookkeeping. */
export { FieldManager, fieldView, buildLastApplied, lastAppliedAnnotation, applyConflictError } from "./fieldmanager.js";
export type { FieldManagerOptions, ApplyOptions, GroupVersionKind } from "./fieldmanager.js";
export { FieldSet, pathString, elementKey, parseElementKey, type PathElement } from "./fieldpath.js";
export { SchemaTypes, builtinTypeFor, deducedType, scalarType, type TypeNode, type ListType } from "./schema.js";
export { toFieldSet, compare, merge, removeItems, type Comparison } from "./typed.js";
export { decodeManagedFields, encodeManagedFields, managerId, type ManagerEntry, type Managers } from "./managedfields.js";
