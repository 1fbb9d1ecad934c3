/**
 * `kubeloop crd gen [module...] [--out DIR]... [--check]`: writes the CRD YAML of declared custom
 * resources (every export of each module that `defineCustomResource` made; without modules,
 * kubeloop's own Application CRD) into `deploy/crds/` and every `deploy/helm/<chart>/crds/` under
 * the working directory that exists, or into the `--out` directories. `--check` writes nothing
 * and fails when a file is stale (for CI).
 *
 * `kubeloop crd types <crd.yaml> [--out FILE]`: the other direction, TS types and descriptors
 * for an existing (third-party) CRD (see runtime/crd/typesgen.ts).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { applicationCRD } from "../controllers/application/declaration.js";
import { isCustomResource, plannedFiles, staleFiles, writeFiles, type AnyCustomResource, type GeneratedFile } from "../runtime/crd/generate.js";

/** Where the built-in declaration lives (named in the generated header). */
export const BUILTIN_CRD_SOURCE = "src/controllers/application/declaration.ts";

export class CrdCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CrdCommandError";
  }
}

/** `deploy/crds` and each existing `deploy/helm/<chart>/crds` below `root`. */
export function defaultOutDirs(root: string): string[] {
  const dirs = [join(root, "deploy", "crds")];
  const helm = join(root, "deploy", "helm");
  if (existsSync(helm)) {
    for (const chart of readdirSync(helm, { withFileTypes: true })) {
      if (chart.isDirectory() && existsSync(join(helm, chart.name, "crds"))) dirs.push(join(helm, chart.name, "crds"));
    }
  }
  return dirs;
}

/** The files `kubeloop crd gen` (no modules) writes for kubeloop's own CRDs, below `root`. */
export function builtinCRDFiles(root: string): GeneratedFile[] {
  return plannedFiles([applicationCRD], defaultOutDirs(root), { source: BUILTIN_CRD_SOURCE });
}

/** The declared custom resources a module exports (in export order). */
export async function customResourcesOf(modulePath: string): Promise<AnyCustomResource[]> {
  const abs = resolve(modulePath);
  if (!existsSync(abs)) throw new CrdCommandError(`${modulePath}: no such file`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    const hint = [".ts", ".mts", ".cts"].includes(extname(abs)) ? " (a TypeScript module needs a loader, e.g. node --import tsx, or point at the compiled .js)" : "";
    throw new CrdCommandError(`${modulePath}: cannot load: ${err instanceof Error ? err.message : String(err)}${hint}`);
  }
  const found = Object.values(mod).filter(isCustomResource);
  if (found.length === 0) throw new CrdCommandError(`${modulePath}: exports no custom resource declared with defineCustomResource`);
  return found;
}

export interface CrdGenOptions {
  out?: string[];
  check?: boolean;
}

/** Runs `crd gen`; returns the lines to print. Throws CrdCommandError (check: stale files). */
export async function crdGen(modules: string[], opts: CrdGenOptions, cwd = process.cwd()): Promise<string[]> {
  const outDirs = opts.out?.length ? opts.out.map((d) => resolve(cwd, d)) : defaultOutDirs(cwd);
  let files: GeneratedFile[];
  if (modules.length === 0) {
    files = plannedFiles([applicationCRD], outDirs, { source: BUILTIN_CRD_SOURCE });
  } else {
    files = [];
    for (const m of modules) files.push(...plannedFiles(await customResourcesOf(resolve(cwd, m)), outDirs, { source: relative(cwd, resolve(cwd, m)) }));
  }
  const rel = (p: string) => relative(cwd, p) || p;
  if (opts.check) {
    const stale = staleFiles(files);
    if (stale.length) throw new CrdCommandError(`stale CRD files (run kubeloop crd gen): ${stale.map((f) => rel(f.path)).join(", ")}`);
    return [`${files.length} CRD file(s) up to date`];
  }
  const written = writeFiles(files);
  return files.map((f) => `${written.includes(f.path) ? "wrote" : "unchanged"} ${rel(f.path)}`);
}

export interface CrdTypesOptions {
  out?: string;
}

/** Runs `crd types`; returns the lines to print (the source itself when no --out). */
export async function crdTypes(file: string, opts: CrdTypesOptions, cwd = process.cwd()): Promise<string[]> {
  const { typesFromCRDYaml } = await import("../runtime/crd/typesgen.js");
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new CrdCommandError(`${file}: no such file`);
  let source: string;
  try {
    source = typesFromCRDYaml(readFileSync(path, "utf8"), { source: relative(cwd, path) });
  } catch (err) {
    throw new CrdCommandError(`${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!opts.out) return source.trimEnd().split("\n");
  writeFileSync(resolve(cwd, opts.out), source);
  return [`wrote ${opts.out}`];
}
