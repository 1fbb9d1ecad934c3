import { describe, expect, it } from "vitest";
import { applyDefaults, prune, pruneNonNullableNulls } from "./prune.js";
import { validateEmbeddedResources, validateListSetsAndMaps } from "./structure.js";
import type { Schema } from "./schema.js";

const schema: Schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        a: { type: "string" },
        list: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { known: { type: "object", properties: { x: { type: "string" } } } } },
        labels: { type: "object", additionalProperties: { type: "string" } },
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          properties: { spec: { type: "object", properties: { b: { type: "integer" } } } },
        },
      },
    },
  },
};

describe("prune", () => {
  it("removes unknown fields and reports their paths sorted", () => {
    const obj = {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "a" },
      spec: {
        a: "ok",
        zz: 1,
        list: [{ name: "n", bad: true }],
        free: { anything: { goes: 1 }, known: { x: "y", nope: 2 } },
        labels: { k: "v" },
        template: { apiVersion: "v1", kind: "Pod", metadata: { name: "t", bogus: 1 }, spec: { b: 1, c: 2 }, other: 3 },
      },
      extra: {},
    };
    expect(prune(obj, schema, true)).toEqual([
      "extra",
      "spec.free.known.nope",
      "spec.list[0].bad",
      "spec.template.metadata.bogus",
      "spec.template.other",
      "spec.template.spec.c",
      "spec.zz",
    ]);
    expect(obj).toEqual({
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "a" },
      spec: {
        a: "ok",
        list: [{ name: "n" }],
        free: { anything: { goes: 1 }, known: { x: "y" } },
        labels: { k: "v" },
        template: { apiVersion: "v1", kind: "Pod", metadata: { name: "t" }, spec: { b: 1 } },
      },
    });
  });

  it("prunes everything below a node without a schema", () => {
    const obj = { spec: { a: "x" }, status: { b: 1 } };
    expect(prune(obj, { type: "object", properties: { spec: { type: "object", properties: { a: { type: "string" } } } } }, true)).toEqual(["status"]);
  });
});

describe("defaulting", () => {
  const s: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        default: {},
        properties: {
          replicas: { type: "integer", default: 1 },
          mode: { type: "string", default: "auto" },
          nested: { type: "object", default: { x: 1 }, properties: { x: { type: "integer" }, y: { type: "integer", default: 2 } } },
          items: { type: "array", items: { type: "object", properties: { p: { type: "integer", default: 80 } } } },
          opt: { type: "string" },
          nullable: { type: "string", nullable: true },
        },
      },
    },
  };

  it("fills missing fields top-down, including inside defaulted objects", () => {
    const obj: Record<string, unknown> = {};
    expect(applyDefaults(obj, s)).toBe(true);
    expect(obj).toEqual({ spec: { replicas: 1, mode: "auto", nested: { x: 1, y: 2 } } });
  });

  it("defaults list items and non-nullable nulls, and leaves set values alone", () => {
    const obj = { spec: { replicas: 3, mode: null, items: [{}, { p: 1 }] } };
    applyDefaults(obj, s);
    expect(obj.spec).toEqual({ replicas: 3, mode: "auto", nested: { x: 1, y: 2 }, items: [{ p: 80 }, { p: 1 }] });
    expect(applyDefaults(obj, s)).toBe(false);
  });

  it("drops non-nullable nulls without a default", () => {
    const obj = { spec: { opt: null, nullable: null, replicas: null } };
    pruneNonNullableNulls(obj, s);
    expect(obj).toEqual({ spec: { nullable: null, replicas: null } });
  });
});

describe("list types and embedded resources", () => {
  const s: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
          ports: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["port", "protocol"],
            items: { type: "object", properties: { port: { type: "integer" }, protocol: { type: "string" } } },
          },
          template: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true },
        },
      },
    },
  };

  it("reports duplicates of sets and of map keys", () => {
    const obj = {
      spec: {
        tags: ["a", "b", "a", "a"],
        ports: [
          { port: 80, protocol: "TCP" },
          { port: 80, protocol: "UDP" },
          { port: 80, protocol: "TCP" },
        ],
      },
    };
    expect(validateListSetsAndMaps(obj, s).map((e) => e.toString())).toEqual([
      'spec.tags[2]: Duplicate value: "a"',
      'spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}',
    ]);
  });

  it("requires apiVersion and kind of embedded resources and checks their metadata", () => {
    const errs = validateEmbeddedResources({ spec: { template: { metadata: { name: "a/b" }, kind: "pod_x" } } }, s).map((e) => e.toString());
    expect(errs).toEqual([
      "spec.template.apiVersion: Required value",
      "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'",
      'spec.template.kind: Invalid value: "pod_x": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    ]);
  });
});
