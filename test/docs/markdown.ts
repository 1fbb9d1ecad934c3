/**
 * The Markdown the documentation checks read: README.md and docs/**\/*.md, their links (outside
 * code), their headings' anchors as GitHub renders them, and their fenced code blocks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export const root = join(import.meta.dirname, "..", "..");

/** README.md and every .md under docs/, relative to the repository root. */
export function documentationFiles(): string[] {
  const out = ["README.md"];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) out.push(p);
    }
  };
  walk("docs");
  return out.sort();
}

export interface CodeBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string: language and any words after it (e.g. "ts nocheck"). */
  info: string;
  code: string;
}

export interface Parsed {
  blocks: CodeBlock[];
  /** Links outside code: [text](target) with their 1-based line. */
  links: { target: string; line: number }[];
  /** The anchors of the headings (GitHub's slugs, repeats suffixed -1, -2, ...). */
  anchors: Set<string>;
}

/** GitHub's heading slug: lower case, markup and punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

export function parseMarkdown(file: string, text = readFileSync(join(root, file), "utf8")): Parsed {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  const links: Parsed["links"] = [];
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: { marker: string; info: string; line: number; body: string[] } | undefined;
  lines.forEach((raw, i) => {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(raw);
    if (fence) {
      if (open && open[2].startsWith(fence.marker) && open[3].trim() === "") {
        blocks.push({ file, line: fence.line, info: fence.info, code: fence.body.join("\n") });
        fence = undefined;
      } else fence.body.push(raw);
      return;
    }
    if (open) {
      fence = { marker: open[2], info: open[3].trim(), line: i + 1, body: [] };
      return;
    }
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    const prose = raw.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1], line: i + 1 });
  });
  return { blocks, links, anchors };
}

export function rel(p: string): string {
  return relative(root, p);
}
