/**
 * Round trip over upstream's fixtures (kubernetes/api testdata/HEAD, committed under
 * testdata/k8s-api-1.36 by scripts/protobuf/fixtures.mjs): for every kind of every group/version,
 * decoding the `.pb` gives the object of the `.json` (Go's encoding/json of the same Go value), and
 * encoding the `.json` gives the `.pb` byte for byte.
 *
 * That covers upstream's JSON ↔ protobuf conventions at every depth: IntOrString, Quantity, Time /
 * MicroTime / Duration, RawExtension (JSON bytes inside), FieldsV1, maps (entries sorted by key),
 * byte fields (base64 in JSON), named slices (wrapper messages), inline structs, JSONSchemaProps.
 *
 * One documented equivalence: WatchEvent has no TypeMeta, so its fixture's envelope names no kind;
 * it is decoded and encoded as the meta/v1.WatchEvent message.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { readEnvelope } from "./envelope.js";
import {
  decodeProtobufBody,
  decodeProtobufMessage,
  encodeProtobufBody,
  encodeProtobufMessage,
  protobufMessageFor,
  wrapEnvelope,
} from "./index.js";

const dir = join(import.meta.dirname, "testdata", "k8s-api-1.36", "HEAD");
const names = readdirSync(dir)
  .filter((f) => f.endsWith(".pb"))
  .map((f) => f.slice(0, -3))
  .sort();

const prerelease = (name: string) => /\.v\d+(alpha|beta)\d+\./.test(name);

function load(name: string): { pb: Uint8Array; json: KubeObject } {
  return {
    pb: new Uint8Array(readFileSync(join(dir, `${name}.pb`))),
    json: JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8")) as KubeObject,
  };
}

/** Objects without TypeMeta (their envelope names no kind) and the message they are. */
const untyped: Readonly<Record<string, string>> = { "core.v1.WatchEvent": "meta/v1.WatchEvent" };

/** The fixtures' source (shared/k8s-api-1.36 beside the repository, as on CI), if present. */
const k8sApi = [join("..", "shared", "k8s-api-1.36"), join("..", "..", "shared", "k8s-api-1.36")].find((d) => existsSync(join(d, "testdata", "HEAD")));

describe("upstream fixtures (testdata/HEAD)", () => {
  it.skipIf(k8sApi === undefined)("the committed copy is upstream's (scripts/protobuf/fixtures.mjs --check)", () => {
    const out = execFileSync(process.execPath, ["scripts/protobuf/fixtures.mjs", "--check", "--input", k8sApi!], { encoding: "utf8" });
    expect(out).toContain("up to date");
  });

  it("are all here: every kind of every group/version, stable ones included", () => {
    expect(names.length).toBeGreaterThanOrEqual(185);
    expect(names.filter((n) => !prerelease(n)).length).toBeGreaterThanOrEqual(91);
    for (const n of ["core.v1.Pod", "apps.v1.Deployment", "batch.v1.CronJob", "resource.k8s.io.v1.ResourceClaim", "autoscaling.v2.HorizontalPodAutoscaler"]) {
      expect(names).toContain(n);
    }
  });

  describe.each(names)("%s", (name) => {
    const { pb, json } = load(name);
    const message = untyped[name];

    it("decodes to the JSON fixture", () => {
      if (message) {
        const env = readEnvelope(pb, []);
        expect(env.kind).toBe("");
        expect(decodeProtobufMessage(env.raw, message)).toEqual(json);
        return;
      }
      const { object, unknownFields } = decodeProtobufBody(pb);
      expect(unknownFields).toEqual([]);
      expect(object).toEqual(json);
      // Keys come out in Go's declaration order, as encoding/json writes them.
      expect(JSON.stringify(object)).toBe(JSON.stringify(json));
    });

    it("encodes the JSON fixture to the same bytes", () => {
      const bytes = message
        ? wrapEnvelope("", "", encodeProtobufMessage(json as Record<string, unknown>, message))
        : encodeProtobufBody(json);
      expect(Buffer.from(bytes).equals(Buffer.from(pb))).toBe(true);
    });

    if (!message) {
      it("has a table for its kind", () => {
        expect(protobufMessageFor(json.apiVersion!, json.kind!)).toBeDefined();
      });
    }
  });
});
