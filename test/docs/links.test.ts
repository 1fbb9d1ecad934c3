/**
 * Every relative link in README.md and docs/**\/*.md resolves: the file or directory exists,
 * and a #anchor names a heading of the target (or of the same file).
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { documentationFiles, parseMarkdown, root, slug } from "./markdown.js";

describe("documentation links", () => {
  it("slugs headings as GitHub does", () => {
    const cases: [string, string][] = [
      ["Integration: `startTestEnv()`", "integration-starttestenv"],
      ["The control plane and its fidelity limits", "the-control-plane-and-its-fidelity-limits"],
      ["What is simulated, and how", "what-is-simulated-and-how"],
      ["kubeloop/testing — unit", "kubelooptesting--unit"],
    ];
    for (const [h, want] of cases) expect(slug(h), h).toBe(want);
  });

  it("finds links in prose, not in code, and the anchors of repeated headings", () => {
    const md = ["# A", "see [b](b.md#x) and `[c](c.md)`", "```", "[d](d.md)", "```", "## A", "[e](e.md \"t\")"].join("\n");
    const p = parseMarkdown("x.md", md);
    expect(p.links).toEqual([
      { target: "b.md#x", line: 2 },
      { target: "e.md", line: 7 },
    ]);
    expect([...p.anchors]).toEqual(["a", "a-1"]);
    expect(p.blocks).toEqual([{ file: "x.md", line: 3, info: "", code: "[d](d.md)" }]);
  });

  for (const file of documentationFiles()) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const problems: string[] = [];
      for (const { target, line } of parseMarkdown(file).links) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split("#", 2) as [string, string | undefined];
        const resolved = path === "" ? file : normalize(join(dirname(file), decodeURIComponent(path)));
        const abs = join(root, resolved);
        if (!existsSync(abs)) {
          problems.push(`${file}:${line}: ${target}: ${resolved} does not exist`);
          continue;
        }
        if (anchor === undefined || anchor === "") continue;
        if (statSync(abs).isDirectory() || !resolved.endsWith(".md")) {
          problems.push(`${file}:${line}: ${target}: an anchor into something that is not a Markdown file`);
          continue;
        }
        if (!parseMarkdown(resolved).anchors.has(anchor)) problems.push(`${file}:${line}: ${target}: ${resolved} has no heading #${anchor}`);
      }
      expect(problems).toEqual([]);
    });
  }
});
