/**
 * Reads the type declarations of a Kubernetes API package's Go source (types.go and friends):
 * what generated.proto does not say — JSON names, omitempty/omitzero, pointer-ness, embedding
 * (`json:",inline"`), and which messages are Go named slices (`type ExtraValue []string`).
 *
 * parseGoTypes(text) → Map<typeName, GoType>
 *   GoType = { kind: "struct", fields: GoField[] } | { kind: "other", expr: string }
 *   GoField = { name: string | undefined (embedded), type: string (e.g. "*int32",
 *               "[]metav1.Condition", "map[string]string"), tags: Record<string, string> }
 * Only top-level `type X struct { ... }` and `type X expr` declarations are read, which is all
 * these files contain (checked by the generator: every proto message must find its Go type).
 */

/** Removes comments (line and block), keeping string and raw-string literals intact. */
function stripComments(src) {
  let out = "";
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      i = end < 0 ? src.length : end + 2;
    } else if (c === "`" || c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += c === '"' && src[j] === "\\" ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Parses `key:"value"` pairs of a Go struct tag. */
export function parseTag(tag) {
  const out = {};
  const re = /([a-zA-Z_]+):"((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(tag)) !== null) out[m[1]] = m[2];
  return out;
}

export function parseGoTypes(src) {
  const text = stripComments(src);
  const types = new Map();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m = /^type\s+([A-Za-z_]\w*)\s+struct\s*\{\s*\}\s*$/.exec(line);
    if (m) {
      types.set(m[1], { kind: "struct", fields: [] });
      continue;
    }
    m = /^type\s+([A-Za-z_]\w*)\s+struct\s*\{\s*$/.exec(line);
    if (m) {
      const fields = [];
      for (i++; i < lines.length; i++) {
        const l = lines[i].trim();
        if (l === "") continue;
        if (l === "}") break;
        const tagMatch = /`([^`]*)`\s*$/.exec(l);
        const tags = tagMatch ? parseTag(tagMatch[1]) : {};
        const decl = (tagMatch ? l.slice(0, tagMatch.index) : l).trim();
        // A nested anonymous struct would need more than this line-based reader.
        if (decl.replaceAll("interface{}", "").match(/[{}]/)) throw new Error(`type ${m[1]}: nested struct literal not supported: ${l}`);
        const parts = decl.split(/\s+/);
        if (parts.length === 1) fields.push({ name: undefined, type: parts[0], tags });
        else fields.push({ name: parts[0], type: parts.slice(1).join(" "), tags });
      }
      types.set(m[1], { kind: "struct", fields });
      continue;
    }
    m = /^type\s+([A-Za-z_]\w*)\s*=?\s*(.+?)\s*$/.exec(line);
    if (m && m[2] !== "(") types.set(m[1], { kind: "other", expr: m[2] });
  }
  return types;
}

/** The imports of a Go file: local name → import path (the last path element when unnamed). */
export function parseGoImports(src) {
  const text = stripComments(src);
  const out = new Map();
  const add = (alias, path) => out.set(alias ?? path.slice(path.lastIndexOf("/") + 1), path);
  for (const m of text.matchAll(/^import\s+(?:([A-Za-z_]\w*)\s+)?"([^"]+)"/gm)) add(m[1], m[2]);
  for (const block of text.matchAll(/^import\s*\(([\s\S]*?)\)/gm)) {
    for (const m of block[1].matchAll(/^\s*(?:([A-Za-z_]\w*|\.)\s+)?"([^"]+)"/gm)) add(m[1], m[2]);
  }
  return out;
}
