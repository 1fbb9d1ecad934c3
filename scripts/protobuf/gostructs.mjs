/**
 * What generated.proto does not say about a Kubernetes API package, read from its Go source
 * (types.go and friends) through the API generator's Go reader (scripts/apigen/gosource.mjs):
 * JSON names, omitempty/omitzero, pointer-ness, embedding (`json:",inline"`), and which messages
 * are Go named slices (`type ExtraValue []string`).
 *
 * readGoPackageFile(text, file) → { types: Map<typeName, GoType>, imports: Map<localName, importPath> }
 *   GoType = { kind: "struct", fields: GoField[] } | { kind: "other", expr: string }
 *   GoField = { name: string | undefined (embedded), type: string (Go syntax, e.g. "*int32",
 *               "[]metav1.Condition", "map[string]string"), tags: Record<string, string> }
 */
import { parseGoFile } from "../apigen/gosource.mjs";

/** Parses `key:"value"` pairs of a Go struct tag. */
export function parseTag(tag) {
  const out = {};
  const re = /([a-zA-Z_]+):"((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(tag)) !== null) out[m[1]] = m[2];
  return out;
}

/** A type expression in Go syntax. */
function exprText(t) {
  switch (t.k) {
    case "ident":
      return t.name;
    case "qual":
      return `${t.pkg}.${t.name}`;
    case "ptr":
      return `*${exprText(t.elem)}`;
    case "slice":
      return `[]${exprText(t.elem)}`;
    case "array":
      return `[${t.len}]${exprText(t.elem)}`;
    case "map":
      return `map[${exprText(t.key)}]${exprText(t.elem)}`;
    case "interface":
      return "interface{}";
    case "func":
      return "func()";
    case "struct":
      throw new Error("nested struct literal not supported");
    default:
      throw new Error(`unknown type expression ${JSON.stringify(t)}`);
  }
}

export function readGoPackageFile(src, file) {
  const go = parseGoFile(src, file);
  const types = new Map();
  for (const d of go.types) {
    if (d.type.k !== "struct") {
      types.set(d.name, { kind: "other", expr: exprText(d.type) });
      continue;
    }
    const fields = [];
    for (const f of d.type.fields) {
      const tags = parseTag(f.tag);
      let type;
      try {
        type = exprText(f.type);
      } catch (err) {
        throw new Error(`type ${d.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (f.embedded) fields.push({ name: undefined, type, tags });
      else for (const name of f.names) fields.push({ name, type, tags });
    }
    types.set(d.name, { kind: "struct", fields });
  }
  return { types, imports: go.imports };
}
