import { describe, expect, it } from "vitest";
import { deepFreeze } from "../../apimachinery/deepcopy.js";
import { decodeProtobufBody, decodeProtobufMessage, encodeProtobufBody } from "../protobuf/index.js";
import { bodyBytes, bodyChunks, objectBytes, protobufBodyBytes, protobufWatchFrame } from "./serialize.js";

const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, resourceVersion: "7", labels: { "a/b": "é ✓" } }, data: { k: 'v"\n' } });

describe("response serialization", () => {
  const cases: Array<[string, unknown]> = [
    ["a plain object", cm("a")],
    ["a frozen object", deepFreeze(cm("b"))],
    ["a list of frozen items", { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "9" }, items: [deepFreeze(cm("c")), deepFreeze(cm("d"))] }],
    ["a list of plain items", { kind: "List", items: [cm("e"), cm("f")] }],
    ["an empty list", { kind: "ConfigMapList", metadata: {}, items: [] }],
    ["a list whose items are not last", { items: [deepFreeze(cm("g"))], kind: "ConfigMapList" }],
    ["a list with a non-object item", { kind: "List", items: [deepFreeze(cm("h")), null, 3] }],
    ["a list whose items array is frozen", { kind: "ConfigMapList", metadata: { resourceVersion: "5" }, items: Object.freeze([deepFreeze(cm("p")), deepFreeze(cm("q"))]) }],
    ["a frozen items array with a non-object item", { kind: "List", items: Object.freeze([deepFreeze(cm("r")), null]) }],
    ["a list with an undefined item", { kind: "List", items: [undefined, deepFreeze(cm("i"))] }],
    ["a list with an undefined field after items", { kind: "List", items: [deepFreeze(cm("j"))], extra: undefined }],
    ["a Status", { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: 404 }],
    ["a string", "x"],
    ["null", null],
  ];
  it.each(cases)("%s: the UTF-8 of JSON.stringify", (_, body) => {
    expect(bodyBytes(body).toString("utf8")).toBe(JSON.stringify(body));
    expect(bodyBytes(body).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    const { chunks, length } = bodyChunks(body);
    expect(Buffer.concat(chunks as Buffer[]).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    expect(length).toBe(Buffer.byteLength(JSON.stringify(body)));
  });

  it("gives a list of frozen items as the items' own cached bytes, not a copy", () => {
    const items = [deepFreeze(cm("m")), deepFreeze(cm("n"))];
    const { chunks } = bodyChunks({ kind: "ConfigMapList", metadata: {}, items });
    expect(chunks).toHaveLength(5);
    expect(chunks[1]).toBe(objectBytes(items[0]));
    expect(chunks[3]).toBe(objectBytes(items[1]));
  });

  it("keeps the bytes of a frozen items array beside it, whatever the list's metadata", () => {
    const items = Object.freeze([deepFreeze(cm("s")), deepFreeze(cm("t"))]);
    const a = bodyChunks({ kind: "ConfigMapList", metadata: { resourceVersion: "1" }, items });
    const b = bodyChunks({ kind: "ConfigMapList", metadata: { resourceVersion: "2" }, items });
    expect(a.chunks).toHaveLength(3);
    expect(b.chunks[1]).toBe(a.chunks[1]);
    expect(bodyBytes({ kind: "ConfigMapList", metadata: { resourceVersion: "2" }, items }).toString()).toBe(JSON.stringify({ kind: "ConfigMapList", metadata: { resourceVersion: "2" }, items }));
  });

  it("encodes a frozen object once and reuses the bytes", () => {
    const o = deepFreeze(cm("k"));
    expect(objectBytes(o)).toBe(objectBytes(o));
    expect(bodyBytes(o)).toBe(objectBytes(o));
  });

  it("encodes unfrozen objects afresh, so later changes show", () => {
    const o = cm("l");
    const first = objectBytes(o).toString();
    o.data.k = "changed";
    expect(objectBytes(o).toString()).not.toBe(first);
    expect(objectBytes(o).toString()).toBe(JSON.stringify(o));
  });
});

describe("protobuf response serialization", () => {
  const list = (items: object[]) => ({ apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "9", continue: "c" }, items });

  it.each<[string, object]>([
    ["an object", cm("a")],
    ["a frozen object", deepFreeze(cm("b"))],
    ["a list of frozen items", list([deepFreeze(cm("c")), deepFreeze(cm("d"))])],
    ["a list of plain items", list([cm("e")])],
    ["an empty list", list([])],
    ["a frozen list", deepFreeze(list([cm("f")]))],
    ["a Status", { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "m", reason: "NotFound", code: 404 }],
  ])("%s: the same bytes as encoding the whole body", (_, body) => {
    const got = protobufBodyBytes(body)!;
    expect(got.equals(Buffer.from(encodeProtobufBody(body as never)))).toBe(true);
    // Items carry no TypeMeta on the wire.
    const back = decodeProtobufBody(new Uint8Array(got)).object;
    expect(back.kind).toBe((body as { kind: string }).kind);
  });

  it("answers undefined for kinds without a table (custom resources) and for values of the wrong type", () => {
    expect(protobufBodyBytes({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } })).toBeUndefined();
    expect(protobufBodyBytes({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: "3" } })).toBeUndefined();
    expect(protobufBodyBytes("text")).toBeUndefined();
  });

  it("frames a watch event as a 4-byte big-endian length and a raw WatchEvent", () => {
    const obj = deepFreeze(cm("w"));
    const frame = protobufWatchFrame("MODIFIED", obj)!;
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const ev = decodeProtobufMessage(new Uint8Array(frame.subarray(4)), "meta/v1.WatchEvent");
    expect(ev).toEqual({ type: "MODIFIED", object: decodeProtobufBody(encodeProtobufBody(obj)).object });
    expect(protobufWatchFrame("ADDED", { apiVersion: "example.com/v1", kind: "Widget" })).toBeUndefined();
  });
});
