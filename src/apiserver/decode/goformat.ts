/**
 * Go's fmt verbs for the untyped JSON values (map[string]interface{}, []interface{}, string,
 * int64, float64, bool, nil) that appear in upstream's error messages: `%v` / `%+v` (a strategic
 * merge patch printed in an Invalid value) and `%#v` (structured-merge-diff's messages).
 * Integers are int64 (sigs.k8s.io/json's PreserveInts), other numbers float64.
 */

/** strconv.FormatFloat(f, 'g', -1, 64) as fmt's %v prints a float64. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  // Shortest round-trip digits and decimal exponent, from JavaScript's own shortest form.
  const [mant, expPart] = Math.abs(f).toExponential().split("e");
  const digits = mant.replace(".", "");
  const exp = Number(expPart);
  const sign = f < 0 ? "-" : "";
  if (exp < -4 || exp >= 6) {
    // %e: d.ddde±XX (at least two exponent digits).
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
  }
  // %f with just the digits needed.
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return sign + digits + "0".repeat(exp + 1 - digits.length);
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

const isInt = (v: number) => Number.isInteger(v) && Math.abs(v) < 2 ** 63;

/** `%v` (= `%+v` here: there are no structs) of an untyped value. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return isInt(v) ? String(v) : goFloat(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  const o = v as Record<string, unknown>;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${goValue(o[k])}`)
    .join(" ")}]`;
}

/** strconv.Quote for the ASCII-and-UTF-8 strings of API objects. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c === 7) out += "\\a";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c === 9) out += "\\t";
    else if (c === 11) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `%#v` of an untyped value held in an interface{}. */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return "interface {}(nil)";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return isInt(v) ? String(v) : goFloat(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(", ")}}`;
  const o = v as Record<string, unknown>;
  return `map[string]interface {}{${Object.keys(o)
    .sort()
    .map((k) => `${goQuote(k)}:${goSyntax(o[k])}`)
    .join(", ")}}`;
}

/** `%T` of an untyped value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return isInt(v) ? "int64" : "float64";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}
