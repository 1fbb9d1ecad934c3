/**
 * A parser for the proto2 files Kubernetes publishes (go-to-protobuf's generated.proto) and for
 * gnostic's OpenAPIv2.proto: `syntax`, `package`, `import`, `option`, `message` (nested messages
 * and enums are read and flattened under "Outer.Inner"), `enum`, `oneof` (its members become
 * optional fields), `optional|required|repeated T name = N [opts];`, `map<K, V> name = N;`,
 * `reserved`. Comments are dropped. Anything else is a parse error naming the line.
 *
 * parseProto(text) → { package, imports: string[], messages: Map<name, Message>, enums: Set<name> }
 *   Message = { name, fields: Field[] }
 *   Field   = { name, number, label: "optional" | "required" | "repeated" | "map",
 *               type: string (as written, e.g. "int32", ".k8s.io.api.core.v1.PodSpec", "PodSpec"),
 *               keyType?: string, valueType?: string (maps), oneof?: string }
 */

/** Splits proto text into tokens: identifiers (with dots), numbers, strings, punctuation. */
function tokenize(text) {
  const tokens = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "\n") {
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") i++;
    else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) throw new Error(`proto: unterminated comment at line ${line}`);
      for (let j = i; j < end; j++) if (text[j] === "\n") line++;
      i = end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      tokens.push({ t: text.slice(i, j + 1), line });
      i = j + 1;
    } else if (/[A-Za-z0-9_.\-+]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_.\-+]/.test(text[j])) j++;
      tokens.push({ t: text.slice(i, j), line });
      i = j;
    } else {
      tokens.push({ t: c, line });
      i++;
    }
  }
  return tokens;
}

export function parseProto(text, source = "proto") {
  const toks = tokenize(text);
  let p = 0;
  const peek = () => toks[p]?.t;
  const fail = (msg) => {
    throw new Error(`${source}:${toks[Math.min(p, toks.length - 1)]?.line ?? 0}: ${msg}`);
  };
  const next = () => {
    if (p >= toks.length) fail("unexpected end of file");
    return toks[p++].t;
  };
  const expect = (t) => {
    const got = next();
    if (got !== t) fail(`expected ${JSON.stringify(t)}, got ${JSON.stringify(got)}`);
  };
  /** Skips to the end of a statement (`;`), or over a balanced `{...}` block. */
  const skipStatement = () => {
    let depth = 0;
    while (p < toks.length) {
      const t = next();
      if (t === "{") depth++;
      else if (t === "}") {
        depth--;
        if (depth === 0) return;
      } else if (t === ";" && depth === 0) return;
    }
  };
  /** Skips `[ ... ]` field options if present. */
  const skipOptions = () => {
    if (peek() !== "[") return;
    let depth = 0;
    do {
      const t = next();
      if (t === "[") depth++;
      else if (t === "]") depth--;
    } while (depth > 0);
  };

  const out = { package: "", imports: [], messages: new Map(), enums: new Set() };

  const parseField = (label, oneof) => {
    let type;
    let keyType;
    let valueType;
    if (peek() === "map") {
      next();
      expect("<");
      keyType = next();
      expect(",");
      valueType = next();
      expect(">");
      label = "map";
      type = "map";
    } else type = next();
    const name = next();
    expect("=");
    const number = Number(next());
    if (!Number.isInteger(number) || number <= 0) fail(`bad field number for ${name}`);
    skipOptions();
    expect(";");
    const f = { name, number, label, type };
    if (keyType !== undefined) Object.assign(f, { keyType, valueType });
    if (oneof !== undefined) f.oneof = oneof;
    return f;
  };

  const parseEnum = (prefix) => {
    const name = next();
    out.enums.add(prefix + name);
    expect("{");
    let depth = 1;
    while (depth > 0) {
      const t = next();
      if (t === "{") depth++;
      else if (t === "}") depth--;
    }
  };

  const parseMessage = (prefix) => {
    const name = prefix + next();
    expect("{");
    const msg = { name, fields: [] };
    out.messages.set(name, msg);
    for (;;) {
      const t = peek();
      if (t === "}") {
        next();
        break;
      }
      if (t === ";") {
        next();
        continue;
      }
      if (t === "message") {
        next();
        parseMessage(`${name}.`);
      } else if (t === "enum") {
        next();
        parseEnum(`${name}.`);
      } else if (t === "option" || t === "reserved" || t === "extensions") skipStatement();
      else if (t === "oneof") {
        next();
        const group = next();
        expect("{");
        while (peek() !== "}") {
          if (peek() === "option") {
            skipStatement();
            continue;
          }
          msg.fields.push(parseField("optional", group));
        }
        expect("}");
      } else if (t === "optional" || t === "required" || t === "repeated") {
        next();
        msg.fields.push(parseField(t));
      } else if (t === "map") msg.fields.push(parseField("map"));
      else if (/^[A-Za-z_.]/.test(t ?? "")) msg.fields.push(parseField("optional")); // proto3 singular
      else fail(`unexpected ${JSON.stringify(t)} in message ${name}`);
    }
  };

  while (p < toks.length) {
    const t = next();
    if (t === "syntax") skipStatement();
    else if (t === "package") {
      out.package = next();
      expect(";");
    } else if (t === "import") {
      let s = next();
      if (s === "public" || s === "weak") s = next();
      out.imports.push(s.slice(1, -1));
      expect(";");
    } else if (t === "option") skipStatement();
    else if (t === "message") parseMessage("");
    else if (t === "enum") parseEnum("");
    else if (t === ";") continue;
    else fail(`unexpected ${JSON.stringify(t)} at top level`);
  }
  return out;
}

/** proto2 scalar types as they appear in these files. */
export const PROTO_SCALARS = new Set([
  "string", "bool", "bytes", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
  "fixed32", "fixed64", "sfixed32", "sfixed64", "double", "float",
]);
