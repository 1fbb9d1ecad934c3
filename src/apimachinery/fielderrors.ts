/**
 * Field validation errors, as apimachinery's util/validation/field: a path, a type, the bad value
 * and a detail. `StatusError.invalid` turns a list of them into a 422 Status with causes.
 */

export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "InternalError"
  | "FieldValueTypeInvalid";

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

/** A marker for "no value to print" (Required, Forbidden and friends omit the value). */
export const omitValue: unique symbol = Symbol("omitValue");

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    /** The JSON path of the field, e.g. "spec.template.spec.containers[0].image". */
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string,
  ) {}

  /** "Invalid value: -1: must be greater than or equal to 0" — the message without the field. */
  body(): string {
    let s = typeText[this.type];
    const omit =
      this.badValue === omitValue ||
      this.type === "FieldValueRequired" ||
      this.type === "FieldValueForbidden" ||
      this.type === "FieldValueTooLong" ||
      this.type === "InternalError";
    if (!omit) s += `: ${formatValue(this.badValue)}`;
    if (this.detail !== "") s += `: ${this.detail}`;
    return s;
  }

  /** "spec.replicas: Invalid value: -1: must be greater than or equal to 0". */
  toString(): string {
    return `${this.field}: ${this.body()}`;
  }
}

/** A bad value already printed as Go prints it (e.g. a struct's %#v), shown verbatim. */
export class GoSyntax {
  constructor(readonly text: string) {}
}

/** Formats a bad value as kube-apiserver does: strings quoted, numbers and booleans bare. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (v instanceof GoSyntax) return v.text;
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

export const fieldErrors = {
  required: (field: string, detail = "") => new FieldError("FieldValueRequired", field, omitValue, detail),
  invalid: (field: string, value: unknown, detail: string) => new FieldError("FieldValueInvalid", field, value, detail),
  notSupported: (field: string, value: unknown, supported: readonly string[]) =>
    new FieldError(
      "FieldValueNotSupported",
      field,
      value,
      supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}` : "",
    ),
  forbidden: (field: string, detail: string) => new FieldError("FieldValueForbidden", field, omitValue, detail),
  duplicate: (field: string, value: unknown) => new FieldError("FieldValueDuplicate", field, value, ""),
  notFound: (field: string, value: unknown) => new FieldError("FieldValueNotFound", field, value, ""),
  tooLong: (field: string, _value: unknown, maxLength: number) =>
    new FieldError(
      "FieldValueTooLong",
      field,
      omitValue,
      maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}` : "value is too long",
    ),
  tooMany: (field: string, actual: number, max: number) =>
    new FieldError(
      "FieldValueTooMany",
      field,
      actual >= 0 ? actual : omitValue,
      max >= 0 ? `must have at most ${max} ${max === 1 ? "item" : "items"}` : "has too many items",
    ),
  typeInvalid: (field: string, value: unknown, detail: string) => new FieldError("FieldValueTypeInvalid", field, value, detail),
  internal: (field: string, err: Error) => new FieldError("InternalError", field, omitValue, err.message),
};

/** The aggregate message of an error list: one error alone, several as "[a, b]" (utilerrors.Aggregate). */
export function aggregateMessage(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map((e) => e.toString()))];
  if (msgs.length === 1) return msgs[0];
  return `[${msgs.join(", ")}]`;
}
