#!/usr/bin/env node
// @ts-check
/**
 * Switches the project from the `kubernetes-types` package to the generated wire types in
 * src/apimachinery/api/ by rewriting module specifiers: a mechanical change, since the generated
 * modules have kubernetes-types' layout and type names.
 *
 *   src/, test/, bench/:  from "kubernetes-types/core/v1.js"  →  from "<relative>/src/apimachinery/api/core/v1.js"
 *   examples/:            examples use only the public entry (`kubeloop`, i.e. src/index.js), so
 *                         `import type { Deployment } from "kubernetes-types/apps/v1.js";` becomes
 *                         `import type { appsv1 } from "../../src/index.js";` followed by
 *                         `type Deployment = appsv1.Deployment;` (the namespaces the entry exports,
 *                         read from src/apimachinery/api/index.ts).
 *
 * Handles `import type {..} from`, `import {..} from`, `import type * as x from`, `export type .. from`
 * and `import("kubernetes-types/...")` type queries. Fails (exit 1, nothing written) on a
 * specifier it cannot map.
 *
 * Usage: node scripts/apigen/codemod-imports.mjs [--root DIR] [--dry-run]
 *   --root     the repository to rewrite (default: this repository); use a copy to try it out
 *   --dry-run  lists the files that would change and writes nothing
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const opts = { root: resolve(here, "..", ".."), dryRun: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--root") opts.root = resolve(argv[++i]);
    else if (argv[i] === "--dry-run") opts.dryRun = true;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return opts;
}

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(ts|mts|cts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** module ("core/v1") → namespace exported by the public entry ("corev1"). */
function publicNamespaces(root) {
  const index = join(root, "src", "apimachinery", "api", "index.ts");
  if (!existsSync(index)) throw new Error(`${index} not found: generate the types first (node scripts/apigen/generate.mjs)`);
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const m of readFileSync(index, "utf8").matchAll(/export type \* as (\w+) from "\.\/(.+)\.js";/g)) out.set(m[2], m[1]);
  return out;
}

/** @param {string} fromFile @param {string} target absolute path without extension */
function relSpecifier(fromFile, target) {
  let rel = relative(dirname(fromFile), target).split(sep).join(posix.sep);
  if (!rel.startsWith(".")) rel = `./${rel}`;
  return `${rel}.js`;
}

const SPEC = /(["'])kubernetes-types\/([A-Za-z0-9/]+?)(?:\.js)?\1/g;

/**
 * @param {string} root @param {string} file @param {string} text @param {Map<string, string>} namespaces
 * @returns {string}
 */
export function rewrite(root, file, text, namespaces) {
  const apiDir = join(root, "src", "apimachinery", "api");
  const isExample = relative(root, file).split(sep)[0] === "examples";
  const known = (module) => existsSync(join(apiDir, `${module}.ts`));
  if (!isExample) {
    return text.replace(SPEC, (_m, q, module) => {
      if (!known(module)) throw new Error(`${file}: no generated module for kubernetes-types/${module}`);
      return `${q}${relSpecifier(file, join(apiDir, module))}${q}`;
    });
  }
  const entry = relSpecifier(file, join(root, "src", "index"));
  // Named and namespace imports become the entry's namespaces: one import of them where the
  // first kubernetes-types import was, and a local alias per imported name after the imports.
  const IMPORT = /^import\s+(type\s+)?(\{[^}]*\}|\*\s+as\s+\w+)\s+from\s+(["'])kubernetes-types\/([A-Za-z0-9/]+?)(?:\.js)?\3;?[ \t]*\n/gm;
  /** @type {string[]} */
  const specs = [];
  /** @type {string[]} */
  const aliases = [];
  let first = -1;
  let out = text.replace(IMPORT, (_m, _type, clause, _q, module, offset) => {
    const ns = namespaces.get(module);
    if (!ns) throw new Error(`${file}: the public entry exports no namespace for kubernetes-types/${module}`);
    if (first < 0) first = offset;
    const star = /^\*\s+as\s+(\w+)$/.exec(clause.trim());
    if (star) {
      specs.push(star[1] === ns ? ns : `${ns} as ${star[1]}`);
      return "";
    }
    if (!specs.includes(ns)) specs.push(ns);
    for (const n of clause.slice(1, -1).split(",").map((s) => s.trim().replace(/^type\s+/, "")).filter(Boolean)) {
      const m = /^(\w+)(?:\s+as\s+(\w+))?$/.exec(n);
      if (!m) throw new Error(`${file}: cannot read import specifier ${n}`);
      aliases.push(`type ${m[2] ?? m[1]} = ${ns}.${m[1]};`);
    }
    return "";
  });
  if (first >= 0) {
    const importLine = `import type { ${specs.join(", ")} } from "${entry}";\n`;
    out = out.slice(0, first) + importLine + out.slice(first);
    if (aliases.length > 0) {
      // After the last import declaration.
      let end = 0;
      for (const m of out.matchAll(/^import\s[\s\S]*?\sfrom\s+["'][^"']+["'];?[ \t]*\n/gm)) end = (m.index ?? 0) + m[0].length;
      out = `${out.slice(0, end)}\n${aliases.join("\n")}\n${out.slice(end)}`;
    }
  }
  out = out.replace(SPEC, (_m, _q, module) => {
    throw new Error(`${file}: cannot rewrite this use of kubernetes-types/${module} to the public entry`);
  });
  return out;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const namespaces = publicNamespaces(opts.root);
  const files = ["src", "test", "bench", "examples"].flatMap((d) => walk(join(opts.root, d), []));
  /** @type {[string, string][]} */
  const changed = [];
  for (const f of files) {
    if (f.startsWith(join(opts.root, "src", "apimachinery", "api") + sep)) continue;
    const text = readFileSync(f, "utf8");
    if (!text.includes("kubernetes-types/")) continue;
    const next = rewrite(opts.root, f, text, namespaces);
    if (next !== text) changed.push([f, next]);
  }
  for (const [f, next] of changed) {
    if (!opts.dryRun) writeFileSync(f, next);
    console.log(`${opts.dryRun ? "would rewrite" : "rewrote"} ${relative(opts.root, f)}`);
  }
  console.log(`${changed.length} file(s) ${opts.dryRun ? "to rewrite" : "rewritten"}.`);
  if (!opts.dryRun && changed.length > 0) {
    console.log('Next: npm uninstall kubernetes-types (nothing imports it any more), then npx tsc -p tsconfig.json --noEmit.');
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (e) {
    console.error(`codemod-imports: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
