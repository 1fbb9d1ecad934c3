/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies (+status) and their bindings,
 * MutatingAdmissionPolicies and their bindings (v1 and served by default since 1.36).
 *
 * Defaults: failurePolicy Fail; matchConstraints / matchResources get matchPolicy Equivalent,
 * empty selectors and rule scope "*"; a paramRef's parameterNotFoundAction is Deny.
 * Validation follows pkg/apis/admissionregistration/validation for what users write: required
 * matchConstraints with resource rules, param kinds and refs, variables, validations (message
 * without line breaks, reason Forbidden|Invalid|RequestEntityTooLarge), audit annotations (≤ 20,
 * unique keys, `<policy>/<key>` a qualified name, value expressions ≤ 5 KiB), validation actions
 * (Deny, Warn, Audit; not Deny with Warn), mutations (patchType ApplyConfiguration|JSONPatch with
 * the matching expression) and reinvocationPolicy. CEL expressions are not compiled, so
 * status.typeChecking is never filled (see the module comment of admissionrules.ts).
 *
 * generation starts at 1 and follows spec changes; policies keep their status on updates.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isQualifiedName, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import {
  admissionGroup,
  defaultMatchResources,
  defaultParamRef,
  invalidSlice,
  specOf,
  validateFailurePolicy,
  validateMatchConditions,
  validateMatchConstraints,
  validateMatchResources,
  validateParamKind,
  validateParamRef,
  validatePolicyName,
  validateVariables,
} from "./admissionrules.js";
import { defineStrategy, resourceNames } from "./define.js";
import { child, index } from "./path.js";
import { fieldsOf, has, rec, records, strings, text, type Obj } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;
const validationReasons = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
const validationActions = ["Audit", "Deny", "Warn"];
const reinvocationPolicies = ["IfNeeded", "Never"];
const patchTypes = ["ApplyConfiguration", "JSONPatch"];

function spec(obj: KubeObject): Obj {
  return rec(fieldsOf(obj).spec) ?? {};
}

const names = (kind: string, resource: string) => resourceNames(admissionGroup, "v1", kind, { resource, namespaced: false, categories: ["api-extensions"] });

// ---- defaults ------------------------------------------------------------------------------

export function defaultPolicy(obj: KubeObject): void {
  const s = specOf(fieldsOf(obj));
  if (!has(s, "failurePolicy")) s.failurePolicy = "Fail";
  const mc = rec(s.matchConstraints);
  if (mc) defaultMatchResources(mc);
}

export function defaultBinding(obj: KubeObject): void {
  const s = specOf(fieldsOf(obj));
  const mr = rec(s.matchResources);
  if (mr) defaultMatchResources(mr);
  defaultParamRef(s.paramRef);
}

// ---- ValidatingAdmissionPolicy -------------------------------------------------------------

function validateValidations(s: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  records(s.validations).forEach((v, i) => {
    const p = index(child(field, "validations"), i);
    if (text(v.expression).trim() === "") errs.push(fieldErrors.required(child(p, "expression"), "expression is not specified"));
    const msgExpr = text(v.messageExpression);
    if (msgExpr.length > 0 && msgExpr.trim() === "") errs.push(fieldErrors.invalid(child(p, "messageExpression"), msgExpr, "must be non-empty if specified"));
    const msg = text(v.message);
    if (msg.length > 0 && msg.trim() === "") errs.push(fieldErrors.invalid(child(p, "message"), msg, "message must be non-empty if specified"));
    else if (/[\n\r]/.test(msg.trim())) errs.push(fieldErrors.invalid(child(p, "message"), msg, "message must not contain line breaks"));
    if (has(v, "reason") && !validationReasons.includes(String(v.reason))) errs.push(fieldErrors.notSupported(child(p, "reason"), v.reason, validationReasons));
  });
  return errs;
}

function validateAuditAnnotations(s: Obj, policyName: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const annotations = records(s.auditAnnotations);
  if (!Array.isArray(s.auditAnnotations)) return errs;
  const f = child(field, "auditAnnotations");
  if (annotations.length > maxAuditAnnotations) {
    errs.push(fieldErrors.invalid(f, s.auditAnnotations, `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  }
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const p = index(f, i);
    const key = text(a.key);
    if (policyName.length !== 0) {
      const full = `${policyName}/${key}`;
      for (const msg of isQualifiedName(full)) errs.push(fieldErrors.invalid(child(p, "key"), full, msg));
    } else {
      errs.push(fieldErrors.invalid(child(p, "key"), key, "requires metadata.name be non-empty"));
    }
    const value = text(a.valueExpression).trim();
    if (value.length === 0) errs.push(fieldErrors.required(child(p, "valueExpression"), "valueExpression is not specified"));
    else if (value.length > maxAuditAnnotationValueExpressionLength) {
      errs.push(fieldErrors.required(child(p, "valueExpression"), `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
    }
    if (keys.has(key)) errs.push(fieldErrors.duplicate(child(p, "key"), key));
    keys.add(key);
  });
  return errs;
}

/** What validating and mutating policies share: failurePolicy, paramKind, matchConstraints, matchConditions, variables. */
function validatePolicyCommon(s: Obj): FieldError[] {
  const errs = validateFailurePolicy(s, "spec.failurePolicy");
  const pk = rec(s.paramKind);
  if (pk) errs.push(...validateParamKind(pk, "spec.paramKind"));
  errs.push(...validateMatchConstraints(s, "spec.matchConstraints"));
  errs.push(...validateMatchConditions(s.matchConditions, "spec.matchConditions"));
  errs.push(...validateVariables(s.variables, "spec.variables"));
  return errs;
}

export function validateValidatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  const s = spec(obj);
  const errs = validatePolicyCommon(s);
  if (records(s.validations).length === 0 && records(s.auditAnnotations).length === 0) {
    errs.push(fieldErrors.required("spec.validations", "validations or auditAnnotations must contain at least one item"));
    errs.push(fieldErrors.required("spec.auditAnnotations", "validations or auditAnnotations must contain at least one item"));
  } else {
    errs.push(...validateValidations(s, "spec"));
    errs.push(...validateAuditAnnotations(s, obj.metadata?.name ?? "", "spec"));
  }
  return errs;
}

/** metav1 ValidateConditions on a status.conditions list. */
function validateConditions(conditions: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const reason = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
  records(conditions).forEach((c, i) => {
    const p = index(field, i);
    const type = text(c.type);
    if (seen.has(type)) errs.push(fieldErrors.duplicate(child(p, "type"), type));
    seen.add(type);
    for (const msg of isQualifiedName(type)) errs.push(fieldErrors.invalid(child(p, "type"), type, msg));
    if (!["False", "True", "Unknown"].includes(String(c.status))) errs.push(fieldErrors.notSupported(child(p, "status"), c.status ?? "", ["False", "True", "Unknown"]));
    const gen = c.observedGeneration;
    if (typeof gen === "number" && gen < 0) errs.push(fieldErrors.invalid(child(p, "observedGeneration"), gen, "must be greater than or equal to zero"));
    if (text(c.lastTransitionTime) === "") errs.push(fieldErrors.required(child(p, "lastTransitionTime"), ""));
    const r = text(c.reason);
    if (r === "") errs.push(fieldErrors.required(child(p, "reason"), ""));
    else {
      if (!reason.test(r)) {
        errs.push(
          fieldErrors.invalid(
            child(p, "reason"),
            r,
            "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
          ),
        );
      }
      if (r.length > 1024) errs.push(fieldErrors.tooLong(child(p, "reason"), "", 1024));
    }
    if (text(c.message).length > 32 * 1024) errs.push(fieldErrors.tooLong(child(p, "message"), "", 32 * 1024));
  });
  return errs;
}

function validatePolicyStatus(obj: KubeObject): FieldError[] {
  const status = rec(fieldsOf(obj).status) ?? {};
  const errs: FieldError[] = [];
  records(rec(status.typeChecking)?.expressionWarnings).forEach((w, i) => {
    const p = index("status.typeChecking.expressionWarnings", i);
    if (text(w.warning) === "") errs.push(fieldErrors.required(child(p, "warning"), ""));
    if (text(w.fieldRef).trim() === "") errs.push(fieldErrors.required(child(p, "fieldRef"), ""));
  });
  errs.push(...validateConditions(status.conditions, "status.conditions"));
  return errs;
}

export const validatingAdmissionPolicyStrategy: ResourceStrategy = defineStrategy({
  names: names("ValidatingAdmissionPolicy", "validatingadmissionpolicies"),
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultPolicy,
  validateSpec: validateValidatingAdmissionPolicy,
  validateStatus: (obj) => validatePolicyStatus(obj),
});

// ---- ValidatingAdmissionPolicyBinding ------------------------------------------------------

function validateValidationActions(v: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const actions = strings(v);
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!validationActions.includes(a)) errs.push(fieldErrors.notSupported(index(field, i), a, validationActions));
    if (seen.has(a)) errs.push(fieldErrors.duplicate(index(field, i), a));
    seen.add(a);
  });
  if (seen.has("Deny") && seen.has("Warn")) {
    errs.push(
      invalidSlice(
        field,
        actions,
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        "admissionregistration.ValidationAction",
      ),
    );
  }
  if (seen.size === 0) errs.push(fieldErrors.required(field, "at least one validation action is required"));
  return errs;
}

function validateBindingCommon(s: Obj): FieldError[] {
  const errs = validatePolicyName(s, "spec.policyName");
  errs.push(...validateParamRef(s.paramRef, "spec.paramRef"));
  errs.push(...validateMatchResources(rec(s.matchResources), "spec.matchResources"));
  return errs;
}

export const validatingAdmissionPolicyBindingStrategy: ResourceStrategy = defineStrategy({
  names: names("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings"),
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultBinding,
  validateSpec(obj) {
    const s = spec(obj);
    return [...validateBindingCommon(s), ...validateValidationActions(s.validationActions, "spec.validationActions")];
  },
});

// ---- MutatingAdmissionPolicy ---------------------------------------------------------------

function validateMutations(s: Obj): FieldError[] {
  const all = records(s.mutations);
  if (all.length === 0) return [fieldErrors.required("spec.mutations", "mutations must contain at least one item")];
  const errs: FieldError[] = [];
  all.forEach((m, i) => {
    const p = index("spec.mutations", i);
    const type = m.patchType;
    const apply = rec(m.applyConfiguration);
    const jsonPatch = rec(m.jsonPatch);
    if (type === "ApplyConfiguration") {
      if (!apply) errs.push(fieldErrors.required(child(p, "applyConfiguration"), "must be specified when patchType is ApplyConfiguration"));
      else if (text(apply.expression).trim() === "") errs.push(fieldErrors.required(child(p, "applyConfiguration", "expression"), ""));
      if (jsonPatch) errs.push(fieldErrors.forbidden(child(p, "jsonPatch"), "must not be specified when patchType is ApplyConfiguration"));
    } else if (type === "JSONPatch") {
      if (!jsonPatch) errs.push(fieldErrors.required(child(p, "jsonPatch"), "must be specified when patchType is JSONPatch"));
      else if (text(jsonPatch.expression).trim() === "") errs.push(fieldErrors.required(child(p, "jsonPatch", "expression"), ""));
      if (apply) errs.push(fieldErrors.forbidden(child(p, "applyConfiguration"), "must not be specified when patchType is JSONPatch"));
    } else if (type === undefined || type === null || type === "") {
      errs.push(fieldErrors.required(child(p, "patchType"), ""));
    } else {
      errs.push(fieldErrors.notSupported(child(p, "patchType"), type, patchTypes));
    }
  });
  return errs;
}

export function validateMutatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  const s = spec(obj);
  const errs = validatePolicyCommon(s);
  errs.push(...validateMutations(s));
  const rp = s.reinvocationPolicy;
  if (rp === undefined || rp === null || rp === "") errs.push(fieldErrors.required("spec.reinvocationPolicy", ""));
  else if (!reinvocationPolicies.includes(String(rp))) errs.push(fieldErrors.notSupported("spec.reinvocationPolicy", rp, reinvocationPolicies));
  return errs;
}

export const mutatingAdmissionPolicyStrategy: ResourceStrategy = defineStrategy({
  names: names("MutatingAdmissionPolicy", "mutatingadmissionpolicies"),
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultPolicy,
  validateSpec: validateMutatingAdmissionPolicy,
});

export const mutatingAdmissionPolicyBindingStrategy: ResourceStrategy = defineStrategy({
  names: names("MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings"),
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultBinding,
  validateSpec: (obj) => validateBindingCommon(spec(obj)),
});
