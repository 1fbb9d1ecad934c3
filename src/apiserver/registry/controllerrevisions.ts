/**
 * apps/v1 ControllerRevisions (the history of StatefulSets and DaemonSets): `data` is required
 * ("data is mandatory") and immutable, `revision` is non-negative; no status, no generation.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { validateImmutableField, validateNonnegative } from "./meta.js";
import type { ResourceStrategy } from "./strategy.js";

function validateControllerRevision(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.data === undefined || obj.data === null) errs.push(fieldErrors.required("data", "data is mandatory"));
  errs.push(...validateNonnegative(typeof obj.revision === "number" ? obj.revision : 0, "revision"));
  return errs;
}

export const controllerRevisionStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "apps",
    version: "v1",
    kind: "ControllerRevision",
    resource: "controllerrevisions",
    singular: "controllerrevision",
    listKind: "ControllerRevisionList",
    shortNames: [],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  validateSpec: validateControllerRevision,
  validateUpdate: (obj, old) => validateImmutableField(obj.data, old.data, "data"),
});
