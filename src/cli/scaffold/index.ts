/**
 * `kubeloop init <name>` and `kubeloop create api`: kubebuilder's two scaffolding commands for a
 * kubeloop project. `init` writes a new npm project (project.ts) with its first API (api.ts);
 * `create api` adds one more API to the project in the working directory, reading the project's
 * name and domain from its PROJECT file and registering the API at the scaffold markers. Both
 * check the whole plan before writing (writer.ts): nothing is overwritten without `force`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { apiPlan } from "./api.js";
import { apiNames, kindFromName, projectNames, ScaffoldError, type ApiNames, type ApiScope, type ProjectNames } from "./names.js";
import { kubeloopToolchain, PROJECT_FILE, PROJECT_LAYOUT, projectFiles, type Toolchain } from "./project.js";
import { applyPlan, type ApplyResult, type MarkerEdit, type ScaffoldPlan } from "./writer.js";

export { ScaffoldError } from "./names.js";

export interface ApiFlags {
  group?: string;
  version?: string;
  kind?: string;
  scope?: ApiScope;
}

export interface InitOptions extends ApiFlags {
  domain?: string;
  /** Where the project goes (default ./<name>). */
  dir?: string;
  force?: boolean;
  /** The versions written into package.json (default: kubeloop's own). */
  toolchain?: Toolchain;
}

export interface ScaffoldResult extends ApplyResult {
  root: string;
  project: ProjectNames;
  api: ApiNames;
}

/** The PROJECT file's entry for one API (inserted at its resources marker). */
function resourceEdit(a: ApiNames): MarkerEdit {
  return {
    path: PROJECT_FILE,
    section: "resources",
    snippet: `- group: ${a.group}\n  version: ${a.version}\n  kind: ${a.kind}\n  plural: ${a.plural}\n  scope: ${a.scope}`,
  };
}

function merge(...plans: ScaffoldPlan[]): ScaffoldPlan {
  return { files: plans.flatMap((p) => p.files), edits: plans.flatMap((p) => p.edits) };
}

/** `kubeloop init <name>`: the project and its first API (default: kind from the name, group <name>.<domain>). */
export function initProject(name: string, opts: InitOptions = {}, cwd = process.cwd()): ScaffoldResult {
  const p = projectNames(name, opts.domain);
  const a = apiNames({ group: opts.group ?? name, version: opts.version, kind: opts.kind ?? kindFromName(name), scope: opts.scope }, p.domain);
  const root = resolve(cwd, opts.dir ?? name);
  const project: ScaffoldPlan = { files: projectFiles(p, opts.toolchain ?? kubeloopToolchain(), a), edits: [] };
  const api = apiPlan(p, a);
  const result = applyPlan(root, merge(project, api, { files: [], edits: [resourceEdit(a)] }), { force: opts.force });
  return { ...result, root, project: p, api: a };
}

interface ProjectFile {
  layout?: unknown;
  projectName?: unknown;
  domain?: unknown;
  resources?: Array<{ group?: unknown; kind?: unknown }> | null;
}

/** The project in `root`, from its PROJECT file. */
export function readProject(root: string): { project: ProjectNames; resources: Array<{ group?: unknown; kind?: unknown }> } {
  const path = join(root, PROJECT_FILE);
  if (!existsSync(path)) throw new ScaffoldError(`no ${PROJECT_FILE} file in ${root}: run kubeloop create api inside a project made by kubeloop init`);
  let doc: ProjectFile;
  try {
    doc = (parse(readFileSync(path, "utf8")) ?? {}) as ProjectFile;
  } catch (err) {
    throw new ScaffoldError(`${PROJECT_FILE}: invalid YAML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
  if (doc.layout !== PROJECT_LAYOUT) throw new ScaffoldError(`${PROJECT_FILE}: layout ${JSON.stringify(doc.layout)} is not ${PROJECT_LAYOUT}`);
  if (typeof doc.projectName !== "string" || typeof doc.domain !== "string") throw new ScaffoldError(`${PROJECT_FILE}: projectName and domain must be strings`);
  return { project: projectNames(doc.projectName, doc.domain), resources: Array.isArray(doc.resources) ? doc.resources : [] };
}

export interface CreateApiOptions extends ApiFlags {
  force?: boolean;
}

/** `kubeloop create api --group G --version V --kind K` inside the project at `cwd`. */
export function createApi(opts: CreateApiOptions, cwd = process.cwd()): ScaffoldResult {
  if (!opts.group) throw new ScaffoldError("--group is required");
  if (!opts.kind) throw new ScaffoldError("--kind is required");
  const root = resolve(cwd);
  const { project: p, resources } = readProject(root);
  const a = apiNames({ group: opts.group, version: opts.version, kind: opts.kind, scope: opts.scope }, p.domain);
  const plan = apiPlan(p, a);
  const known = resources.some((r) => r.group === a.group && r.kind === a.kind);
  if (known && !opts.force) throw new ScaffoldError(`the project already has ${a.kind} in ${a.group} (${PROJECT_FILE}): not overwriting without --force`);
  const result = applyPlan(root, merge(plan, { files: [], edits: [resourceEdit(a)] }), { force: opts.force });
  return { ...result, root, project: p, api: a };
}
