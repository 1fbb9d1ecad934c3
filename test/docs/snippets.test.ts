/**
 * Every ```ts block of README.md and docs/**\/*.md compiles against the package's types: the
 * blocks are written as modules under .cache/doc-snippets/ (inside the repository, so `kubeloop`
 * and `kubeloop/*` resolve through tsconfig.json's paths to the sources, as the examples'
 * imports do) and type-checked in one program with the project's compiler options. A block
 * whose info string says `nocheck` (```ts nocheck) is a deliberately partial snippet and is
 * skipped. `file=<name>.ts` writes a block as that module of its document, so that a later
 * block of the same document can import it ("./<name>.js"). A block marked `excerpt=<file>` (```ts excerpt=examples/sample-controller/controller.ts)
 * quotes a file that the project's type-check covers: its lines must appear in that file, in order
 * (blank lines, comment lines and trailing comments aside; lines may be left out between them).
 * PRELUDE declares the few names the guides use without defining them (the `Widget` resource
 * of the testing guide, vitest's globals); it is written beside the blocks, not kept as a .d.ts
 * of the project, whose own type-check must not see these globals.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { documentationFiles, parseMarkdown, root, type CodeBlock } from "./markdown.js";

const PRELUDE = `/**
 * Names the guides' \`\`\`ts blocks use without defining them (test/docs/snippets.test.ts compiles
 * the blocks with this file): the testing guide's Widget resource and its controller's setup
 * function, and vitest's globals, which a test file imports from "vitest".
 */
import type { Controller, CustomResourceInfo, Manager, ResourceDescriptor, TypedObject } from "kubeloop";

declare global {
  interface Widget extends TypedObject {
    spec: { size: string };
    status?: { ready?: boolean };
  }
  const widgets: CustomResourceInfo & { readonly resource: ResourceDescriptor<Widget> };
  function setupWidgetController(mgr: Manager): Controller;
  const it: typeof import("vitest").it;
  const expect: typeof import("vitest").expect;
  const describe: typeof import("vitest").describe;
}
`;

const isTS = (b: CodeBlock) => /^(ts|typescript)(\s|$)/.test(b.info);
const excerptOf = (b: CodeBlock) => /(?:^|\s)excerpt=(\S+)/.exec(b.info)?.[1];
const checked = (b: CodeBlock) => isTS(b) && !b.info.split(/\s+/).includes("nocheck") && excerptOf(b) === undefined;

/** Code lines without blank lines, comment-only lines and trailing `// ...` comments, trimmed. */
export function codeLines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.replace(/\s+\/\/\s.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("//") && !l.startsWith("*") && !l.startsWith("/*"));
}

/** The first line of `excerpt` not found, in order, in `source` (undefined: all found). */
export function missingLine(excerpt: string, source: string): string | undefined {
  const src = codeLines(source);
  let at = 0;
  for (const line of codeLines(excerpt)) {
    const i = src.indexOf(line, at);
    if (i < 0) return line;
    at = i + 1;
  }
  return undefined;
}

describe("documentation code blocks", () => {
  const blocks = documentationFiles().flatMap((f) => parseMarkdown(f).blocks);

  it("nocheck is rare", () => {
    const ts = blocks.filter(isTS);
    expect(ts.filter((b) => b.info.split(/\s+/).includes("nocheck")).length).toBeLessThanOrEqual(Math.ceil(ts.length / 10));
  });

  it("finds an excerpt's lines in order, and not a changed one", () => {
    const source = "const a = 1; // one\n\n// note\nconst b = 2;\nconst c = 3;\n";
    expect(missingLine("const a = 1;\nconst c = 3; // three", source)).toBeUndefined();
    expect(missingLine("const c = 3;\nconst a = 1;", source)).toBe("const a = 1;");
    expect(missingLine("const b = 4;", source)).toBe("const b = 4;");
  });

  it("every excerpt=<file> block quotes its file", () => {
    const problems: string[] = [];
    for (const b of blocks.filter((b) => isTS(b) && excerptOf(b) !== undefined)) {
      const file = join(root, excerptOf(b)!);
      if (!existsSync(file)) {
        problems.push(`${b.file}:${b.line}: ${excerptOf(b)} does not exist`);
        continue;
      }
      const miss = missingLine(b.code, readFileSync(file, "utf8"));
      if (miss !== undefined) problems.push(`${b.file}:${b.line}: not in ${excerptOf(b)}: ${miss}`);
    }
    expect(problems).toEqual([]);
  });

  it("every ```ts block compiles against the package's types", { timeout: 300_000 }, () => {
    const dir = join(root, ".cache", "doc-snippets");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files = new Map<string, CodeBlock>();
    for (const b of blocks.filter(checked)) {
      // `file=<name>.ts` names the block's module, so a later block can import it ("./<name>.js").
      const named = /(?:^|\s)file=(\S+\.ts)(?:\s|$)/.exec(b.info)?.[1];
      const docDir = join(dir, b.file.replaceAll(/[/.]/g, "_"));
      mkdirSync(docDir, { recursive: true });
      const name = join(docDir, named ?? `block_${b.line}.ts`);
      // A module of its own (top-level await and imports as a user writes them).
      writeFileSync(name, `${b.code}\nexport {};\n`);
      files.set(name, b);
    }
    expect(files.size).toBeGreaterThan(0);
    const config = ts.readConfigFile(join(root, "tsconfig.json"), (p) => ts.sys.readFile(p));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const prelude = join(dir, "prelude.d.ts");
    writeFileSync(prelude, PRELUDE);
    const program = ts.createProgram([...files.keys(), prelude], { ...parsed.options, noEmit: true, incremental: false });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || files.has(d.file.fileName) || d.file.fileName === prelude)
      .map((d) => {
        const msg = ts.flattenDiagnosticMessageText(d.messageText, "\n");
        if (!d.file || d.start === undefined) return msg;
        const b = files.get(d.file.fileName) ?? { file: "PRELUDE", line: 0 };
        const { line } = d.file.getLineAndCharacterOfPosition(d.start);
        return `${b.file}:${b.line + 1 + line}: ${msg}`;
      });
    expect(problems).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});
