/**
 * Resource-quantity field checks shared by volumes, limit ranges and quotas (core/validation):
 * a quantity that does not parse, is negative, is not positive, or is fractional where the
 * resource counts things.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { quantityNanos } from "../../apimachinery/quantity.js";

/** resource.ErrFormatWrong, what decoding a malformed quantity answers. */
export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** The value in nano-units, or an error when it is not a quantity string. */
export function quantityValue(v: unknown, field: string): { value?: bigint; errs: FieldError[] } {
  if (typeof v === "number" && Number.isFinite(v)) {
    const n = quantityNanos(String(v));
    if (n !== undefined) return { value: n, errs: [] };
  }
  if (typeof v !== "string") return { errs: [fieldErrors.invalid(field, v ?? null, quantityFormatError)] };
  const n = quantityNanos(v);
  if (n === undefined) return { errs: [fieldErrors.invalid(field, v, quantityFormatError)] };
  return { value: n, errs: [] };
}

/** ValidatePositiveQuantityValue: "must be greater than zero". */
export function validatePositiveQuantity(v: unknown, field: string): FieldError[] {
  const q = quantityValue(v, field);
  if (q.value === undefined) return q.errs;
  if (q.value <= 0n) return [fieldErrors.invalid(field, String(v), "must be greater than zero")];
  return [];
}

/** ValidateNonnegativeQuantity: "must be greater than or equal to 0". */
export function validateNonnegativeQuantity(v: unknown, field: string): FieldError[] {
  const q = quantityValue(v, field);
  if (q.value === undefined) return q.errs;
  if (q.value < 0n) return [fieldErrors.invalid(field, String(v), "must be greater than or equal to 0")];
  return [];
}

/**
 * Resources counted in whole units (helper.IsIntegerResourceName): object counts, pods,
 * extended resources, and the quota names built on them.
 */
export function isIntegerResourceName(name: string): boolean {
  if (["pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"].includes(name)) {
    return true;
  }
  if (name.startsWith("count/")) return true;
  if (name.startsWith("requests.") && isExtendedResourceName(name.slice("requests.".length))) return true;
  return isExtendedResourceName(name);
}

/** helper.IsExtendedResourceName: a domain-qualified name outside kubernetes.io and not requests.*. */
export function isExtendedResourceName(name: string): boolean {
  if (name.startsWith("requests.")) return false;
  const slash = name.indexOf("/");
  if (slash < 0) return false;
  const domain = name.slice(0, slash);
  if (domain === "kubernetes.io" || domain.endsWith(".kubernetes.io")) return false;
  return true;
}

/** ValidateResourceQuantityValue: non-negative, and whole for integer resources. */
export function validateResourceQuantityValue(resource: string, v: unknown, field: string): FieldError[] {
  const errs = validateNonnegativeQuantity(v, field);
  if (errs.length) return errs;
  if (isIntegerResourceName(resource)) {
    const n = quantityValue(v, field).value ?? 0n;
    if (n % 1_000_000_000n !== 0n) return [fieldErrors.invalid(field, String(v), "must be an integer")];
  }
  return [];
}
