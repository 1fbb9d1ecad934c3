/**
 * coordination.k8s.io/v1 Leases: no defaults; leaseDurationSeconds > 0, leaseTransitions ≥ 0,
 * strategy (when set) a known value, preferredHolder only with a strategy.
 */
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isQualifiedName, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import type { ResourceStrategy } from "./strategy.js";

const asLease = (o: KubeObject) => o as unknown as Lease & { spec?: { strategy?: string; preferredHolder?: string } };

export function validateLeaseSpec(obj: KubeObject): FieldError[] {
  const spec = asLease(obj).spec ?? {};
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds != null && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldErrors.invalid("spec.leaseDurationSeconds", spec.leaseDurationSeconds, "must be greater than 0"));
  }
  if (spec.leaseTransitions != null && spec.leaseTransitions < 0) {
    errs.push(fieldErrors.invalid("spec.leaseTransitions", spec.leaseTransitions, "must be greater than or equal to 0"));
  }
  if (spec.strategy != null && spec.strategy !== "OldestEmulationVersion") {
    if (!spec.strategy.includes("/")) {
      errs.push(fieldErrors.notSupported("spec.strategy", spec.strategy, ["OldestEmulationVersion"]));
    } else {
      for (const msg of isQualifiedName(spec.strategy)) errs.push(fieldErrors.invalid("spec.strategy", spec.strategy, msg));
    }
  }
  if (spec.preferredHolder && !spec.strategy) {
    errs.push(fieldErrors.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
  }
  return errs;
}

export const leaseStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "coordination.k8s.io",
    version: "v1",
    kind: "Lease",
    resource: "leases",
    singular: "lease",
    listKind: "LeaseList",
    shortNames: [],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  validateSpec: validateLeaseSpec,
});
