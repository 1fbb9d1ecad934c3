/**
 * The Application CRD: declared in TypeScript (declaration.ts); `loadApplicationCRD` returns the
 * declaration's manifest and `installApplicationCRD` installs it. deploy/crds/
 * applications.kubeloop.dev.yaml (shipped in the npm package's "files") and the Helm chart's copy
 * are generated from the same declaration by `kubeloop crd gen` (a test fails when they are
 * stale), so the file, the chart and the installer agree.
 *
 * The file is found relative to this module (import.meta.url): src/controllers/application/ in a
 * checkout and dist/controllers/application/ in the package are both three levels below the
 * package root; other builds (dist-bench/src/...) are one level deeper, so the parents are
 * searched upwards until the file is found.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CustomResourceDefinition } from "../../apimachinery/api/apiextensions/v1.js";
import { parse } from "yaml";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { asCustomResourceDefinition, CRDNotEstablishedError, installCRD } from "../../runtime/crd/install.js";
import { applicationCRD } from "./declaration.js";
import { APPLICATION_CRD_NAME, FIELD_MANAGER } from "./types.js";

export { CRDNotEstablishedError };

export const APPLICATION_CRD_FILE = "applications.kubeloop.dev.yaml";

export class CRDFileNotFoundError extends Error {
  constructor(readonly searched: string[]) {
    super(`the Application CRD (deploy/crds/${APPLICATION_CRD_FILE}) was not found; looked in: ${searched.join(", ")}`);
    this.name = "CRDFileNotFoundError";
  }
}

/** The absolute path of deploy/crds/applications.kubeloop.dev.yaml. */
export function applicationCRDPath(): string {
  const searched: string[] = [];
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, "deploy", "crds", APPLICATION_CRD_FILE);
    searched.push(candidate);
    if (existsSync(candidate)) return candidate;
    const parent = resolve(dir, "..");
    if (parent === dir) break;
    dir = parent;
  }
  throw new CRDFileNotFoundError(searched);
}

/**
 * The CRD object (a fresh copy on every call): the declaration's manifest, or, given a path, the
 * YAML file there (checked to be the Application CRD).
 */
export function loadApplicationCRD(path?: string): CustomResourceDefinition {
  if (path === undefined) return asCustomResourceDefinition(applicationCRD.manifest());
  const doc = parse(readFileSync(path, "utf8")) as unknown;
  if (doc === null || typeof doc !== "object" || (doc as { kind?: unknown }).kind !== "CustomResourceDefinition") {
    throw new Error(`${path}: not a CustomResourceDefinition`);
  }
  const crd = doc as CustomResourceDefinition;
  if (crd.metadata?.name !== APPLICATION_CRD_NAME) throw new Error(`${path}: expected metadata.name ${APPLICATION_CRD_NAME}, got ${crd.metadata?.name}`);
  return crd;
}

export interface InstallCRDOptions {
  signal?: AbortSignal;
  /** How long to wait for Established=True (default 30 000 ms). */
  timeoutMs?: number;
  /** Poll period while waiting (default 100 ms). */
  pollMs?: number;
  clock?: Clock;
  /** Another CRD object (tests); default: the declaration's. */
  crd?: CustomResourceDefinition;
}

/**
 * Creates the Application CRD, or updates it when its spec or labels differ from the declaration's,
 * then waits until the server reports Established=True. Resolves to the established CRD; rejects
 * with CRDNotEstablishedError when the names were refused (NamesAccepted=False) or the wait timed out.
 */
export async function installApplicationCRD(client: ResourceClientFactory, opts: InstallCRDOptions = {}): Promise<CustomResourceDefinition> {
  const desired = opts.crd ? deepCopy(opts.crd) : loadApplicationCRD();
  return installCRD(client, desired, { fieldManager: FIELD_MANAGER, signal: opts.signal, timeoutMs: opts.timeoutMs, pollMs: opts.pollMs, clock: opts.clock });
}
