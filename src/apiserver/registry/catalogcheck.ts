/**
 * The built-in resources checked against the Kubernetes 1.36 API they stand for: each served
 * built-in strategy must be a resource of the generated catalog (`apimachinery/api/catalog`,
 * from the 1.36 definitions) with the same kind, scope, names and verbs — what `kubectl
 * api-resources` prints and what discovery-driven clients cache — and its kind must have an
 * entry in the decoding schema table (`generated/schema`), or its bodies would bypass
 * decoding like Go structs. builtinServerConfig refuses a configuration that disagrees: it is
 * a programming error, found by any test that starts a server.
 */
import { resources, type ResourceInfo } from "../../apimachinery/api/catalog.js";
import { kindInfo } from "../generated/schema.js";
import type { ResourceStrategy } from "./strategy.js";

const byPath = new Map<string, ResourceInfo>(resources.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join(",") === [...b].sort().join(",");

/** How `s` (a built-in strategy) differs from the 1.36 resource it serves; [] when it does not. */
export function catalogDisagreements(s: ResourceStrategy): string[] {
  const n = s.names;
  const where = `${n.group || "core"}/${n.version} ${n.resource}`;
  const r = byPath.get(`${n.group}/${n.version}/${n.resource}`);
  if (!r) return [`${where}: not a resource of Kubernetes 1.36`];
  const out: string[] = [];
  const field = (name: string, got: unknown, want: unknown) => {
    if (got !== want) out.push(`${where}: ${name} is ${JSON.stringify(got)}, 1.36 has ${JSON.stringify(want)}`);
  };
  field("kind", n.kind, r.kind);
  field("namespaced", n.namespaced, r.namespaced);
  field("singular", n.singular, r.singular);
  if (!sameSet(n.shortNames, r.shortNames)) field("shortNames", n.shortNames.join(","), r.shortNames.join(","));
  if (!sameSet(n.categories, r.categories)) field("categories", n.categories.join(","), r.categories.join(","));
  if (!sameSet(s.verbs, r.verbs)) field("verbs", [...s.verbs].sort().join(","), [...r.verbs].join(","));
  if (!kindInfo(n.group, n.version, n.kind)) out.push(`${where}: ${n.kind} has no entry in the decoding schema table`);
  return out;
}

/** Throws when a built-in strategy disagrees with the 1.36 catalog (see the module comment). */
export function assertBuiltinsMatchCatalog(strategies: readonly ResourceStrategy[]): void {
  const problems = strategies.flatMap(catalogDisagreements);
  if (problems.length > 0) throw new Error(`built-in resources disagree with Kubernetes 1.36:\n  ${problems.join("\n  ")}`);
}
