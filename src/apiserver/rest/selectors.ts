/**
 * Label and field selectors for lists, watches and deletecollection. Parsing is apimachinery's
 * (labels.ts / fields.ts); this module turns a pair of selectors into a predicate on stored
 * objects and rejects field labels the resource does not support, with upstream's messages.
 */
import { StatusError } from "../../apimachinery/errors.js";
import { parseSelector } from "../../apimachinery/labels.js";
import { parseFieldSelector } from "../../apimachinery/fields.js";
import type { KubeObject } from "../../apimachinery/types.js";

export type ObjectPredicate = (obj: KubeObject) => boolean;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A predicate for `labelSelector` and `fieldSelector`, or undefined when both are empty.
 * `fieldSet` gives the selectable fields of an object; `supported` the field labels allowed.
 */
export function selectionPredicate(
  labelSelector: string,
  fieldSelector: string,
  fieldSet: (obj: KubeObject) => Record<string, string>,
  supported: (key: string) => boolean,
): ObjectPredicate | undefined {
  const ls = labelSelector.trim();
  const fs = fieldSelector.trim();
  if (ls === "" && fs === "") return undefined;
  let labelMatch: ((labels: Record<string, string>) => boolean) | undefined;
  let fieldMatch: ((fields: Record<string, string>) => boolean) | undefined;
  if (ls !== "") {
    try {
      const sel = parseSelector(ls);
      labelMatch = (l) => sel.matches(l);
    } catch (err) {
      throw StatusError.badRequest(message(err));
    }
  }
  if (fs !== "") {
    let sel;
    try {
      sel = parseFieldSelector(fs);
    } catch (err) {
      throw StatusError.badRequest(message(err));
    }
    for (const r of sel.requirements()) {
      if (!supported(r.field)) throw StatusError.badRequest(`field label not supported: ${r.field}`);
    }
    const parsed = sel;
    fieldMatch = (f) => parsed.matches(f);
  }
  return (obj) => {
    if (labelMatch && !labelMatch((obj.metadata?.labels ?? {}) as Record<string, string>)) return false;
    if (fieldMatch && !fieldMatch(fieldSet(obj))) return false;
    return true;
  };
}
