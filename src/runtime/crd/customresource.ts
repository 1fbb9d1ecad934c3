/**
 * A custom resource declared once in TypeScript: `defineCustomResource` takes the names, scope and
 * versions (each with its spec/status Fields, printer columns and subresources) and gives
 *
 *   - the TS type of its objects (`CustomResourceObject<typeof widgets>`, inferred),
 *   - the CustomResourceDefinition manifest (`widgets.manifest()`), structural by construction,
 *   - a typed `ResourceDescriptor` for clients, informers and the controller builder
 *     (`widgets.resource`, the storage version; `widgets.version("v1beta1")` for another).
 *
 *   const widgets = defineCustomResource({
 *     group: "example.com",
 *     names: { kind: "Widget", plural: "widgets", shortNames: ["wd"] },
 *     scope: "Namespaced",
 *     versions: {
 *       v1: {
 *         spec: k.object({ size: k.integer({ minimum: 0 }) }),
 *         status: k.object({ ready: k.boolean().optional() }).optional(),
 *         subresources: { status: true },
 *       },
 *     },
 *   });
 *   type Widget = CustomResourceObject<typeof widgets>;
 *   mgr.controller("widgets").for(widgets.resource).reconcile(...)
 *
 * The declaration is checked when it is made (InvalidCustomResourceError): one storage version,
 * lower-case DNS names, printer-column and scale paths that name declared fields, map-list keys
 * that exist (schema.ts). What only the API server knows (name conflicts with other CRDs) is
 * reported when the manifest is applied.
 */
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import { defineResource, type ResourceDescriptor } from "../../apimachinery/resource.js";
import { Field, type AnyField, type JSONSchemaProps, type TypeOf, type ValidationRule } from "./schema.js";

export type Scope = "Namespaced" | "Cluster";

export interface CustomResourceNames {
  /** UpperCamelCase kind, e.g. "Widget". */
  kind: string;
  /** Lower-case plural used in URLs, e.g. "widgets". */
  plural: string;
  /** Default: the kind in lower case. */
  singular?: string;
  /** Default: `${kind}List`. */
  listKind?: string;
  shortNames?: string[];
  /** Groups of resources such as "all" (kubectl get all). */
  categories?: string[];
}

export interface PrinterColumn {
  name: string;
  type: "integer" | "number" | "string" | "boolean" | "date";
  jsonPath: string;
  description?: string;
  format?: string;
  /** 0 is shown by default; higher values with -o wide. */
  priority?: number;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** One version of the resource: its schema (spec and status Fields) and how it is served. */
export interface VersionDeclaration<Spec extends AnyField = AnyField, Status extends AnyField | undefined = AnyField | undefined> {
  /** Default true. */
  served?: boolean;
  /** Exactly one version stores; with a single version it is that one (default). */
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  /** The root schema's description. */
  description?: string;
  spec: Spec;
  status?: Status;
  /** CEL rules on the whole object (`self.spec`, `self.metadata.name`, ...). */
  validations?: (string | ValidationRule)[];
  printerColumns?: PrinterColumn[];
  subresources?: { status?: boolean; scale?: ScaleSubresource };
  /** Fields usable in field selectors (jsonPath). */
  selectableFields?: string[];
}

export interface CustomResourceDeclaration<V extends Record<string, VersionDeclaration>> {
  group: string;
  names: CustomResourceNames;
  scope: Scope;
  versions: V;
  /** metadata.labels and metadata.annotations of the CRD object. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

type SpecOf<D> = D extends VersionDeclaration<infer S, AnyField | undefined> ? S : never;
type StatusOf<D> = D extends { status: infer St } ? St : D extends { status?: infer St } ? St : undefined;

type SpecPart<S> = S extends Field<unknown, false> ? { spec: TypeOf<S> } : { spec?: TypeOf<S> };
type StatusPart<St> = [St] extends [undefined] ? object : { status?: TypeOf<Exclude<St, undefined>> };

/** The object type of one version: apiVersion, kind, metadata, spec and (if declared) status. */
export type VersionObject<D> = { apiVersion?: string; kind?: string; metadata?: ObjectMeta } & SpecPart<SpecOf<D>> & StatusPart<StatusOf<D>>;

/** The storage version's key: the one declared `storage: true`, else (a single version) every key. */
export type StorageVersionOf<V> = { [K in keyof V]: V[K] extends { storage: true } ? K : never }[keyof V] extends infer S
  ? [S] extends [never]
    ? keyof V
    : S & keyof V
  : keyof V;

/** The apiextensions.k8s.io/v1 CustomResourceDefinition this module writes (schema with the vendor extensions). */
export interface CustomResourceDefinitionManifest {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    scope: Scope;
    names: Required<Pick<CustomResourceNames, "kind" | "plural" | "singular" | "listKind">> & Pick<CustomResourceNames, "shortNames" | "categories">;
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      deprecated?: boolean;
      deprecationWarning?: string;
      subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
      additionalPrinterColumns?: PrinterColumn[];
      selectableFields?: { jsonPath: string }[];
      schema: { openAPIV3Schema: JSONSchemaProps };
    }[];
  };
}

/** What every declared custom resource has, whatever its versions (for generic code: generation, install). */
export interface CustomResourceInfo {
  /** The CRD's name, `${plural}.${group}`. */
  readonly name: string;
  readonly group: string;
  readonly names: CustomResourceDefinitionManifest["spec"]["names"];
  readonly scope: Scope;
  /** The storage version's name. */
  readonly storageVersion: string;
  /** The CRD manifest (a fresh copy on every call: callers may modify it). */
  manifest(): CustomResourceDefinitionManifest;
}

/** A declared custom resource (what `defineCustomResource` returns). */
export interface CustomResource<V extends Record<string, VersionDeclaration>> extends CustomResourceInfo {
  /** The storage version's descriptor (typed as the storage version's objects). */
  readonly resource: ResourceDescriptor<VersionObject<V[StorageVersionOf<V> & keyof V]>>;
  /** The descriptor of one version. */
  version<N extends keyof V & string>(name: N): ResourceDescriptor<VersionObject<V[N]>>;
}

/** The object type of a declared custom resource (its storage version). */
export type CustomResourceObject<C> = C extends CustomResource<infer V> ? VersionObject<V[StorageVersionOf<V> & keyof V]> : never;

export class InvalidCustomResourceError extends Error {
  constructor(
    readonly crd: string,
    message: string,
  ) {
    super(`custom resource ${crd}: ${message}`);
    this.name = "InvalidCustomResourceError";
  }
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const VERSION = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Follows a `.a.b` path through object properties; undefined when a step is not declared. */
function schemaAt(root: JSONSchemaProps, path: string): JSONSchemaProps | undefined {
  if (!path.startsWith(".")) return undefined;
  let cur: JSONSchemaProps | undefined = root;
  for (const step of path.slice(1).split(".")) {
    if (!cur) return undefined;
    if (cur["x-kubernetes-preserve-unknown-fields"] && !cur.properties?.[step]) return {};
    cur = cur.properties?.[step];
  }
  return cur;
}

function rootSchema(name: string, v: VersionDeclaration): JSONSchemaProps {
  if (!(v.spec instanceof Field)) throw new InvalidCustomResourceError(name, "spec must be a Field (k.object(...))");
  if (v.status !== undefined && !(v.status instanceof Field)) throw new InvalidCustomResourceError(name, "status must be a Field (k.object(...))");
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: v.spec.schema,
  };
  if (v.status) properties.status = v.status.schema;
  const required = v.spec.isOptional ? undefined : ["spec"];
  const root: JSONSchemaProps = { description: v.description, type: "object", required, properties };
  if (v.validations?.length) root["x-kubernetes-validations"] = v.validations.map((r) => (typeof r === "string" ? { rule: r } : { ...r }));
  for (const key of Object.keys(root) as (keyof JSONSchemaProps)[]) if (root[key] === undefined) delete root[key];
  return root;
}

/** Declares a custom resource; throws InvalidCustomResourceError for an inconsistent declaration. */
export function defineCustomResource<const V extends Record<string, VersionDeclaration>>(decl: CustomResourceDeclaration<V>): CustomResource<V> {
  const { group, scope } = decl;
  const crdName = `${decl.names.plural}.${group}`;
  const fail = (msg: string): never => {
    throw new InvalidCustomResourceError(crdName, msg);
  };
  if (!DNS1123_SUBDOMAIN.test(group) || !group.includes(".")) fail(`group "${group}" must be a lower-case DNS subdomain with at least one dot`);
  if (!KIND.test(decl.names.kind)) fail(`kind "${decl.names.kind}" must be UpperCamelCase`);
  if (!DNS1035_LABEL.test(decl.names.plural)) fail(`plural "${decl.names.plural}" must be a lower-case DNS label`);
  if (scope !== "Namespaced" && scope !== "Cluster") fail(`scope must be Namespaced or Cluster`);
  const names = {
    plural: decl.names.plural,
    singular: decl.names.singular ?? decl.names.kind.toLowerCase(),
    kind: decl.names.kind,
    listKind: decl.names.listKind ?? `${decl.names.kind}List`,
    ...(decl.names.shortNames?.length ? { shortNames: [...decl.names.shortNames] } : {}),
    ...(decl.names.categories?.length ? { categories: [...decl.names.categories] } : {}),
  };
  for (const n of [names.singular, ...(names.shortNames ?? []), ...(names.categories ?? [])]) {
    if (!DNS1035_LABEL.test(n)) fail(`name "${n}" must be a lower-case DNS label`);
  }

  const entries = Object.entries(decl.versions);
  if (entries.length === 0) fail("at least one version is needed");
  const storageNames = entries.filter(([, v]) => v.storage === true).map(([n]) => n);
  if (entries.length > 1 && storageNames.length !== 1) fail(`exactly one version must have storage: true (got ${storageNames.length})`);
  if (entries.length === 1 && entries[0][1].storage === false) fail("the only version must be the storage version");
  const storageVersion = entries.length === 1 ? entries[0][0] : storageNames[0];

  const versions: CustomResourceDefinitionManifest["spec"]["versions"] = entries.map(([vname, v]) => {
    if (!VERSION.test(vname)) fail(`version "${vname}" must be a lower-case DNS label`);
    const schema = rootSchema(crdName, v);
    for (const c of v.printerColumns ?? []) {
      if (!schemaAt(schema, c.jsonPath) && !c.jsonPath.startsWith(".metadata.")) fail(`version ${vname}: printer column ${c.name} reads ${c.jsonPath}, which the schema does not declare`);
    }
    const scale = v.subresources?.scale;
    if (scale) {
      const spec = schemaAt(schema, scale.specReplicasPath);
      const status = schemaAt(schema, scale.statusReplicasPath);
      if (!scale.specReplicasPath.startsWith(".spec.") || spec?.type !== "integer") fail(`version ${vname}: scale specReplicasPath ${scale.specReplicasPath} must name an integer under .spec`);
      if (!scale.statusReplicasPath.startsWith(".status.") || status?.type !== "integer") fail(`version ${vname}: scale statusReplicasPath ${scale.statusReplicasPath} must name an integer under .status`);
      if (scale.labelSelectorPath !== undefined) {
        const sel = schemaAt(schema, scale.labelSelectorPath);
        if (!/^\.(spec|status)\./.test(scale.labelSelectorPath) || sel?.type !== "string") fail(`version ${vname}: scale labelSelectorPath ${scale.labelSelectorPath} must name a string under .spec or .status`);
      }
    }
    if (v.subresources?.status && !v.status) fail(`version ${vname}: the status subresource needs a status schema`);
    const subresources =
      v.subresources?.status || scale
        ? { ...(v.subresources?.status ? { status: {} } : {}), ...(scale ? { scale: { ...scale } } : {}) }
        : undefined;
    return {
      name: vname,
      served: v.served ?? true,
      storage: vname === storageVersion,
      ...(v.deprecated ? { deprecated: true } : {}),
      ...(v.deprecationWarning ? { deprecationWarning: v.deprecationWarning } : {}),
      ...(subresources ? { subresources } : {}),
      ...(v.printerColumns?.length ? { additionalPrinterColumns: v.printerColumns.map((c) => ({ ...c })) } : {}),
      ...(v.selectableFields?.length ? { selectableFields: v.selectableFields.map((jsonPath) => ({ jsonPath })) } : {}),
      schema: { openAPIV3Schema: schema },
    };
  });

  const metadata: CustomResourceDefinitionManifest["metadata"] = { name: crdName };
  if (decl.labels && Object.keys(decl.labels).length) metadata.labels = { ...decl.labels };
  if (decl.annotations && Object.keys(decl.annotations).length) metadata.annotations = { ...decl.annotations };
  const manifest: CustomResourceDefinitionManifest = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata,
    spec: { group, scope, names, versions },
  };
  const json = JSON.stringify(manifest);

  const descriptors = new Map<string, ResourceDescriptor>();
  for (const [vname] of entries) {
    descriptors.set(vname, defineResource({ group, version: vname, resource: names.plural, kind: names.kind, namespaced: scope === "Namespaced" }));
  }
  const version = <N extends keyof V & string>(vname: N): ResourceDescriptor<VersionObject<V[N]>> => {
    const d = descriptors.get(vname);
    if (!d) throw new InvalidCustomResourceError(crdName, `no version "${vname}" (declared: ${entries.map(([n]) => n).join(", ")})`);
    return d as ResourceDescriptor<VersionObject<V[N]>>;
  };
  return Object.freeze({
    name: crdName,
    group,
    names: Object.freeze(names),
    scope,
    storageVersion,
    resource: descriptors.get(storageVersion) as ResourceDescriptor<VersionObject<V[StorageVersionOf<V> & keyof V]>>,
    version,
    manifest: () => JSON.parse(json) as CustomResourceDefinitionManifest,
  });
}
