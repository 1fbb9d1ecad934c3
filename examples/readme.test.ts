/**
 * The README's "Using the library" example is examples/annotator.ts, character for character, so
 * the typecheck (tsconfig includes examples/) proves the example compiles with no casts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (p: string) => readFileSync(new URL(p, import.meta.url), "utf8");

describe("README", () => {
  it('shows examples/annotator.ts as its "Using the library" example', () => {
    const readme = read("../README.md");
    const section = readme.slice(readme.indexOf("## Using the library"));
    const block = /```ts\n([\s\S]*?)```\n/.exec(section)?.[1];
    expect(block).toBe(read("./annotator.ts"));
    expect(block).not.toMatch(/\bas\s+(unknown|any|[A-Z]\w*)\b|<\w+>\(/); // no casts, no explicit type arguments
  });
});
