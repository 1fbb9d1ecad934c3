/**
 * Round trips over upstream's fully populated fixtures (kubernetes/api testdata/HEAD, one per kind
 * and version, copied into src/apiserver/protobuf/testdata/k8s-api-1.36 by
 * scripts/protobuf/fixtures.mjs), those of stable versions (served by default): each decodes under fieldValidation=Strict with no unknown
 * field, re-encodes to the fixture (they are Go's own encoding, hence already in normal form),
 * and decoding is idempotent. And the protobuf bodies captured from kubectl 1.35 normalise to
 * what the same objects normalise to as JSON.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeProtobufBody } from "../protobuf/index.js";
import { builtinKind, decodeRequestBody, type DecodeTarget } from "./request.js";

const dir = new URL("../protobuf/testdata/k8s-api-1.36/HEAD/", import.meta.url);
/**
 * `<group>.<version>.<Kind>.json` of a stable version (v1, v2): alpha and beta are not served by
 * default; apidiscovery's documents are responses only (no request body is ever one).
 */
const files = readdirSync(dir).filter((f) => /\.v[0-9]+\.[A-Za-z]+\.json$/.test(f) && !f.startsWith("apidiscovery."));

/** "apps.v1.Deployment.json" → apps/v1 Deployment; "core.v1.Pod.json" → /v1 Pod. */
function targetOf(file: string): DecodeTarget {
  const parts = file.slice(0, -".json".length).split(".");
  const kind = parts.pop()!;
  const version = parts.pop()!;
  const group = parts.join(".");
  return { group: group === "core" ? "" : group, version, kind };
}


describe("upstream fixtures (testdata/HEAD)", () => {
  it("covers every default-served group version", () => {
    expect(files.length).toBeGreaterThanOrEqual(90);
  });

  for (const file of files) {
    it(file, () => {
      const text = readFileSync(new URL(file, dir), "utf8");
      const target = targetOf(file);
      expect(builtinKind(target), "a kind of the schema table").toBeDefined();
      const first = decodeRequestBody(Buffer.from(text), "application/json", target, "Strict", undefined);
      expect(first.warnings).toEqual([]);
      expect(first.object).toEqual(JSON.parse(text));
      const again = decodeRequestBody(Buffer.from(JSON.stringify(first.object)), "application/json", target, "Strict", undefined);
      expect(again.object).toEqual(first.object);
    });
  }
});

interface Golden {
  name: string;
  path: string;
  bodyBase64: string;
  expectedJson?: Record<string, unknown>;
}

const golden = JSON.parse(readFileSync(new URL("../protobuf/testdata/kubectl-bodies.json", import.meta.url), "utf8")) as { fixtures: Golden[] };

/** Go prints zero structs as `{}` and nil slices as `null`; the walk leaves both absent (README). */
function withoutZeroStructs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutZeroStructs);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutZeroStructs(x);
    if (y === null || (typeof y === "object" && !Array.isArray(y) && Object.keys(y).length === 0)) continue;
    out[k] = y;
  }
  return out;
}

describe("protobuf bodies of kubectl 1.35 normalise as their JSON does", () => {
  for (const g of golden.fixtures) {
    if (!g.expectedJson) continue;
    it(g.name, () => {
      const body = Buffer.from(g.bodyBase64, "base64");
      const decoded = decodeProtobufBody(new Uint8Array(body));
      const apiVersion = String(decoded.object.apiVersion);
      const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
      const target = { group, version, kind: String(decoded.object.kind) };
      const fromProto = decodeRequestBody(body, "application/vnd.kubernetes.protobuf", target, "Strict", (b) => decodeProtobufBody(b));
      const fromJSON = decodeRequestBody(Buffer.from(JSON.stringify(g.expectedJson)), "application/json", target, "Strict", undefined);
      expect(fromJSON.warnings).toEqual([]);
      expect(withoutZeroStructs(fromProto.object)).toEqual(withoutZeroStructs(fromJSON.object));
    });
  }
});
