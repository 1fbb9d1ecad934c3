/**
 * The Application CRD: read from deploy/crds/applications.kubeloop.dev.yaml (the one source of
 * truth, shipped in the npm package's "files") and installed with `installApplicationCRD`.
 *
 * The file is found relative to this module (import.meta.url): src/controllers/application/ in a
 * checkout and dist/controllers/application/ in the package are both three levels below the
 * package root; other builds (dist-bench/src/...) are one level deeper, so the parents are
 * searched upwards until the file is found.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from "kubernetes-types/apiextensions/v1.js";
import { parse } from "yaml";
import { realClock, type Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import { APPLICATION_CRD_NAME, FIELD_MANAGER } from "./types.js";

export const APPLICATION_CRD_FILE = "applications.kubeloop.dev.yaml";

export class CRDFileNotFoundError extends Error {
  constructor(readonly searched: string[]) {
    super(`the Application CRD (deploy/crds/${APPLICATION_CRD_FILE}) was not found; looked in: ${searched.join(", ")}`);
    this.name = "CRDFileNotFoundError";
  }
}

export class CRDNotEstablishedError extends Error {
  constructor(
    readonly crd: string,
    readonly reason: string,
  ) {
    super(`CustomResourceDefinition ${crd} is not established: ${reason}`);
    this.name = "CRDNotEstablishedError";
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

/** The CRD object, parsed from the YAML file (a fresh copy on every call). */
export function loadApplicationCRD(path = applicationCRDPath()): CustomResourceDefinition {
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
  /** Another CRD object (tests); default: the file's. */
  crd?: CustomResourceDefinition;
}

function condition(crd: CustomResourceDefinition, type: string): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/** The spec as the server stores it after its defaults (conversion None), for comparison. */
function defaultedSpec(crd: CustomResourceDefinition): CustomResourceDefinition["spec"] {
  const spec = deepCopy(crd.spec);
  spec.conversion ??= { strategy: "None" };
  return spec;
}

/**
 * Creates the Application CRD, or updates it when its spec or labels differ from the file's, then
 * waits until the server reports Established=True. Resolves to the established CRD; rejects with
 * CRDNotEstablishedError when the names were refused (NamesAccepted=False) or the wait timed out.
 */
export async function installApplicationCRD(client: ResourceClientFactory, opts: InstallCRDOptions = {}): Promise<CustomResourceDefinition> {
  const clock = opts.clock ?? realClock;
  const desired = opts.crd ? deepCopy(opts.crd) : loadApplicationCRD();
  const name = desired.metadata?.name ?? APPLICATION_CRD_NAME;
  const crds = client.resource<CustomResourceDefinition>(builtin.customResourceDefinitions);
  const write = { fieldManager: FIELD_MANAGER, signal: opts.signal };

  let current: CustomResourceDefinition;
  try {
    const existing = await crds.get(name, { signal: opts.signal });
    const labelsMatch = Object.entries(desired.metadata?.labels ?? {}).every(([k, v]) => existing.metadata?.labels?.[k] === v);
    if (labelsMatch && semanticEqual(defaultedSpec(desired), existing.spec)) {
      current = existing;
    } else {
      const next = deepCopy(existing);
      next.metadata = { ...next.metadata, labels: { ...next.metadata?.labels, ...desired.metadata?.labels } };
      next.spec = desired.spec;
      current = await crds.update(next, write);
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
    current = await crds.create(desired, write);
  }

  const timeoutMs = opts.timeoutMs ?? 30_000;
  const pollMs = opts.pollMs ?? 100;
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    if (condition(current, "Established")?.status === "True") return current;
    const names = condition(current, "NamesAccepted");
    if (names?.status === "False") throw new CRDNotEstablishedError(name, `${names.reason ?? "NamesNotAccepted"}: ${names.message ?? ""}`);
    if (clock.now() >= deadline) throw new CRDNotEstablishedError(name, `timed out after ${timeoutMs}ms waiting for condition Established`);
    await clock.sleep(pollMs, opts.signal);
    current = await crds.get(name, { signal: opts.signal });
  }
}
