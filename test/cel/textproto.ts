/**
 * A small reader of protobuf text format, enough for cel-spec's conformance files
 * (tests/simple/testdata/*.textproto): messages with `{}` or `<>`, repeated fields, scalar
 * lists, C-escaped strings (bytes kept as bytes), numbers, enums and `[type.url]` expansions.
 */

export type Scalar = { kind: "string"; bytes: Uint8Array } | { kind: "number"; text: string } | { kind: "ident"; text: string };
export type TextValue = Scalar | TextMessage;

export class TextMessage {
  readonly kind = "message";
  readonly fields: [string, TextValue][] = [];
  all(name: string): TextValue[] {
    return this.fields.filter(([k]) => k === name).map(([, v]) => v);
  }
  get(name: string): TextValue | undefined {
    return this.fields.find(([k]) => k === name)?.[1];
  }
  msg(name: string): TextMessage | undefined {
    const v = this.get(name);
    return v instanceof TextMessage ? v : undefined;
  }
  str(name: string): string | undefined {
    const v = this.get(name);
    return v && !(v instanceof TextMessage) && v.kind === "string" ? new TextDecoder().decode(v.bytes) : undefined;
  }
  has(name: string): boolean {
    return this.fields.some(([k]) => k === name);
  }
}

export function parseTextProto(text: string): TextMessage {
  let i = 0;
  const n = text.length;
  const skip = () => {
    for (;;) {
      while (i < n && /\s/.test(text[i])) i++;
      if (text[i] === "#") {
        while (i < n && text[i] !== "\n") i++;
        continue;
      }
      break;
    }
  };
  const fail = (msg: string): never => {
    throw new Error(`textproto: ${msg} at ${i}: ${JSON.stringify(text.slice(i, i + 40))}`);
  };
  const readString = (): Uint8Array => {
    const q = text[i++];
    const out: number[] = [];
    const enc = new TextEncoder();
    while (i < n && text[i] !== q) {
      const c = text[i];
      if (c !== "\\") {
        const cp = text.codePointAt(i)!;
        const s = String.fromCodePoint(cp);
        out.push(...enc.encode(s));
        i += s.length;
        continue;
      }
      const e = text[i + 1];
      i += 2;
      const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, "\\": 92, "'": 39, '"': 34, "?": 63 };
      if (e in simple) out.push(simple[e]);
      else if (e === "x") {
        const m = /^[0-9a-fA-F]{1,2}/.exec(text.slice(i))![0];
        out.push(parseInt(m, 16));
        i += m.length;
      } else if (/[0-7]/.test(e)) {
        const m = /^[0-7]{0,2}/.exec(text.slice(i))![0];
        out.push(parseInt(e + m, 8));
        i += m.length;
      } else if (e === "u" || e === "U") {
        const len = e === "u" ? 4 : 8;
        out.push(...enc.encode(String.fromCodePoint(parseInt(text.slice(i, i + len), 16))));
        i += len;
      } else fail(`bad escape \\${e}`);
    }
    i++;
    return new Uint8Array(out);
  };
  const readScalar = (): Scalar => {
    skip();
    if (text[i] === '"' || text[i] === "'") {
      const parts: Uint8Array[] = [];
      while (text[i] === '"' || text[i] === "'") {
        parts.push(readString());
        skip();
      }
      const len = parts.reduce((s, p) => s + p.length, 0);
      const bytes = new Uint8Array(len);
      let o = 0;
      for (const p of parts) {
        bytes.set(p, o);
        o += p.length;
      }
      return { kind: "string", bytes };
    }
    const rest = text.slice(i, i + 80);
    const m = /^-?(?:0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFuU]?)/.exec(rest) ?? /^-?(?:infinity|inf|nan)\b/i.exec(rest);
    if (m) {
      i += m[0].length;
      return { kind: "number", text: m[0] };
    }
    const id = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(i));
    if (!id) fail("expected a value");
    i += id![0].length;
    return { kind: "ident", text: id![0] };
  };
  const readMessage = (close: string): TextMessage => {
    const msg = new TextMessage();
    for (;;) {
      skip();
      if (i >= n) {
        if (close === "") return msg;
        fail("unexpected end");
      }
      if (text[i] === close) {
        i++;
        return msg;
      }
      let name: string;
      if (text[i] === "[") {
        const end = text.indexOf("]", i);
        name = text.slice(i, end + 1);
        i = end + 1;
      } else {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
        if (!m) fail("expected a field name");
        name = m![0];
        i += name.length;
      }
      skip();
      let colon = false;
      if (text[i] === ":") {
        colon = true;
        i++;
        skip();
      }
      if (text[i] === "{" || text[i] === "<") {
        const c = text[i] === "{" ? "}" : ">";
        i++;
        msg.fields.push([name, readMessage(c)]);
      } else if (colon && text[i] === "[") {
        i++;
        for (;;) {
          skip();
          if (text[i] === "]") {
            i++;
            break;
          }
          if (text[i] === "{" || text[i] === "<") {
            const c = text[i] === "{" ? "}" : ">";
            i++;
            msg.fields.push([name, readMessage(c)]);
          } else msg.fields.push([name, readScalar()]);
          skip();
          if (text[i] === ",") i++;
        }
      } else msg.fields.push([name, readScalar()]);
      skip();
      if (text[i] === "," || text[i] === ";") i++;
    }
  };
  return readMessage("");
}
