/**
 * OpenAPI v2 (Swagger 2.0) documents as gnostic's `openapi.v2.Document` protobuf message — what
 * kube-apiserver serves for `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
 * and what kubectl 1.22–1.28 (`apply`, `explain`), helm 3 and client-go's OpenAPI v2 clients read.
 *
 * The JSON → message mapping is gnostic's compiler (NewDocument and friends), driven by the field
 * tables generated from OpenAPIv2.proto (schemas/gnostic_openapiv2.ts):
 * - a JSON key is the camelCase of the proto field name (`base_path` ↔ `basePath`, `_ref` ↔ `$ref`);
 * - `x-*` keys become `vendor_extension` entries (NamedAny: the value as YAML text in Any.yaml,
 *   which is how gnostic carries arbitrary values and how kube-openapi reads them back; the text
 *   is JSON, YAML's flow style);
 * - objects keyed by user names (definitions, properties, paths, responses, security
 *   definitions, ...) become repeated Named* entries in the document's key order;
 * - oneof messages choose their member as gnostic does: a parameter by `in` (body, header,
 *   formData, query, path), `$ref` for references, `type: file` for response file schemas, a
 *   security scheme by `type`/`flow`; `type` and `items` accept one value or a list;
 * - proto3: empty strings, false and 0 are not written, set sub-messages always are.
 */
import { OPENAPI_V2_MESSAGES, type GnosticField } from "./schemas/gnostic_openapiv2.js";
import { WIRE_VARINT, WireWriter } from "./wire.js";

const utf8 = new TextEncoder();

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function jsonKey(protoName: string): string {
  if (protoName === "_ref") return "$ref";
  return protoName.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A message's fields, compiled once: by JSON key, and the special vendor/entries fields. */
interface CompiledMessage {
  readonly fields: readonly GnosticField[];
  readonly byJsonKey: ReadonlyMap<string, GnosticField>;
  readonly vendorExtension?: GnosticField;
  /** The repeated Named* field of an object keyed by user names (see NAMED_ENTRIES). */
  readonly entries?: GnosticField;
}

const compiled = new Map<string, CompiledMessage>();

function compile(message: string): CompiledMessage {
  let c = compiled.get(message);
  if (c) return c;
  const f = OPENAPI_V2_MESSAGES[message];
  if (!f) throw new Error(`no openapi.v2 message ${message}`);
  const entriesName = NAMED_ENTRIES[message];
  c = {
    fields: f,
    byJsonKey: new Map(f.filter((x) => x[1] !== "vendor_extension" && x[1] !== entriesName).map((x) => [jsonKey(x[1]), x])),
    vendorExtension: f.find((x) => x[1] === "vendor_extension"),
    entries: entriesName === undefined ? undefined : f.find((x) => x[1] === entriesName),
  };
  compiled.set(message, c);
  return c;
}

function fieldNamed(message: string, name: string): GnosticField {
  const f = compile(message).fields.find((x) => x[1] === name);
  if (!f) throw new Error(`openapi.v2.${message} has no field ${name}`);
  return f;
}

function writeString(w: WireWriter, field: number, s: string): void {
  w.bytesField(field, utf8.encode(s));
}

/**
 * Any.yaml text for a value. JSON is YAML (flow style), and it is what kube-openapi's readers
 * (yaml.Unmarshal of vendor extensions, defaults, enums) get back as the same value; gnostic itself
 * writes block style, which no reader depends on.
 */
function yamlOf(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Messages whose JSON is an object of user-named entries: the Named* field carrying them. */
const NAMED_ENTRIES: Readonly<Record<string, string>> = {
  Definitions: "additional_properties",
  Properties: "additional_properties",
  ParameterDefinitions: "additional_properties",
  ResponseDefinitions: "additional_properties",
  SecurityDefinitions: "additional_properties",
  SecurityRequirement: "additional_properties",
  Headers: "additional_properties",
  Examples: "additional_properties",
  Oauth2Scopes: "additional_properties",
  Default: "additional_properties",
  VendorExtension: "additional_properties",
  Paths: "path",
  Responses: "response_code",
};

const NON_BODY_MEMBER: Readonly<Record<string, string>> = {
  header: "header_parameter_sub_schema",
  formData: "form_data_parameter_sub_schema",
  query: "query_parameter_sub_schema",
  path: "path_parameter_sub_schema",
};

const OAUTH2_MEMBER: Readonly<Record<string, string>> = {
  implicit: "oauth2_implicit_security",
  password: "oauth2_password_security",
  application: "oauth2_application_security",
  accessCode: "oauth2_access_code_security",
};

class Encoder {
  message(name: string, value: unknown): Uint8Array {
    const w = new WireWriter();
    switch (name) {
      case "Any":
        writeString(w, fieldNamed("Any", "yaml")[0], yamlOf(value));
        return w.finish();
      case "TypeItem":
      case "StringArray": {
        const f = fieldNamed(name, "value")[0];
        for (const s of Array.isArray(value) ? value : [value]) writeString(w, f, String(s));
        return w.finish();
      }
      case "ItemsItem": {
        const f = fieldNamed(name, "schema")[0];
        for (const s of Array.isArray(value) ? value : [value]) w.bytesField(f, this.message("Schema", s));
        return w.finish();
      }
      case "AdditionalPropertiesItem":
        if (typeof value === "boolean") {
          // A oneof member is written even when false.
          w.tag(fieldNamed(name, "boolean")[0], WIRE_VARINT);
          w.varint(value ? 1 : 0);
        } else w.bytesField(fieldNamed(name, "schema")[0], this.message("Schema", value));
        return w.finish();
      default:
        break;
    }
    const obj = isRecord(value) ? value : {};
    const member = this.oneofMember(name, obj);
    if (member !== undefined) {
      const f = fieldNamed(name, member);
      w.bytesField(f[0], this.message(f[2], obj));
      return w.finish();
    }
    const c = compile(name);
    // Fields go out in field-number order (as proto.Marshal writes them); repeated Named* and
    // vendor extensions keep the document's key order.
    const present: [GnosticField, unknown][] = [];
    const vendor: [string, unknown][] = [];
    const entries: [string, unknown][] = [];
    for (const k in obj) {
      const v = obj[k];
      if (k.startsWith("x-") && c.vendorExtension) vendor.push([k, v]);
      else if (c.entries) entries.push([k, v]);
      else {
        const f = c.byJsonKey.get(k);
        if (f && v !== undefined && v !== null) present.push([f, v]);
      }
    }
    present.sort((a, b) => a[0][0] - b[0][0]);
    let i = 0;
    for (const f of c.fields) {
      if (f === c.vendorExtension) {
        for (const [k, v] of vendor) w.bytesField(f[0], this.named("NamedAny", k, v));
      } else if (f === c.entries) {
        for (const [k, v] of entries) w.bytesField(f[0], this.named(f[2], k, v));
      } else if (i < present.length && present[i][0] === f) {
        const [[number, , type, label], v] = present[i++];
        if (label === "repeated") {
          for (const item of Array.isArray(v) ? v : [v]) this.value(w, number, type, item, true);
        } else this.value(w, number, type, v, false);
      }
    }
    return w.finish();
  }

  /** The oneof member gnostic picks for this JSON, for messages that are a single oneof. */
  private oneofMember(name: string, obj: Record<string, unknown>): string | undefined {
    switch (name) {
      case "ParametersItem":
        return "$ref" in obj ? "json_reference" : "parameter";
      case "Parameter":
        return obj.in === "body" ? "body_parameter" : "non_body_parameter";
      case "NonBodyParameter":
        return NON_BODY_MEMBER[String(obj.in)] ?? "query_parameter_sub_schema";
      case "ResponseValue":
        return "$ref" in obj ? "json_reference" : "response";
      case "SchemaItem":
        return obj.type === "file" ? "file_schema" : "schema";
      case "SecurityDefinitionsItem":
        if (obj.type === "basic") return "basic_authentication_security";
        if (obj.type === "oauth2") return OAUTH2_MEMBER[String(obj.flow)] ?? "oauth2_implicit_security";
        return "api_key_security";
      default:
        return undefined;
    }
  }

  private named(message: string, key: string, v: unknown): Uint8Array {
    const w = new WireWriter();
    writeString(w, fieldNamed(message, "name")[0], key);
    const valueField = fieldNamed(message, "value");
    if (valueField[2] === "string") writeString(w, valueField[0], String(v));
    else w.bytesField(valueField[0], this.message(valueField[2], v));
    return w.finish();
  }

  private value(w: WireWriter, number: number, type: string, v: unknown, repeated: boolean): void {
    switch (type) {
      case "string":
        if (typeof v === "string" && (v !== "" || repeated)) writeString(w, number, v);
        return;
      case "bool":
        if (v === true) {
          w.tag(number, WIRE_VARINT);
          w.varint(1);
        }
        return;
      case "int64":
        if (typeof v === "number" && v !== 0) {
          w.tag(number, WIRE_VARINT);
          w.varint(Math.trunc(v));
        }
        return;
      case "double":
        if (typeof v === "number" && v !== 0) w.double(number, v);
        return;
      case "google.protobuf.Any":
        return;
      default:
        w.bytesField(number, this.message(type, v));
    }
  }
}

/** Encodes an OpenAPI v2 JSON document as a gnostic openapi.v2.Document message. */
export function encodeOpenAPIV2(doc: object): Uint8Array {
  return new Encoder().message("Document", doc);
}
