/** Types of scripts/apigen/markers.mjs for the tests. */
export function commentTags(lines: readonly string[]): Map<string, string[]>;
export function description(lines: readonly string[]): string;
