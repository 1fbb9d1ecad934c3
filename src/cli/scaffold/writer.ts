/**
 * Writing a scaffold into a directory without losing anything: a plan of new files and of edits at
 * marker comments is checked as a whole first — an existing file that a new file would replace
 * (without `force`), or an edited file that lacks its marker, refuses the plan before anything is
 * written — then applied.
 *
 * Markers are kubebuilder's `+kubebuilder:scaffold:<section>` comments under kubeloop's name
 * (`// +kubeloop:scaffold:controllers`, `# +kubeloop:scaffold:rbac`): a snippet is inserted on
 * the lines above its marker, indented as the marker is, unless the snippet is already there —
 * so applying the same edit twice changes nothing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ScaffoldError } from "./names.js";

/** A file the scaffold creates (path relative to the project root). */
export interface NewFile {
  path: string;
  text: string;
  /** Make it executable (scripts). */
  executable?: boolean;
}

/** Lines to add above a marker in an existing file. */
export interface MarkerEdit {
  path: string;
  /** The section name: the marker is the line containing `+kubeloop:scaffold:<section>`. */
  section: string;
  /** The text to insert, unindented; each line gets the marker's indentation. */
  snippet: string;
}

export interface ScaffoldPlan {
  files: NewFile[];
  edits: MarkerEdit[];
}

export interface ApplyOptions {
  /** Replace files that exist. */
  force?: boolean;
}

/** What applying a plan did, as the CLI reports it. */
export interface ApplyResult {
  created: string[];
  replaced: string[];
  updated: string[];
  unchanged: string[];
}

export function markerOf(section: string): string {
  return `+kubeloop:scaffold:${section}`;
}

/**
 * `text` with `snippet` inserted above the (first) line holding the section's marker, indented as
 * that line; `text` itself when the indented snippet is there already. Throws when there is no
 * marker.
 */
export function insertAtMarker(text: string, section: string, snippet: string, file = "file"): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.includes(markerOf(section)));
  if (at < 0) throw new ScaffoldError(`${file}: no "${markerOf(section)}" marker to add to (was it removed?)`);
  const indent = /^\s*/.exec(lines[at])![0];
  const add = snippet
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => (l === "" ? "" : indent + l));
  if (containsLines(lines.slice(0, at), add)) return text;
  return [...lines.slice(0, at), ...add, ...lines.slice(at)].join("\n");
}

function containsLines(haystack: string[], needle: string[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Checks the whole plan against `root`, then writes it; throws ScaffoldError (nothing written) when it cannot. */
export function applyPlan(root: string, plan: ScaffoldPlan, opts: ApplyOptions = {}): ApplyResult {
  const result: ApplyResult = { created: [], replaced: [], updated: [], unchanged: [] };
  const creating = new Set(plan.files.map((f) => f.path));
  const existing = plan.files.filter((f) => existsSync(join(root, f.path)));
  if (existing.length && !opts.force) {
    const names = existing.map((f) => f.path);
    throw new ScaffoldError(`${names.length === 1 ? `${names[0]} exists` : `${names.length} files exist (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""})`}: not overwriting without --force`);
  }
  // Edits apply to a file as it will be after this plan: an existing file, or one the plan creates.
  const texts = new Map<string, string>();
  for (const f of plan.files) texts.set(f.path, f.text);
  const edited = new Set<string>();
  for (const e of plan.edits) {
    let text = texts.get(e.path);
    if (text === undefined) {
      const abs = join(root, e.path);
      if (!existsSync(abs)) throw new ScaffoldError(`${e.path}: no such file to add ${e.section} to (run kubeloop create api inside a project made by kubeloop init)`);
      text = readFileSync(abs, "utf8");
    }
    const next = insertAtMarker(text, e.section, e.snippet, e.path);
    if (next !== text) edited.add(e.path);
    texts.set(e.path, next);
  }
  for (const f of plan.files) {
    const abs = join(root, f.path);
    const was = existsSync(abs);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, texts.get(f.path)!, { mode: f.executable ? 0o755 : 0o644 });
    (was ? result.replaced : result.created).push(f.path);
  }
  for (const path of new Set(plan.edits.map((e) => e.path))) {
    if (creating.has(path)) continue;
    if (edited.has(path)) {
      writeFileSync(join(root, path), texts.get(path)!);
      result.updated.push(path);
    } else result.unchanged.push(path);
  }
  return result;
}
