/**
 * Custom resources declared in TypeScript: the schema DSL (`k`), `defineCustomResource` (TS type,
 * CRD manifest and typed descriptor from one declaration), YAML generation for deploy/ and Helm,
 * TS generation from an existing CRD, and installing CRDs on a cluster.
 */
export * from "./schema.js";
export * from "./customresource.js";
export * from "./generate.js";
export * from "./install.js";
