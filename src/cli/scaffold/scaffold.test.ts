import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "../main.js";
import { starterResource } from "./api.js";
import { apiNames, guessPlural, kindFromName, projectNames, ScaffoldError } from "./names.js";
import { kubeloopToolchain, SCAFFOLD_DEV_DEPENDENCIES } from "./project.js";
import { applyPlan, insertAtMarker } from "./writer.js";
import { captureIO as io, tempDirs } from "../../../test/cli/io.js";

const tempDir = tempDirs("kubeloop-scaffold-");

const repoRoot = new URL("../../../", import.meta.url);


/** Runs the CLI in `cwd` (the commands resolve paths against process.cwd()). */
async function cli(args: string[], cwd: string): Promise<{ code: number; lines: string[]; errors: string[] }> {
  const was = process.cwd();
  process.chdir(cwd);
  try {
    const o = io();
    const code = await runCli(args, o);
    return { code, lines: o.lines, errors: o.errors };
  } finally {
    process.chdir(was);
  }
}

describe("scaffold names", () => {
  it("guesses plurals as apimachinery's UnsafeGuessKindToResource, with English's rules where it goes wrong", () => {
    const table: Array<[string, string]> = [
      ["Demo", "demos"],
      ["Policy", "policies"],
      ["Ingress", "ingresses"],
      ["Endpoints", "endpoints"],
      ["MyApp", "myapps"],
      ["Gateway", "gateways"],
      ["Box", "boxes"],
      ["Patch", "patches"],
      ["Key", "keys"],
      ["", ""],
    ];
    for (const [kind, plural] of table) expect(guessPlural(kind), kind).toBe(plural);
  });

  it("derives the default kind from the project name", () => {
    expect(kindFromName("demo")).toBe("Demo");
    expect(kindFromName("my-app")).toBe("MyApp");
    expect(kindFromName("web2")).toBe("Web2");
  });

  it("completes a short group with the domain and keeps a full one", () => {
    expect(apiNames({ group: "ops", kind: "Widget" }, "example.com")).toMatchObject({
      group: "ops.example.com",
      version: "v1alpha1",
      plural: "widgets",
      singular: "widget",
      crdName: "widgets.ops.example.com",
      scope: "Namespaced",
    });
    expect(apiNames({ group: "ops.acme.io", version: "v1", kind: "Widget", scope: "Cluster" }, "example.com")).toMatchObject({ group: "ops.acme.io", version: "v1", scope: "Cluster" });
  });

  it("rejects bad names with one line naming the value", () => {
    const table: Array<[() => unknown, RegExp]> = [
      [() => projectNames("Demo"), /^invalid project name "Demo": a lowercase RFC 1123 label/],
      [() => projectNames("my_app"), /^invalid project name "my_app"/],
      [() => projectNames("a".repeat(41)), /must be no more than 40 characters/],
      [() => projectNames("demo", "localhost"), /^invalid domain "localhost": must contain at least one dot$/],
      [() => projectNames("demo", "Example.com"), /^invalid domain "Example.com"/],
      [() => apiNames({ group: "Ops", kind: "Widget" }, "example.com"), /^invalid group "Ops.example.com"/],
      [() => apiNames({ group: "ops", kind: "widget" }, "example.com"), /^invalid kind "widget": must be UpperCamelCase/],
      [() => apiNames({ group: "ops", kind: "Wid-get" }, "example.com"), /^invalid kind "Wid-get"/],
      [() => apiNames({ group: "ops", kind: "Widget", version: "1" }, "example.com"), /^invalid version "1": want a Kubernetes API version/],
      [() => apiNames({ group: "ops", kind: "Widget", version: "v1beta" }, "example.com"), /^invalid version "v1beta"/],
      [() => apiNames({ group: "ops", kind: "Argument" }, "example.com"), /reserved word/],
      [() => apiNames({ group: "ops", kind: `W${"x".repeat(70)}` }, "example.com"), /^invalid kind "Wx+": its plural/],
    ];
    for (const [f, want] of table) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ScaffoldError);
      expect((err as Error).message).toMatch(want);
      expect((err as Error).message).not.toContain("\n");
    }
  });
});

describe("scaffold markers", () => {
  const text = ["rules:", "  - a", "  # +kubeloop:scaffold:rbac", "end"].join("\n");

  it("inserts above the marker, indented as it is", () => {
    expect(insertAtMarker(text, "rbac", "- b\n  c")).toBe(["rules:", "  - a", "  - b", "    c", "  # +kubeloop:scaffold:rbac", "end"].join("\n"));
  });

  it("is idempotent: the same snippet twice inserts it once", () => {
    const once = insertAtMarker(text, "rbac", "- b\n  c");
    expect(insertAtMarker(once, "rbac", "- b\n  c")).toBe(once);
    // A different snippet still goes in, after the first.
    expect(insertAtMarker(once, "rbac", "- d").split("\n")).toEqual(["rules:", "  - a", "  - b", "    c", "  - d", "  # +kubeloop:scaffold:rbac", "end"]);
  });

  it("fails when the marker is gone", () => {
    expect(() => insertAtMarker("rules: []", "rbac", "- b", "deploy/rbac.yaml")).toThrow('deploy/rbac.yaml: no "+kubeloop:scaffold:rbac" marker to add to (was it removed?)');
  });
});

describe("scaffold writer", () => {
  it("refuses to overwrite an existing file and writes nothing at all; --force replaces", async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, "b.txt"), "mine");
    const plan = { files: [{ path: "a/a.txt", text: "new a" }, { path: "b.txt", text: "new b" }], edits: [] };
    expect(() => applyPlan(dir, plan)).toThrow("b.txt exists: not overwriting without --force");
    expect(existsSync(join(dir, "a/a.txt"))).toBe(false);
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("mine");
    expect(applyPlan(dir, plan, { force: true })).toMatchObject({ created: ["a/a.txt"], replaced: ["b.txt"] });
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("new b");
  });

  it("refuses a plan whose edit has no marker before writing any file", async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, "main.ts"), "no marker here\n");
    const plan = { files: [{ path: "new.ts", text: "x" }], edits: [{ path: "main.ts", section: "imports", snippet: "import x;" }] };
    expect(() => applyPlan(dir, plan)).toThrow('main.ts: no "+kubeloop:scaffold:imports" marker');
    expect(existsSync(join(dir, "new.ts"))).toBe(false);
  });
});

describe("the scaffold's toolchain", () => {
  it("is kubeloop's own: its version as a caret range, and the dev dependencies kubeloop is built and tested with (in its lock file)", () => {
    const pkg = JSON.parse(readFileSync(new URL("package.json", repoRoot), "utf8")) as { version: string; devDependencies: Record<string, string> };
    const lock = JSON.parse(readFileSync(new URL("package-lock.json", repoRoot), "utf8")) as { packages: Record<string, { version: string }> };
    const t = kubeloopToolchain();
    expect(t.kubeloop).toBe(`^${pkg.version}`);
    for (const d of SCAFFOLD_DEV_DEPENDENCIES) {
      expect(t.devDependencies[d]).toBe(pkg.devDependencies[d]);
      expect(lock.packages[`node_modules/${d}`]?.version, d).toBeDefined();
    }
  });
});

describe("kubeloop init and create api", () => {
  it("writes a project whose CRD YAML is the declaration's, registers a second API at the markers, and refuses to redo either", async () => {
    const dir = await tempDir();
    const init = await cli(["init", "demo", "--domain", "example.org"], dir);
    expect(init.errors).toEqual([]);
    expect(init.code).toBe(0);
    const root = join(dir, "demo");
    expect(init.lines).toContain("created src/controllers/demo.ts");
    expect(init.lines.at(-1)).toBe(`next: cd ${root} && npm install && npm test`);
    const read = (p: string) => readFileSync(join(root, p), "utf8");

    const pkg = JSON.parse(read("package.json")) as { dependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.dependencies.kubeloop).toBe(kubeloopToolchain().kubeloop);
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(["build", "test", "start", "crd:gen"]));
    const crd = parse(read("deploy/crds/demos.demo.example.org.yaml")) as unknown;
    const first = apiNames({ group: "demo", kind: "Demo" }, "example.org");
    expect(crd).toEqual(starterResource(first).manifest());
    expect(read("deploy/helm/demo/crds/demos.demo.example.org.yaml")).toBe(read("deploy/crds/demos.demo.example.org.yaml"));
    expect(read("src/main.ts")).toContain('import { setupDemoController } from "./controllers/demo.js";\n// +kubeloop:scaffold:imports');
    expect(read("src/main.ts")).toContain("setupDemoController(mgr);\n// +kubeloop:scaffold:controllers");

    const api = await cli(["create", "api", "--group", "ops", "--version", "v1", "--kind", "Policy", "--cluster"], root);
    expect(api.errors).toEqual([]);
    expect(api.code).toBe(0);
    expect(api.lines).toEqual(
      expect.arrayContaining(["created src/api/v1/policy.ts", "created deploy/crds/policies.ops.example.org.yaml", "updated src/main.ts", "updated deploy/rbac.yaml", "updated PROJECT"]),
    );
    const main = read("src/main.ts");
    expect(main).toContain("setupDemoController(mgr);\nsetupPolicyController(mgr);\n// +kubeloop:scaffold:controllers");
    expect(read("src/api/index.ts")).toContain('export { policies, type Policy } from "./v1/policy.js";');
    expect((parse(read("deploy/kustomization.yaml")) as { resources: string[] }).resources).toEqual([
      "namespace.yaml",
      "crds/demos.demo.example.org.yaml",
      "crds/policies.ops.example.org.yaml",
      "serviceaccount.yaml",
      "rbac.yaml",
      "deployment.yaml",
    ]);
    const [role] = parseAllDocuments(read("deploy/rbac.yaml")).map((d) => d.toJS() as { kind: string; rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> });
    expect(role.kind).toBe("ClusterRole");
    expect(role.rules.map((r) => `${r.apiGroups[0]}/${r.resources[0]}: ${r.verbs.join(",")}`)).toEqual([
      "/events: create,patch",
      "demo.example.org/demos: get,list,watch",
      "demo.example.org/demos/status: update,patch",
      "demo.example.org/demos/finalizers: update",
      "/configmaps: get,list,watch,create,update,patch",
      "ops.example.org/policies: get,list,watch",
      "ops.example.org/policies/status: update,patch",
      "ops.example.org/policies/finalizers: update",
    ]);
    expect((parse(read("PROJECT")) as { resources: unknown[] }).resources).toEqual([
      { group: "demo.example.org", version: "v1alpha1", kind: "Demo", plural: "demos", scope: "Namespaced" },
      { group: "ops.example.org", version: "v1", kind: "Policy", plural: "policies", scope: "Cluster" },
    ]);

    // Again: refused with one line, and nothing changes.
    const before = main;
    const again = await cli(["create", "api", "--group", "ops", "--version", "v1", "--kind", "Policy", "--cluster"], root);
    expect(again.code).toBe(1);
    expect(again.errors).toEqual(["error: the project already has Policy in ops.example.org (PROJECT): not overwriting without --force"]);
    expect(read("src/main.ts")).toBe(before);
    // --force rewrites the API's files; the markers' registrations stay single.
    const forced = await cli(["create", "api", "--group", "ops", "--version", "v1", "--kind", "Policy", "--cluster", "--force"], root);
    expect(forced.code).toBe(0);
    expect(read("src/main.ts")).toBe(before);
    expect(forced.lines).toContain("replaced src/api/v1/policy.ts");

    const reinit = await cli(["init", "demo", "--domain", "example.org"], dir);
    expect(reinit.code).toBe(1);
    expect(reinit.errors).toHaveLength(1);
    expect(reinit.errors[0]).toMatch(/^error: \d+ files exist \(PROJECT, package\.json, tsconfig\.json, …\): not overwriting without --force$/);
  });

  it("bad input: one line and a non-zero exit", async () => {
    const dir = await tempDir();
    const table: Array<[string[], string]> = [
      [["init", "Demo"], 'error: invalid project name "Demo": '],
      [["init", "demo", "--kind", "demo"], 'error: invalid kind "demo": must be UpperCamelCase'],
      [["init", "demo", "--namespaced", "--cluster"], "error: --namespaced and --cluster exclude each other"],
      [["create", "api", "--group", "ops", "--kind", "Widget"], `error: no PROJECT file in ${dir}: run kubeloop create api inside a project made by kubeloop init`],
      [["create", "api", "--kind", "Widget"], "error: --group is required"],
    ];
    for (const [args, want] of table) {
      const r = await cli(args, dir);
      expect(r.code, args.join(" ")).not.toBe(0);
      expect(r.errors, args.join(" ")).toHaveLength(1);
      expect(r.errors[0].startsWith(want), `${args.join(" ")}: ${r.errors[0]}`).toBe(true);
    }
    expect(existsSync(join(dir, "demo"))).toBe(false);
  });
});
