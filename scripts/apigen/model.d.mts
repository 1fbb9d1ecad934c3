/** Types of the pure helpers of scripts/apigen/model.mjs, for the tests. */
export function pluralOf(kind: string): string;
export function openapiPrefixOf(importPath: string): string;
export function versionOrder(group: string, a: string, b: string): number;
