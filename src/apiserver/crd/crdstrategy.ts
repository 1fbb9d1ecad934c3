/**
 * The strategy of apiextensions.k8s.io/v1 CustomResourceDefinitions (apiextensions-apiserver
 * registry/customresourcedefinition): cluster-scoped, status subresource, generation bumped on
 * spec changes, v1 defaults (singular from kind, listKind = kind + "List", conversion None,
 * conversion webhook service port 443),
 * the storage version recorded in status.storedVersions on every write, validation in
 * crdvalidation.ts. Conditions and accepted names are the controller's (controller.ts).
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "../registry/define.js";
import type { ResourceStrategy } from "../registry/strategy.js";
import { validateCRD, validateCRDStatusUpdate, validateCRDUpdate } from "./crdvalidation.js";
import { isObject } from "./schema.js";
import { crdGroup, crdResource, versionsOf, type CRDStatus } from "./types.js";

/** SetDefaults for v1 CRDs, plus Go's zero values for the required booleans JSON may omit. */
export function defaultCRD(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  if (isObject(spec.names)) {
    const names = spec.names;
    if ((names.singular === undefined || names.singular === "") && typeof names.kind === "string") names.singular = names.kind.toLowerCase();
    if ((names.listKind === undefined || names.listKind === "") && typeof names.kind === "string" && names.kind !== "") names.listKind = `${names.kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: "None" };
  // SetDefaults_ServiceReference: a conversion webhook's service port is 443.
  const conv = spec.conversion;
  if (isObject(conv) && isObject(conv.webhook) && isObject(conv.webhook.clientConfig) && isObject(conv.webhook.clientConfig.service)) {
    conv.webhook.clientConfig.service.port ??= 443;
  }
  if (Array.isArray(spec.versions)) {
    for (const v of spec.versions) {
      if (!isObject(v)) continue;
      v.served ??= false;
      v.storage ??= false;
    }
  }
}

function recordStorageVersion(obj: KubeObject): void {
  const storage = versionsOf(obj).find((v) => v.storage === true);
  if (!storage) return;
  const status = (isObject(obj.status) ? obj.status : (obj.status = {})) as CRDStatus;
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (!stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
}

const defined = defineStrategy({
  names: {
    group: crdGroup,
    version: "v1",
    kind: "CustomResourceDefinition",
    resource: crdResource,
    singular: "customresourcedefinition",
    listKind: "CustomResourceDefinitionList",
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    namespaced: false,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  emptyStatus: () => ({ acceptedNames: { plural: "", kind: "" } }),
  defaults: defaultCRD,
  prepareForCreate: recordStorageVersion,
  prepareForUpdate: recordStorageVersion,
  skipObjectMetaValidation: true,
  validateCreate: validateCRD,
  validateUpdate: (obj, old) => validateCRDUpdate(obj, old),
  allowUnconditionalUpdate: false,
});

export const customResourceDefinitionStrategy: ResourceStrategy = {
  ...defined,
  // Generic metadata rules (the core API's finalizer-name rule does not apply to CRDs).
  validateStatusUpdate: validateCRDStatusUpdate,
};
