import { existsSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { applicationCRD } from "../controllers/application/declaration.js";
import { staleFiles } from "../runtime/crd/generate.js";
import { typesFromCRDYaml } from "../runtime/crd/typesgen.js";
import { builtinCRDFiles } from "./crd.js";
import { runCli } from "./main.js";
import { captureIO as io, tempDirs } from "../../test/cli/io.js";

const tempDir = tempDirs("kubeloop-crd-");

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const GATEWAY_CLASSES = join(root, "test/fixtures/crds/gateway-api/gateway.networking.k8s.io_gatewayclasses.yaml");
const GATEWAY_CLASSES_TS = join(root, "test/fixtures/crds/gateway-api/gatewayclasses.generated.ts");


describe("kubeloop crd gen", () => {
  it("the committed deploy/crds and Helm chart CRDs are what `kubeloop crd gen` writes (run it when this fails)", () => {
    const files = builtinCRDFiles(root);
    expect(files.map((f) => f.path.slice(root.length + 1))).toEqual([
      "deploy/crds/applications.kubeloop.dev.yaml",
      "deploy/helm/kubeloop-application/crds/applications.kubeloop.dev.yaml",
    ]);
    expect(staleFiles(files).map((f) => f.path)).toEqual([]);
    // The file is the declaration's manifest, whatever the YAML formatting.
    expect(parse(readFileSync(files[0].path, "utf8"))).toEqual(applicationCRD.manifest());
  });

  it("writes into --out directories, reports unchanged files, and --check fails on a stale file", async () => {
    const dir = await tempDir();
    const a = io();
    expect(await runCli(["crd", "gen", "--out", dir], a)).toBe(0);
    const file = join(dir, "applications.kubeloop.dev.yaml");
    expect(a.lines[0]).toMatch(/^wrote .*applications\.kubeloop\.dev\.yaml$/);
    expect(await readFile(file, "utf8")).toBe(readFileSync(join(root, "deploy/crds/applications.kubeloop.dev.yaml"), "utf8"));

    const b = io();
    expect(await runCli(["crd", "gen", "--out", dir], b)).toBe(0);
    expect(b.lines[0]).toMatch(/^unchanged /);
    const c = io();
    expect(await runCli(["crd", "gen", "--out", dir, "--check"], c)).toBe(0);
    expect(c.lines).toEqual(["1 CRD file(s) up to date"]);

    await writeFile(file, (await readFile(file, "utf8")).replace("maximum: 1000", "maximum: 999"));
    const d = io();
    expect(await runCli(["crd", "gen", "--out", dir, "--check"], d)).toBe(1);
    expect(d.errors).toHaveLength(1);
    expect(d.errors[0]).toMatch(/^error: stale CRD files \(run kubeloop crd gen\): .*applications\.kubeloop\.dev\.yaml$/);
  });

  it("loads declarations from a JavaScript module", async () => {
    const dir = await tempDir();
    const runtime = join(root, "src/runtime/crd/index.ts");
    const mod = join(dir, "crds.mjs");
    // Under vitest the .ts import resolves; users point at their compiled JS the same way.
    await writeFile(
      mod,
      `import { defineCustomResource, k } from ${JSON.stringify(runtime)};\n` +
        `export const things = defineCustomResource({ group: "example.com", scope: "Cluster", names: { kind: "Thing", plural: "things" }, versions: { v1: { spec: k.object({ n: k.integer() }) } } });\n` +
        `export const notACRD = 1;\n`,
    );
    const a = io();
    expect(await runCli(["crd", "gen", mod, "--out", join(dir, "out")], a)).toBe(0);
    expect(a.lines).toHaveLength(1);
    const text = await readFile(join(dir, "out/things.example.com.yaml"), "utf8");
    expect(parse(text)).toMatchObject({ kind: "CustomResourceDefinition", metadata: { name: "things.example.com" }, spec: { scope: "Cluster" } });
  });

  const bad: [string, string[], string][] = [
    ["a missing module", ["crd", "gen", "/nonexistent/crds.js"], "error: /nonexistent/crds.js: no such file"],
    ["a module without declarations", ["crd", "gen", "__SELF__"], "exports no custom resource declared with defineCustomResource"],
    ["a missing CRD file", ["crd", "types", "/nonexistent/crd.yaml"], "error: /nonexistent/crd.yaml: no such file"],
  ];
  it.each(bad)("fails with one line for %s", async (_name, argv, message) => {
    const dir = await tempDir();
    const self = join(dir, "empty.mjs");
    await writeFile(self, "export const x = 1;\n");
    const a = io();
    expect(await runCli(argv.map((x) => (x === "__SELF__" ? self : x)), a)).toBe(1);
    expect(a.errors).toHaveLength(1);
    expect(a.errors[0]).toContain(message);
  });
});

describe("kubeloop crd types", () => {
  it("emits the committed types for Gateway API's GatewayClass (regenerate the golden file when the generator changes)", () => {
    const text = typesFromCRDYaml(readFileSync(GATEWAY_CLASSES, "utf8"), { source: "gateway.networking.k8s.io_gatewayclasses.yaml", kubeloopModule: "../../../../src/index.js" });
    expect(existsSync(GATEWAY_CLASSES_TS)).toBe(true);
    expect(text).toBe(readFileSync(GATEWAY_CLASSES_TS, "utf8"));
  });

  it("maps the schema: required, enums, int-or-string, maps, preserve-unknown, embedded, nullable, doc comments, versions", () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "foos.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { kind: "Foo", plural: "foos" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                required: ["spec"],
                properties: {
                  spec: {
                    type: "object",
                    description: "The spec.",
                    required: ["mode"],
                    properties: {
                      mode: { type: "string", enum: ["A", "B"] },
                      surge: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
                      labels: { type: "object", additionalProperties: { type: "string" } },
                      raw: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                      tmpl: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true },
                      "dashed-name": { type: "integer", nullable: true },
                      items: { type: "array", items: { type: "object", properties: { n: { type: "number" } } } },
                    },
                  },
                },
              },
            },
          },
          { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { old: { type: "boolean" } } } } } } },
          { name: "v1alpha1", served: false, storage: false },
        ],
      },
    };
    const ts = typesFromCRDYaml(JSON.stringify(crd));
    expect(ts).toContain('import { defineResource, type metav1 } from "kubeloop";');
    expect(ts).toContain("export interface Foo {\n  apiVersion?: \"example.com/v1\";\n  kind?: \"Foo\";\n  metadata?: metav1.ObjectMeta;\n  /** The spec. */\n  spec: FooSpec;\n}");
    expect(ts).toContain("/** The spec. */\nexport interface FooSpec {");
    expect(ts).toContain('  mode: "A" | "B";');
    expect(ts).toContain("  surge?: number | string;");
    expect(ts).toContain("  labels?: Record<string, string>;");
    expect(ts).toContain("  raw?: Record<string, unknown>;");
    expect(ts).toContain("  tmpl?: { apiVersion?: string; kind?: string; metadata?: metav1.ObjectMeta; [key: string]: unknown };");
    expect(ts).toContain('  "dashed-name"?: number | null;');
    expect(ts).toContain("  items?: FooSpecItems[];");
    expect(ts).toContain("export interface FooV1beta1 {");
    expect(ts).toContain("export const foosV1beta1 = defineResource<FooV1beta1>({");
    expect(ts).toContain('export const foos = defineResource<Foo>({\n  group: "example.com",\n  version: "v1",\n  resource: "foos",\n  kind: "Foo",\n  namespaced: true,\n});');
    expect(ts).not.toContain("v1alpha1");
  });

  it("prints the module, or writes it with --out", async () => {
    const a = io();
    expect(await runCli(["crd", "types", GATEWAY_CLASSES], a)).toBe(0);
    expect(a.lines[0]).toMatch(/^\/\/ Generated by `kubeloop crd types`/);
    expect(a.lines.join("\n")).toContain("export const gatewayclasses = defineResource<GatewayClass>({");
    const dir = await tempDir();
    const b = io();
    expect(await runCli(["crd", "types", GATEWAY_CLASSES, "--out", join(dir, "gc.ts")], b)).toBe(0);
    expect(await readFile(join(dir, "gc.ts"), "utf8")).toContain("export interface GatewayClassV1beta1 {");
  });

  it("refuses a file without a CRD", async () => {
    expect(() => typesFromCRDYaml("kind: ConfigMap\n")).toThrow("no CustomResourceDefinition in the file");
    expect(() => typesFromCRDYaml("kind: CustomResourceDefinition\nspec: {}\n")).toThrow("spec.group is missing");
  });
});
