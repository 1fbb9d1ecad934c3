/**
 * Kubernetes' format library (library/format.go): `format.named(name)` (an optional
 * NamedFormat), `format.dns1123Label()` and the other named formats, and
 * `NamedFormat.validate(s)`, which is optional.none() for a valid string and otherwise the list
 * of apimachinery's validation messages.
 */
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from "../../../apimachinery/validation.js";
import { Library, memberOverload, overload } from "../decls.js";
import { parseTimestamp } from "../time.js";
import { T } from "../types.js";
import { CelOptional, ExtensionValue, type CelObject, type Val } from "../values.js";

export const NamedFormatType = T.object("kubernetes.NamedFormat");

const maskTrailingDash = (s: string) => (s.length > 1 && s.endsWith("-") ? `${s.slice(0, -1)}a` : s);

const formats: Record<string, (s: string) => string[]> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  dns1035Label: isDNS1035Label,
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: (s) => isDNS1123Label(maskTrailingDash(s)),
  dns1123SubdomainPrefix: (s) => isDNS1123Subdomain(maskTrailingDash(s)),
  dns1035LabelPrefix: (s) => isDNS1035Label(maskTrailingDash(s)),
  labelValue: isValidLabelValue,
  uri: (s) => (/^[a-zA-Z][a-zA-Z0-9+.-]*:|^\//.test(s) ? [] : ["invalid URI"]),
  uuid: (s) => (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(s) ? [] : ["does not match the UUID format"]),
  byte: (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ["invalid base64"]),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) ? [] : ["invalid date"]),
  datetime: (s) => {
    try {
      parseTimestamp(s);
      return [];
    } catch {
      return ["invalid datetime"];
    }
  },
};

class NamedFormatValue extends ExtensionValue {
  readonly celType = NamedFormatType;
  constructor(readonly name: string) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof NamedFormatValue && other.name === this.name;
  }
}

export function formatLibrary(): Library {
  const lib = new Library();
  lib.add(
    "format.named",
    overload("format-named", [T.string], T.optional(NamedFormatType), ([n]) => (formats[n as string] ? CelOptional.of(new NamedFormatValue(n as string)) : CelOptional.none)),
  );
  for (const name of Object.keys(formats)) {
    lib.add(`format.${name}`, overload(`format-${name}`, [], NamedFormatType, () => new NamedFormatValue(name)));
  }
  lib.add(
    "validate",
    memberOverload("check-format", [NamedFormatType, T.string], T.optional(T.list(T.string)), ([f, s]: readonly Val[]) => {
      const errs = formats[(f as NamedFormatValue).name](s as string);
      return errs.length ? CelOptional.of(errs) : CelOptional.none;
    }),
  );
  return lib;
}
