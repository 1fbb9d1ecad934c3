/**
 * networking.k8s.io/v1 IngressClasses: parameters default to scope Cluster; the controller is
 * a domain-prefixed path of at most 250 characters and immutable; parameters reference a kind
 * and name (an apiGroup DNS subdomain), scope Cluster or Namespace, a namespace exactly when the
 * scope is Namespace. Generation 1 on create, bumped on spec changes.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSLabel, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { validateDomainPrefixedPath } from "./identifiers.js";
import { validateTypedLocalObjectReference } from "./ingresses.js";
import { validateImmutableField } from "./meta.js";
import { rec, str } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const maxLenController = 250;

export function defaultIngressClass(obj: KubeObject): void {
  const params = rec(rec(obj.spec)?.parameters);
  if (params) params.scope ??= "Cluster";
}

export function validateIngressClassSpec(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec) ?? {};
  const errs: FieldError[] = [];
  const controller = str(spec.controller) ?? "";
  if (controller.length > maxLenController) errs.push(fieldErrors.tooLong("spec.controller", "", maxLenController));
  errs.push(...validateDomainPrefixedPath("spec.controller", controller));
  const params = rec(spec.parameters);
  if (params) {
    errs.push(...validateTypedLocalObjectReference(params, "spec.parameters"));
    if (params.scope === undefined || params.scope === null) errs.push(fieldErrors.required("spec.parameters.scope", ""));
    else if (params.scope !== "Cluster" && params.scope !== "Namespace") errs.push(fieldErrors.notSupported("spec.parameters.scope", params.scope, ["Cluster", "Namespace"]));
    else if (params.scope === "Namespace") {
      if (typeof params.namespace !== "string") errs.push(fieldErrors.required("spec.parameters.namespace", "`parameters.scope` is set to 'Namespace'"));
      else for (const msg of nameIsDNSLabel(params.namespace, false)) errs.push(fieldErrors.invalid("spec.parameters.namespace", params.namespace, msg));
    } else if (params.namespace !== undefined && params.namespace !== null) {
      errs.push(fieldErrors.forbidden("spec.parameters.namespace", "`parameters.scope` is set to 'Cluster'"));
    }
  }
  return errs;
}

export const ingressClassStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "IngressClass",
    resource: "ingressclasses",
    singular: "ingressclass",
    listKind: "IngressClassList",
    shortNames: [],
    categories: [],
    namespaced: false,
  },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultIngressClass,
  updateChecksFirst: true,
  validateSpec: validateIngressClassSpec,
  validateUpdate: (obj, old) => validateImmutableField(rec(obj.spec)?.controller, rec(old.spec)?.controller, "spec.controller"),
});
