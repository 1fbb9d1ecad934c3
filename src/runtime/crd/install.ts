/**
 * Installing CustomResourceDefinitions and waiting until they are served: what envtest's
 * `InstallCRDs` and controller tests need. Each CRD is created, or updated when its spec or labels
 * differ from the desired one, then polled until the server reports Established=True.
 */
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from "../../apimachinery/api/apiextensions/v1.js";
import { holdProcessOpen, realClock, type Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { CustomResourceDefinitionManifest } from "./customresource.js";
import { isCustomResource, type AnyCustomResource } from "./generate.js";

export class CRDNotEstablishedError extends Error {
  constructor(
    readonly crd: string,
    readonly reason: string,
  ) {
    super(`CustomResourceDefinition ${crd} is not established: ${reason}`);
    this.name = "CRDNotEstablishedError";
  }
}

export interface InstallCRDsOptions {
  signal?: AbortSignal;
  /** The field manager of the writes (default "kubeloop"). */
  fieldManager?: string;
  /** How long to wait for Established=True, per CRD (default 30 000 ms). */
  timeoutMs?: number;
  /** Poll period while waiting (default 100 ms). */
  pollMs?: number;
  clock?: Clock;
}

/**
 * The manifest as the wire type CustomResourceDefinition (the declaration's manifest type is
 * its own, narrower description of the same JSON).
 */
export function asCustomResourceDefinition(m: CustomResourceDefinitionManifest | CustomResourceDefinition): CustomResourceDefinition {
  return m as unknown as CustomResourceDefinition;
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

/** Creates or updates one CRD and waits for Established; resolves to the established object. */
export async function installCRD(
  client: ResourceClientFactory,
  crd: CustomResourceDefinition | CustomResourceDefinitionManifest | AnyCustomResource,
  opts: InstallCRDsOptions = {},
): Promise<CustomResourceDefinition> {
  const clock = opts.clock ?? realClock;
  const desired = isCustomResource(crd) ? asCustomResourceDefinition(crd.manifest()) : deepCopy(asCustomResourceDefinition(crd));
  const name = desired.metadata?.name;
  if (!name) throw new CRDNotEstablishedError("(unnamed)", "the CustomResourceDefinition has no metadata.name");
  const crds = client.resource<CustomResourceDefinition>(builtin.customResourceDefinitions);
  const write = { fieldManager: opts.fieldManager ?? "kubeloop", signal: opts.signal };

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
  // The caller awaits this wait: it holds the process open (the clock's timers do not).
  const release = holdProcessOpen();
  try {
    for (;;) {
      if (condition(current, "Established")?.status === "True") return current;
      const names = condition(current, "NamesAccepted");
      if (names?.status === "False") throw new CRDNotEstablishedError(name, `${names.reason ?? "NamesNotAccepted"}: ${names.message ?? ""}`);
      if (clock.now() >= deadline) throw new CRDNotEstablishedError(name, `timed out after ${timeoutMs}ms waiting for condition Established`);
      await clock.sleep(pollMs, opts.signal);
      current = await crds.get(name, { signal: opts.signal });
    }
  } finally {
    release();
  }
}

/** Installs several CRDs (in order) and waits for each to be established. */
export async function installCRDs(
  client: ResourceClientFactory,
  crds: readonly (CustomResourceDefinition | CustomResourceDefinitionManifest | AnyCustomResource)[],
  opts: InstallCRDsOptions = {},
): Promise<CustomResourceDefinition[]> {
  const out: CustomResourceDefinition[] = [];
  for (const crd of crds) out.push(await installCRD(client, crd, opts));
  return out;
}
