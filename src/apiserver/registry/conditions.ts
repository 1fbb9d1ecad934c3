/**
 * metav1.Condition lists, as apimachinery's ValidateConditions checks them (PDB status and the
 * other types that use the standard condition): a qualified type, unique per list; status True,
 * False or Unknown; a non-negative observedGeneration; lastTransitionTime and reason set, the
 * reason in CamelCase-ish form of at most 1 KiB; a message of at most 32 KiB.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { regexError, utf8Length } from "../../apimachinery/validation.js";
import { validateLabelName } from "./meta.js";
import { child, index } from "./path.js";
import { rec, list } from "./shape.js";

const maxReasonLen = 1024;
const maxMessageLen = 32 * 1024;
const reasonFmt = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?";
const reasonRegexp = new RegExp(`^${reasonFmt}$`);
const reasonErrMsg =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";

export function validateConditions(conditions: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list<unknown>(conditions).forEach((raw, i) => {
    const c = rec(raw) ?? {};
    const p = index(field, i);
    const type = typeof c.type === "string" ? c.type : "";
    if (seen.has(type)) errs.push(fieldErrors.duplicate(child(p, "type"), type));
    else seen.add(type);
    errs.push(...validateLabelName(type, child(p, "type")));
    if (c.status !== "True" && c.status !== "False" && c.status !== "Unknown") {
      errs.push(fieldErrors.notSupported(child(p, "status"), c.status ?? "", ["False", "True", "Unknown"]));
    }
    if (typeof c.observedGeneration === "number" && c.observedGeneration < 0) {
      errs.push(fieldErrors.invalid(child(p, "observedGeneration"), c.observedGeneration, "must be greater than or equal to zero"));
    }
    if (!c.lastTransitionTime) errs.push(fieldErrors.required(child(p, "lastTransitionTime"), "must be set"));
    const reason = typeof c.reason === "string" ? c.reason : "";
    if (reason === "") errs.push(fieldErrors.required(child(p, "reason"), "must be set"));
    else {
      if (!reasonRegexp.test(reason)) {
        errs.push(fieldErrors.invalid(child(p, "reason"), reason, regexError(reasonErrMsg, reasonFmt, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")));
      }
      if (utf8Length(reason) > maxReasonLen) errs.push(fieldErrors.tooLong(child(p, "reason"), reason, maxReasonLen));
    }
    if (typeof c.message === "string" && utf8Length(c.message) > maxMessageLen) errs.push(fieldErrors.tooLong(child(p, "message"), c.message, maxMessageLen));
  });
  return errs;
}
