import { describe, expect, it } from "vitest";
import { parse as parseYAML } from "yaml";
import { openAPIV2 } from "../openapi/index.js";
import { builtinStrategies } from "../registry/index.js";
import { servedResourceOf } from "../server/resources.js";
import { encodeOpenAPIV2 } from "./openapiv2.js";
import { OPENAPI_V2_MESSAGES } from "./schemas/gnostic_openapiv2.js";
import { WIRE_BYTES, WIRE_FIXED64, WireReader } from "./wire.js";

type Decoded = { [field: string]: unknown };

/** A reader of gnostic messages driven by the same tables: field name → value (lists for repeated). */
function decode(message: string, data: Uint8Array): Decoded {
  const fields = OPENAPI_V2_MESSAGES[message]!;
  const r = new WireReader(data);
  const out: Decoded = {};
  while (!r.done()) {
    const { field, wire } = r.tag();
    const f = fields.find((x) => x[0] === field);
    if (!f) throw new Error(`${message}: unknown field ${field}`);
    const [, name, type, label] = f;
    let v: unknown;
    if (type === "string") v = r.string();
    else if (type === "bool") v = r.varintBig() !== 0n;
    else if (type === "int64") v = Number(r.varintBig());
    else if (type === "double") {
      expect(wire).toBe(WIRE_FIXED64);
      v = r.fixed64().getFloat64(0, true);
    } else {
      expect(wire).toBe(WIRE_BYTES);
      v = decode(type, r.bytes());
    }
    if (label === "repeated") ((out[name] ??= []) as unknown[]).push(v);
    else out[name] = v;
  }
  return out;
}

const named = (entries: unknown, name: string) => (entries as { name: string; value: Decoded }[]).find((e) => e.name === name)?.value;
const ext = (node: Decoded, name: string) => parseYAML(String((named(node.vendor_extension, name) as { yaml: string }).yaml)) as unknown;

describe("OpenAPI v2 as gnostic protobuf", () => {
  it("starts as kubectl 1.20 expects: swagger (1) then info (2)", () => {
    const pb = encodeOpenAPIV2({ swagger: "2.0", info: { title: "Kubernetes", version: "v1.36.0" } });
    expect(Buffer.from(pb).toString("hex")).toBe(
      Buffer.concat([Buffer.from([0x0a, 0x03]), Buffer.from("2.0"), Buffer.from([0x12, 0x15, 0x0a, 0x0a]), Buffer.from("Kubernetes"), Buffer.from([0x12, 0x07]), Buffer.from("v1.36.0")]).toString("hex"),
    );
  });

  it("maps every Swagger construct as gnostic's compiler does", () => {
    const doc = {
      swagger: "2.0",
      info: { title: "t", version: "v" },
      basePath: "/",
      paths: {
        "/apis/g/v1/things/{name}": {
          parameters: [{ name: "name", in: "path", required: true, type: "string", uniqueItems: true }, { $ref: "#/parameters/pretty" }],
          get: {
            operationId: "readThing",
            consumes: ["*/*"],
            produces: ["application/json"],
            schemes: ["https"],
            tags: ["g_v1"],
            responses: { "200": { description: "OK", schema: { $ref: "#/definitions/Thing" } }, "401": { description: "Unauthorized" } },
            "x-kubernetes-action": "get",
            "x-kubernetes-group-version-kind": { group: "g", version: "v1", kind: "Thing" },
          },
          put: {
            parameters: [{ name: "body", in: "body", required: true, schema: { $ref: "#/definitions/Thing" } }, { name: "dryRun", in: "query", type: "string", uniqueItems: true }],
            responses: { "200": { description: "OK" } },
          },
        },
        "x-top": 1,
      },
      definitions: {
        Thing: {
          description: "A thing.",
          type: "object",
          required: ["spec"],
          properties: {
            spec: { type: "object", additionalProperties: { type: "string" } },
            any: { type: "object", additionalProperties: true },
            no: { type: "object", additionalProperties: false },
            size: { type: "integer", format: "int32", minimum: 1, maximum: 10.5, default: 3 },
            tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
            mode: { type: "string", enum: ["a", "b"] },
            dual: { type: ["string", "null"] },
          },
          "x-kubernetes-group-version-kind": [{ group: "g", kind: "Thing", version: "v1" }],
        },
      },
      parameters: { pretty: { name: "pretty", in: "query", type: "string", uniqueItems: true } },
      securityDefinitions: { BearerToken: { type: "apiKey", name: "authorization", in: "header", description: "Bearer" } },
      security: [{ BearerToken: [] }],
    };
    const d = decode("Document", encodeOpenAPIV2(doc));
    expect(d.swagger).toBe("2.0");
    expect(d.base_path).toBe("/");
    const paths = d.paths as Decoded;
    expect(ext(paths, "x-top")).toBe(1);
    const item = named(paths.path, "/apis/g/v1/things/{name}")!;
    const [pathParam, refParam] = item.parameters as Decoded[];
    expect(pathParam).toEqual({
      parameter: { non_body_parameter: { path_parameter_sub_schema: { required: true, in: "path", name: "name", type: "string", unique_items: true } } },
    });
    expect(refParam).toEqual({ json_reference: { _ref: "#/parameters/pretty" } });
    const get = item.get as Decoded;
    expect(get).toMatchObject({ operation_id: "readThing", consumes: ["*/*"], produces: ["application/json"], schemes: ["https"], tags: ["g_v1"] });
    expect(ext(get, "x-kubernetes-action")).toBe("get");
    expect(ext(get, "x-kubernetes-group-version-kind")).toEqual({ group: "g", version: "v1", kind: "Thing" });
    const ok = named((get.responses as Decoded).response_code, "200")!;
    expect(ok).toEqual({ response: { description: "OK", schema: { schema: { _ref: "#/definitions/Thing" } } } });
    const [body, dryRun] = (item.put as Decoded).parameters as Decoded[];
    expect(body).toEqual({ parameter: { body_parameter: { name: "body", in: "body", required: true, schema: { _ref: "#/definitions/Thing" } } } });
    expect(dryRun).toMatchObject({ parameter: { non_body_parameter: { query_parameter_sub_schema: { name: "dryRun", in: "query" } } } });

    const thing = named((d.definitions as Decoded).additional_properties, "Thing")!;
    expect(thing).toMatchObject({ description: "A thing.", type: { value: ["object"] }, required: ["spec"] });
    expect(ext(thing, "x-kubernetes-group-version-kind")).toEqual([{ group: "g", kind: "Thing", version: "v1" }]);
    const props = (thing.properties as Decoded).additional_properties;
    expect(named(props, "spec")).toEqual({ type: { value: ["object"] }, additional_properties: { schema: { type: { value: ["string"] } } } });
    expect(named(props, "any")!.additional_properties).toEqual({ boolean: true });
    expect(named(props, "no")!.additional_properties).toEqual({ boolean: false });
    expect(named(props, "size")).toEqual({ format: "int32", minimum: 1, maximum: 10.5, default: { yaml: "3\n" }, type: { value: ["integer"] } });
    const tags = named(props, "tags")!;
    expect(tags.items).toEqual({ schema: [{ type: { value: ["string"] } }] });
    expect(ext(tags, "x-kubernetes-list-type")).toBe("set");
    expect((named(props, "mode")!.enum as { yaml: string }[]).map((e) => parseYAML(e.yaml) as unknown)).toEqual(["a", "b"]);
    expect(named(props, "dual")!.type).toEqual({ value: ["string", "null"] });

    expect(named((d.parameters as Decoded).additional_properties, "pretty")).toMatchObject({ non_body_parameter: { query_parameter_sub_schema: { name: "pretty" } } });
    expect(named((d.security_definitions as Decoded).additional_properties, "BearerToken")).toEqual({
      api_key_security: { type: "apiKey", name: "authorization", in: "header", description: "Bearer" },
    });
    expect(d.security).toEqual([{ additional_properties: [{ name: "BearerToken", value: {} }] }]);
  });

  it("encodes the served document: every definition keeps its group-version-kind and patch metadata", () => {
    const doc = openAPIV2(builtinStrategies().map(servedResourceOf)) as { definitions: Record<string, unknown>; paths: Record<string, unknown> };
    const d = decode("Document", encodeOpenAPIV2(doc));
    const defs = (d.definitions as Decoded).additional_properties as { name: string; value: Decoded }[];
    expect(defs.map((x) => x.name)).toEqual(Object.keys(doc.definitions));
    const deployment = named(defs, "io.k8s.api.apps.v1.Deployment")!;
    expect(ext(deployment, "x-kubernetes-group-version-kind")).toEqual([{ group: "apps", kind: "Deployment", version: "v1" }]);
    const podSpec = named(defs, "io.k8s.api.core.v1.PodSpec")!;
    const containers = named((podSpec.properties as Decoded).additional_properties, "containers")!;
    expect(ext(containers, "x-kubernetes-patch-merge-key")).toBe("name");
    expect(ext(containers, "x-kubernetes-patch-strategy")).toBe("merge");
    expect(((d.paths as Decoded).path as unknown[]).length).toBe(Object.keys(doc.paths).length);
  });
});
