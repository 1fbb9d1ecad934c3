/**
 * CustomResourceDefinitions in the embedded API server: the CRD resource (strategy and
 * validation), the in-process naming/establishing/cleanup loop that serves custom resources,
 * and the schema machinery (structural validation, value validation, pruning, defaulting,
 * printer columns).
 */
export { customResourceDefinitionStrategy, defaultCRD } from "./crdstrategy.js";
export { validateCRD, validateCRDUpdate, validateNames } from "./crdvalidation.js";
export { validateVersionSchema, validateStructural } from "./schemavalidation.js";
export { compileRules, validateRules, validateRuleDefinitions, type RuleNode, type ValidationRule } from "./celrules.js";
export { CustomResourceController, computeNamesStatus, type CustomResourceControllerDeps, type CustomResourceFieldTracker } from "./controller.js";
export { customResourceType, publishedShape } from "./fieldtypes.js";
export { customResourceStrategy, resolveVersions, type CustomResourceVersion } from "./crstrategy.js";
export { validateValue, type ValidateOptions } from "./validate.js";
export { prune, applyDefaults, pruneNonNullableNulls } from "./prune.js";
export { validateListSetsAndMaps, validateEmbeddedResources } from "./structure.js";
export { findResults, parseJSONPath } from "./jsonpath.js";
export { customResourcePrinter } from "./printer.js";
export { VersionCodec, VersionedStorage } from "./codec.js";
export type { Schema } from "./schema.js";
export { customResourceCleanupFinalizer } from "./types.js";
