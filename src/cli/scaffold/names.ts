/**
 * The names a scaffold derives from what the user typed: the project's (npm package, Kubernetes
 * object names, Helm chart) and each API's (group, version, kind, plural, file and identifier
 * names). Everything is validated here, once, with apimachinery's validation helpers, so that the
 * templates can interpolate without checking; a bad name throws ScaffoldError with one line.
 */
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from "../../apimachinery/validation.js";

export class ScaffoldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScaffoldError";
  }
}

/** UpperCamelCase, letters and digits (what defineCustomResource accepts as a kind). */
const KIND = /^[A-Z][A-Za-z0-9]*$/;
/** Kubernetes API version names: v1, v2beta3, v1alpha1. */
const API_VERSION = /^v[1-9][0-9]*(?:(?:alpha|beta)[1-9][0-9]*)?$/;
/** Names that a module may not bind (strict mode). */
const RESERVED_BINDINGS = new Set(["this", "arguments", "eval"]);

export const DEFAULT_DOMAIN = "example.com";
export const DEFAULT_VERSION = "v1alpha1";

function check(what: string, value: string, errs: string[]): void {
  if (errs.length) throw new ScaffoldError(`invalid ${what} "${value}": ${errs.join("; ")}`);
}

/**
 * The plural resource name of a kind: apimachinery's meta.UnsafeGuessKindToResource ("es" after a
 * final "s", "ies" for a final "y", else "s"; "endpoints" unchanged), with the English rules for
 * regular nouns that kubebuilder's pluralizer applies where the guess goes wrong: "es" after x, z,
 * ch and sh too, and a final "y" after a vowel takes "s" (Gateway → gateways, not gatewaies).
 */
export function guessPlural(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular === "") return "";
  if (singular.endsWith("endpoints")) return singular;
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/** "my-app" → "MyApp": the default kind of a project. */
export function kindFromName(name: string): string {
  return name
    .split(/[-.]/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("")
    .replace(/^[0-9]+/, "");
}

export interface ProjectNames {
  /** The npm package, the Deployment/ServiceAccount/ClusterRole, the Helm chart, the Lease prefix. */
  name: string;
  /** Groups without a dot get it appended (kubebuilder's --domain). */
  domain: string;
  /** Where the controller runs (deploy/namespace.yaml). */
  namespace: string;
}

export function projectNames(name: string, domain = DEFAULT_DOMAIN): ProjectNames {
  check("project name", name, isDNS1123Label(name));
  // The Deployment's pods are named <name>-controller-<hash>-<hash>: leave room for the suffixes.
  if (name.length > 40) throw new ScaffoldError(`invalid project name "${name}": must be no more than 40 characters`);
  check("domain", domain, isDNS1123Subdomain(domain));
  if (!domain.includes(".")) throw new ScaffoldError(`invalid domain "${domain}": must contain at least one dot`);
  return { name, domain, namespace: `${name}-system` };
}

export type ApiScope = "Namespaced" | "Cluster";

export interface ApiNames {
  /** The full API group, e.g. "demo.example.com". */
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural, e.g. "demos" (the resource). */
  plural: string;
  /** The lower-cased kind, e.g. "demo": file names and the controller's name. */
  singular: string;
  scope: ApiScope;
  /** The descriptor's identifier in TypeScript (the plural, as docs/crds.md writes `widgets`). */
  ident: string;
  /** `${plural}.${group}`: the CRD's name and its YAML file's stem. */
  crdName: string;
}

export interface ApiInput {
  /** A full group (with a dot) or a short one that the project's domain completes. */
  group: string;
  version?: string;
  kind: string;
  scope?: ApiScope;
}

export function apiNames(input: ApiInput, domain: string): ApiNames {
  const group = input.group.includes(".") ? input.group : `${input.group}.${domain}`;
  check("group", group, isDNS1123Subdomain(group));
  const version = input.version ?? DEFAULT_VERSION;
  if (!API_VERSION.test(version)) throw new ScaffoldError(`invalid version "${version}": want a Kubernetes API version such as v1, v1beta1 or v1alpha1`);
  const kind = input.kind;
  if (!KIND.test(kind)) throw new ScaffoldError(`invalid kind "${kind}": must be UpperCamelCase letters and digits, e.g. Widget`);
  const plural = guessPlural(kind);
  check("kind", kind, isDNS1035Label(plural).map((e) => `its plural "${plural}" ${e.replace(/^a DNS-1035 label /, "is not a DNS-1035 label: ")}`));
  if (RESERVED_BINDINGS.has(plural)) throw new ScaffoldError(`invalid kind "${kind}": its plural "${plural}" is a reserved word in JavaScript`);
  const crdName = `${plural}.${group}`;
  check("kind", kind, isDNS1123Subdomain(crdName).map((e) => `the CRD name "${crdName}": ${e}`));
  return { group, version, kind, plural, singular: kind.toLowerCase(), scope: input.scope ?? "Namespaced", ident: plural, crdName };
}

/**
 * A relative module specifier in generated source, quoted. The templates write their relative
 * imports through it, so that the compiled template text never reads as one of kubeloop's own
 * imports (test/e2e/package.test.ts walks the imports in dist/).
 */
export function specifier(path: string): string {
  return JSON.stringify(path);
}
