/**
 * The published CRDs of Gateway API (v1.6.1, standard channel), Karpenter (AWS provider
 * v1.14.1: NodePool, NodeClaim, EC2NodeClass) and Kueue (v0.19.2), with the examples those
 * projects publish (test/cel/crds/<project>/examples), as the real-world CEL test data.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

export const projects = ["gateway-api", "karpenter", "kueue"] as const;
export type Project = (typeof projects)[number];

const root = join(dirname(fileURLToPath(import.meta.url)), "crds");

function docs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => !!d && typeof d === "object");
}

export function crdsOf(p: Project): Obj[] {
  const dir = join(root, p);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) => docs(join(dir, f)))
    .filter((d) => d.kind === "CustomResourceDefinition");
}

export function examplesOf(p: Project): { file: string; objects: Obj[] }[] {
  const dir = join(root, p, "examples");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => ({ file: f, objects: docs(join(dir, f)) }));
}

export interface KindInfo {
  group: string;
  plural: string;
  namespaced: boolean;
  versions: string[];
}

export function kindsOf(crds: Obj[]): Map<string, KindInfo> {
  const out = new Map<string, KindInfo>();
  for (const c of crds) {
    out.set(`${c.spec.group}/${c.spec.names.kind}`, {
      group: c.spec.group,
      plural: c.spec.names.plural,
      namespaced: c.spec.scope === "Namespaced",
      versions: (c.spec.versions as Obj[]).filter((v) => v.served).map((v) => v.name as string),
    });
  }
  return out;
}

/** The collection path of an object of a CRD kind, or undefined for kinds not from these CRDs. */
export function collectionPath(kinds: Map<string, KindInfo>, o: Obj, namespace = "default"): string | undefined {
  const [group, version] = String(o.apiVersion ?? "").split("/");
  const k = kinds.get(`${group}/${o.kind}`);
  if (!k || !version || !k.versions.includes(version)) return undefined;
  const ns = k.namespaced ? `/namespaces/${o.metadata?.namespace ?? namespace}` : "";
  return `/apis/${group}/${version}${ns}/${k.plural}`;
}
