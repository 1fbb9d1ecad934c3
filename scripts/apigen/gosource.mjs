// @ts-check
/**
 * A parser for the subset of Go that Kubernetes API packages are written in: package clause,
 * imports, `type` declarations (structs with embedded fields and struct tags, named scalar, slice
 * and map types, type aliases), `const` blocks (typed enum values, iota-free), `var` declarations
 * (kept as token ranges, with a reader for `map[string]string{...}` literals), and functions
 * (kept as token ranges: register.go's addKnownTypes is read from them). Comments are kept with
 * their lines, so doc comments and `+marker` lines attach to declarations and fields the way
 * gengo attaches them: the comment group ending on the line before a declaration is its doc
 * (CommentLines), the group ending two lines above that is the "second closest" comment
 * (SecondClosestCommentLines, where `+genclient` blocks live).
 *
 * Anything outside this subset (generics, channels in API types, method expressions in type
 * position) is a parse error naming file and line: a new Kubernetes version that uses more of Go
 * fails loudly instead of generating wrong artifacts.
 */

/** @typedef {{ t: "ident"|"string"|"rawstring"|"number"|"rune"|"op", v: string, line: number, nl: boolean }} Token */
/** @typedef {{ line: number, endLine: number, text: string, block: boolean }} Comment */

/**
 * @typedef {{ k: "ident", name: string }
 *   | { k: "qual", pkg: string, name: string }
 *   | { k: "ptr", elem: TypeExpr }
 *   | { k: "slice", elem: TypeExpr }
 *   | { k: "array", len: string, elem: TypeExpr }
 *   | { k: "map", key: TypeExpr, elem: TypeExpr }
 *   | { k: "struct", fields: GoField[] }
 *   | { k: "interface" }
 *   | { k: "func" }} TypeExpr
 */
/** @typedef {{ names: string[], embedded: boolean, type: TypeExpr, tag: string, doc: string[], line: number }} GoField */
/** @typedef {{ kind: "type", name: string, alias: boolean, type: TypeExpr, doc: string[], doc2: string[], line: number }} TypeDecl */
/** @typedef {{ kind: "const", name: string, type?: TypeExpr, value: Token[], doc: string[], line: number }} ConstDecl */
/** @typedef {{ kind: "var", name: string, type?: TypeExpr, value: Token[], doc: string[], line: number }} VarDecl */
/** @typedef {{ kind: "func", name: string, receiver?: string, body: Token[], doc: string[], line: number }} FuncDecl */
/** @typedef {{ file: string, pkg: string, pkgDoc: string[], imports: Map<string, string>, types: TypeDecl[], consts: ConstDecl[], vars: VarDecl[], funcs: FuncDecl[] }} GoFile */

export class GoParseError extends Error {
  /** @param {string} file @param {number} line @param {string} msg */
  constructor(file, line, msg) {
    super(`${file}:${line}: ${msg}`);
    this.name = "GoParseError";
  }
}

const OPS = ["<<=", ">>=", "&^=", "...", "&&", "||", "<-", "++", "--", "==", "!=", "<=", ">=", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "&^"];

/**
 * Splits Go source into tokens and comments. `nl` on a token says a newline preceded it (Go's
 * automatic semicolon insertion is approximated by the parser from that flag).
 * @param {string} src @param {string} file
 * @returns {{ tokens: Token[], comments: Comment[] }}
 */
export function tokenize(src, file) {
  /** @type {Token[]} */
  const tokens = [];
  /** @type {Comment[]} */
  const comments = [];
  let i = 0;
  let line = 1;
  let nl = true;
  const n = src.length;
  const err = (msg) => new GoParseError(file, line, msg);
  while (i < n) {
    const c = src[i];
    if (c === "\n") {
      line++;
      nl = true;
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "/" && src[i + 1] === "/") {
      let j = src.indexOf("\n", i);
      if (j < 0) j = n;
      comments.push({ line, endLine: line, text: src.slice(i, j), block: false });
      i = j;
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const j = src.indexOf("*/", i + 2);
      if (j < 0) throw err("unterminated block comment");
      const text = src.slice(i, j + 2);
      const start = line;
      for (const ch of text) if (ch === "\n") line++;
      comments.push({ line: start, endLine: line, text, block: true });
      i = j + 2;
      continue;
    }
    const start = i;
    const tokLine = line;
    /** @param {Token["t"]} t @param {string} v */
    const push = (t, v) => {
      tokens.push({ t, v, line: tokLine, nl });
      nl = false;
    };
    if (/[A-Za-z_]/.test(c) || c.charCodeAt(0) > 127) {
      while (i < n && (/[A-Za-z0-9_]/.test(src[i]) || src.charCodeAt(i) > 127)) i++;
      push("ident", src.slice(start, i));
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      while (i < n && /[0-9A-Za-z_.]/.test(src[i])) {
        if ((src[i] === "e" || src[i] === "E" || src[i] === "p" || src[i] === "P") && (src[i + 1] === "+" || src[i + 1] === "-")) i++;
        i++;
      }
      push("number", src.slice(start, i));
      continue;
    }
    if (c === '"') {
      i++;
      while (i < n && src[i] !== '"') {
        if (src[i] === "\\") i++;
        if (src[i] === "\n") throw err("newline in string literal");
        i++;
      }
      if (i >= n) throw err("unterminated string literal");
      i++;
      push("string", src.slice(start, i));
      continue;
    }
    if (c === "`") {
      const j = src.indexOf("`", i + 1);
      if (j < 0) throw err("unterminated raw string");
      const text = src.slice(i, j + 1);
      push("rawstring", text);
      for (const ch of text) if (ch === "\n") line++;
      i = j + 1;
      continue;
    }
    if (c === "'") {
      i++;
      while (i < n && src[i] !== "'") {
        if (src[i] === "\\") i++;
        i++;
      }
      i++;
      push("rune", src.slice(start, i));
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) {
      i += op.length;
      push("op", op);
      continue;
    }
    if ("+-*/%&|^<>=!()[]{},;.:~".includes(c)) {
      i++;
      push("op", c);
      continue;
    }
    throw err(`unexpected character ${JSON.stringify(c)}`);
  }
  return { tokens, comments };
}

/**
 * The value of a Go string literal token (interpreted or raw).
 * @param {Token} tok
 */
export function stringValue(tok) {
  if (tok.t === "rawstring") return tok.v.slice(1, -1).replace(/\r/g, "");
  if (tok.t !== "string") throw new Error(`not a string literal: ${tok.v}`);
  const s = tok.v.slice(1, -1);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const e = s[++i];
    switch (e) {
      case "n": out += "\n"; break;
      case "t": out += "\t"; break;
      case "r": out += "\r"; break;
      case "a": out += "\x07"; break;
      case "b": out += "\b"; break;
      case "f": out += "\f"; break;
      case "v": out += "\v"; break;
      case "\\": out += "\\"; break;
      case '"': out += '"'; break;
      case "'": out += "'"; break;
      case "x": out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16)); i += 2; break;
      case "u": out += String.fromCodePoint(parseInt(s.slice(i + 1, i + 5), 16)); i += 4; break;
      case "U": out += String.fromCodePoint(parseInt(s.slice(i + 1, i + 9), 16)); i += 8; break;
      default:
        if (/[0-7]/.test(e)) {
          // Octal byte escapes encode UTF-8 bytes; collect consecutive ones and decode together.
          const bytes = [];
          i--;
          while (s[i] === "\\" && /[0-7]/.test(s[i + 1] ?? "")) {
            bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
            i += 4;
          }
          i--;
          out += Buffer.from(bytes).toString("utf8");
        } else {
          throw new Error(`unknown escape \\${e} in ${tok.v}`);
        }
    }
  }
  return out;
}

/**
 * go/ast CommentGroup.Text() for one group of `//` comments: markers and the first space
 * removed, directives (//go:..., //line) dropped, trailing space trimmed, leading/trailing
 * blank lines removed and runs of blank lines collapsed.
 * @param {Comment[]} group
 * @returns {string[]}
 */
export function commentText(group) {
  /** @type {string[]} */
  const lines = [];
  for (const c of group) {
    if (c.block) {
      const body = c.text.slice(2, -2);
      for (const l of body.split("\n")) lines.push(l);
      continue;
    }
    let t = c.text.slice(2);
    if (t.length > 0 && t[0] === " ") t = t.slice(1);
    else if (/^(line |extern |export |[a-z0-9]+:[a-z0-9])/.test(t)) continue;
    lines.push(t);
  }
  const trimmed = lines.map((l) => l.replace(/[ \t\r]+$/, ""));
  /** @type {string[]} */
  const out = [];
  for (const l of trimmed) {
    if (l === "" && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(l);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

class Parser {
  /** @param {string} src @param {string} file */
  constructor(src, file) {
    this.file = file;
    const { tokens, comments } = tokenize(src, file);
    this.toks = tokens;
    this.pos = 0;
    /** Comment groups (consecutive line comments without a blank line), by end line. */
    /** @type {Map<number, Comment[]>} */
    this.groupsByEnd = new Map();
    /** @type {Comment[][]} */
    this.groups = [];
    /** @type {Comment[]} */
    let cur = [];
    const tokenLines = new Set(tokens.map((t) => t.line));
    for (const c of comments) {
      const prev = cur[cur.length - 1];
      // A comment on the same line as code (trailing comment) forms its own group.
      const trailing = tokenLines.has(c.line) && !c.block;
      if (prev && !trailing && !prev.trailing && c.line === prev.endLine + 1) {
        cur.push(c);
      } else {
        if (cur.length > 0) this.groups.push(cur);
        cur = [c];
      }
      /** @type {Comment & { trailing?: boolean }} */ (c).trailing = trailing;
    }
    if (cur.length > 0) this.groups.push(cur);
    for (const g of this.groups) {
      if (/** @type {Comment & { trailing?: boolean }} */ (g[0]).trailing) continue;
      this.groupsByEnd.set(g[g.length - 1].endLine, g);
    }
  }

  /** @param {string} msg @returns {never} */
  fail(msg, tok = this.peek()) {
    throw new GoParseError(this.file, tok ? tok.line : -1, msg);
  }

  peek(k = 0) {
    return this.toks[this.pos + k];
  }

  next() {
    const t = this.toks[this.pos++];
    if (!t) this.fail("unexpected end of file");
    return t;
  }

  /** @param {string} v */
  isOp(v, k = 0) {
    const t = this.peek(k);
    return t !== undefined && t.t === "op" && t.v === v;
  }

  /** @param {string} v */
  isIdent(v, k = 0) {
    const t = this.peek(k);
    return t !== undefined && t.t === "ident" && t.v === v;
  }

  /** @param {string} v */
  expectOp(v) {
    const t = this.next();
    if (t.t !== "op" || t.v !== v) this.fail(`expected ${v}, found ${t.v}`, t);
    return t;
  }

  expectIdent() {
    const t = this.next();
    if (t.t !== "ident") this.fail(`expected identifier, found ${t.v}`, t);
    return t.v;
  }

  skipSemis() {
    while (this.isOp(";")) this.pos++;
  }

  /** Doc comment lines of a declaration starting on `line`, and the detached group above it. */
  docsAt(line) {
    const g1 = this.groupsByEnd.get(line - 1);
    const doc = g1 ? commentText(g1) : [];
    const g2 = g1 ? this.groupsByEnd.get(g1[0].line - 2) : this.groupsByEnd.get(line - 2);
    const doc2 = g2 ? commentText(g2) : [];
    return { doc, doc2 };
  }

  /** Skips a balanced bracket group starting at the current token; returns the inner tokens. */
  balanced() {
    const open = this.next();
    const pairs = { "(": ")", "[": "]", "{": "}" };
    const close = pairs[open.v];
    if (!close) this.fail(`expected bracket, found ${open.v}`, open);
    const inner = [];
    let depth = 1;
    for (;;) {
      const t = this.next();
      if (t.t === "op" && t.v === open.v) depth++;
      else if (t.t === "op" && t.v === close) {
        depth--;
        if (depth === 0) return inner;
      }
      inner.push(t);
    }
  }

  /** The tokens of an expression up to the end of the current statement (newline, `;`, `)` at depth 0). */
  exprTokens() {
    const out = [];
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (!t) break;
      if (depth === 0 && out.length > 0 && t.nl) {
        // A newline ends the statement unless the previous token continues it.
        const prev = out[out.length - 1];
        if (!(prev.t === "op" && [",", "+", "-", "*", "/", "|", "&", "(", "[", "{", "."].includes(prev.v))) break;
      }
      if (t.t === "op" && (t.v === "(" || t.v === "[" || t.v === "{")) depth++;
      if (t.t === "op" && (t.v === ")" || t.v === "]" || t.v === "}")) {
        if (depth === 0) break;
        depth--;
      }
      if (depth === 0 && t.t === "op" && t.v === ";") break;
      out.push(this.next());
    }
    return out;
  }

  /** @returns {TypeExpr} */
  typeExpr() {
    const t = this.peek();
    if (!t) this.fail("expected type");
    if (t.t === "op" && t.v === "*") {
      this.pos++;
      return { k: "ptr", elem: this.typeExpr() };
    }
    if (t.t === "op" && t.v === "[") {
      this.pos++;
      if (this.isOp("]")) {
        this.pos++;
        return { k: "slice", elem: this.typeExpr() };
      }
      const len = this.next();
      this.expectOp("]");
      return { k: "array", len: len.v, elem: this.typeExpr() };
    }
    if (t.t === "op" && t.v === "(") {
      this.pos++;
      const inner = this.typeExpr();
      this.expectOp(")");
      return inner;
    }
    if (t.t !== "ident") this.fail(`expected type, found ${t.v}`);
    switch (t.v) {
      case "map": {
        this.pos++;
        this.expectOp("[");
        const key = this.typeExpr();
        this.expectOp("]");
        return { k: "map", key, elem: this.typeExpr() };
      }
      case "struct":
        this.pos++;
        return { k: "struct", fields: this.structBody() };
      case "interface":
        this.pos++;
        this.balanced();
        return { k: "interface" };
      case "func":
        this.pos++;
        this.balanced();
        // Results: a type or a parenthesised list, on the same line.
        if (this.peek() && !this.peek().nl && !this.isOp("{") && !this.isOp(";") && !this.isOp(")") && !this.isOp(",")) {
          if (this.isOp("(")) this.balanced();
          else this.typeExpr();
        }
        return { k: "func" };
      case "chan":
        this.fail("channel types are not supported");
        break;
      default:
        break;
    }
    this.pos++;
    if (this.isOp(".") && this.peek(1)?.t === "ident") {
      this.pos++;
      const name = this.next().v;
      return { k: "qual", pkg: t.v, name };
    }
    if (this.isOp("[") && !this.peek().nl) this.fail("generic types are not supported");
    return { k: "ident", name: t.v };
  }

  /** @returns {GoField[]} */
  structBody() {
    this.expectOp("{");
    /** @type {GoField[]} */
    const fields = [];
    for (;;) {
      this.skipSemis();
      if (this.isOp("}")) {
        this.pos++;
        return fields;
      }
      const first = this.peek();
      const { doc } = this.docsAt(first.line);
      /** @type {string[]} */
      let names = [];
      let embedded = false;
      /** @type {TypeExpr} */
      let type;
      // Embedded: `T`, `*T`, `pkg.T` followed by a tag, newline, `;` or `}`.
      const endsField = (k) => {
        const t = this.peek(k);
        return !t || t.nl || t.t === "string" || t.t === "rawstring" || (t.t === "op" && (t.v === ";" || t.v === "}"));
      };
      if (first.t === "op" && first.v === "*") {
        embedded = true;
        type = this.typeExpr();
      } else if (first.t === "ident" && (endsField(1) || (this.isOp(".", 1) && endsField(3)))) {
        embedded = true;
        type = this.typeExpr();
      } else {
        names.push(this.expectIdent());
        while (this.isOp(",")) {
          this.pos++;
          names.push(this.expectIdent());
        }
        type = this.typeExpr();
      }
      let tag = "";
      const tt = this.peek();
      if (tt && !tt.nl && (tt.t === "rawstring" || tt.t === "string")) {
        this.pos++;
        tag = stringValue(tt);
      }
      fields.push({ names, embedded, type, tag, doc, line: first.line });
    }
  }

  /** @param {GoFile} out */
  typeSpec(out, groupDoc) {
    const nameTok = this.next();
    if (nameTok.t !== "ident") this.fail(`expected type name, found ${nameTok.v}`, nameTok);
    let { doc, doc2 } = this.docsAt(nameTok.line);
    if (doc.length === 0 && groupDoc) ({ doc, doc2 } = groupDoc);
    let alias = false;
    if (this.isOp("=")) {
      this.pos++;
      alias = true;
    }
    const type = this.typeExpr();
    out.types.push({ kind: "type", name: nameTok.v, alias, type, doc, doc2, line: nameTok.line });
  }

  /** @param {GoFile} out @param {"const"|"var"} kind */
  valueSpecs(out, kind) {
    const specOne = (prev) => {
      const nameTok = this.next();
      if (nameTok.t !== "ident") this.fail(`expected name, found ${nameTok.v}`, nameTok);
      const names = [nameTok.v];
      while (this.isOp(",")) {
        this.pos++;
        names.push(this.expectIdent());
      }
      const { doc } = this.docsAt(nameTok.line);
      /** @type {TypeExpr | undefined} */
      let type;
      /** @type {Token[]} */
      let value = [];
      if (!this.isOp("=") && !this.peek().nl && !this.isOp(";") && !this.isOp(")")) type = this.typeExpr();
      if (this.isOp("=")) {
        this.pos++;
        value = this.exprTokens();
      } else if (kind === "const" && prev) {
        // Implicit repetition of the previous spec (iota patterns): not used by API packages.
        type = prev.type;
        value = prev.value;
      }
      if (names.length > 1) {
        if (kind === "const") this.fail("multi-name const specs are not supported", nameTok);
      }
      for (const name of names) {
        const decl = { kind, name, type, value, doc, line: nameTok.line };
        if (kind === "const") out.consts.push(/** @type {ConstDecl} */ (decl));
        else out.vars.push(/** @type {VarDecl} */ (decl));
      }
      return { type, value };
    };
    if (this.isOp("(")) {
      this.pos++;
      let prev;
      for (;;) {
        this.skipSemis();
        if (this.isOp(")")) {
          this.pos++;
          return;
        }
        prev = specOne(prev);
      }
    }
    specOne(undefined);
  }

  /** @param {GoFile} out */
  funcDecl(out, line) {
    const { doc } = this.docsAt(line);
    let receiver;
    if (this.isOp("(")) {
      const recv = this.balanced();
      const typeIdent = recv.filter((t) => t.t === "ident").pop();
      receiver = typeIdent?.v;
    }
    const name = this.expectIdent();
    if (this.isOp("[")) this.fail("generic functions are not supported");
    this.balanced(); // parameters
    // Results (a type or a parenthesised list), then the body.
    if (!this.isOp("{")) {
      if (this.isOp("(")) this.balanced();
      else this.typeExpr();
    }
    const body = this.balanced();
    out.funcs.push({ kind: "func", name, receiver, body, doc, line });
  }

  /** @returns {GoFile} */
  parseFile() {
    /** @type {GoFile} */
    const out = { file: this.file, pkg: "", pkgDoc: [], imports: new Map(), types: [], consts: [], vars: [], funcs: [] };
    if (!this.isIdent("package")) this.fail("expected package clause");
    out.pkgDoc = this.docsAt(this.peek().line).doc;
    this.pos++;
    out.pkg = this.expectIdent();
    this.skipSemis();
    while (this.isIdent("import")) {
      this.pos++;
      const one = () => {
        let alias;
        if (this.peek().t === "ident" || this.isOp(".")) alias = this.next().v;
        const p = this.next();
        if (p.t !== "string") this.fail("expected import path", p);
        const path = stringValue(p);
        out.imports.set(alias ?? path.split("/").pop(), path);
      };
      if (this.isOp("(")) {
        this.pos++;
        for (;;) {
          this.skipSemis();
          if (this.isOp(")")) {
            this.pos++;
            break;
          }
          one();
        }
      } else {
        one();
      }
      this.skipSemis();
    }
    while (this.peek()) {
      this.skipSemis();
      const t = this.peek();
      if (!t) break;
      if (t.t !== "ident") this.fail(`unexpected ${t.v} at top level`);
      this.pos++;
      switch (t.v) {
        case "type":
          if (this.isOp("(")) {
            this.pos++;
            for (;;) {
              this.skipSemis();
              if (this.isOp(")")) {
                this.pos++;
                break;
              }
              this.typeSpec(out, undefined);
            }
          } else {
            // The doc comment of `type X ...` sits above the `type` keyword (same line as X).
            this.typeSpec(out, undefined);
          }
          break;
        case "const":
          this.valueSpecs(out, "const");
          break;
        case "var":
          this.valueSpecs(out, "var");
          break;
        case "func":
          this.funcDecl(out, t.line);
          break;
        default:
          this.fail(`unexpected ${t.v} at top level`, t);
      }
    }
    return out;
  }
}

/**
 * Parses one Go source file of the supported subset.
 * @param {string} src @param {string} file
 * @returns {GoFile}
 */
export function parseGoFile(src, file) {
  return new Parser(src, file).parseFile();
}

/**
 * Reads a struct tag (`json:"name,omitempty" protobuf:"..."`) as reflect.StructTag.Lookup does.
 * @param {string} tag @param {string} key
 * @returns {string | undefined}
 */
export function tagLookup(tag, key) {
  let s = tag;
  while (s.length > 0) {
    let i = 0;
    while (i < s.length && s[i] === " ") i++;
    s = s.slice(i);
    if (s.length === 0) break;
    i = 0;
    while (i < s.length && s[i] > " " && s[i] !== ":" && s[i] !== '"' && s.charCodeAt(i) !== 0x7f) i++;
    if (i === 0 || i + 1 >= s.length || s[i] !== ":" || s[i + 1] !== '"') break;
    const name = s.slice(0, i);
    s = s.slice(i + 1);
    i = 1;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === "\\") i++;
      i++;
    }
    if (i >= s.length) break;
    const quoted = s.slice(0, i + 1);
    s = s.slice(i + 1);
    if (name === key) return stringValue({ t: "string", v: quoted, line: 0, nl: false });
  }
  return undefined;
}

/**
 * Reads `map[string]string{"k": "v", ...}` (a swagger-doc table) from a var's value tokens.
 * @param {Token[]} value
 * @returns {Record<string, string> | undefined}
 */
export function mapStringLiteral(value) {
  const v = value.map((t) => t.v).slice(0, 6).join("");
  if (v !== "map[string]string{") return undefined;
  /** @type {Record<string, string>} */
  const out = {};
  let i = 6;
  while (i < value.length) {
    const k = value[i];
    if (k.t === "op" && k.v === "}") break;
    if (k.t === "op" && k.v === ",") {
      i++;
      continue;
    }
    const colon = value[i + 1];
    const val = value[i + 2];
    if (!colon || colon.v !== ":" || !val) throw new Error(`malformed map literal near ${k.v}`);
    // Values may be concatenations: "a" + "b".
    let text = stringValue(val);
    i += 3;
    while (value[i] && value[i].t === "op" && value[i].v === "+") {
      text += stringValue(value[i + 1]);
      i += 2;
    }
    out[stringValue(k)] = text;
  }
  return out;
}
