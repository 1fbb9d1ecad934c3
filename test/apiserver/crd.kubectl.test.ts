/**
 * The real kubectl 1.35 against the embedded server's CustomResourceDefinitions: apply a CRD,
 * wait for Established, create an instance, see printer columns and defaults, get upstream's
 * validation messages, scale through /scale, and 415 for strategic merge patch. Skipped when
 * kubectl cannot be extracted.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";

const run = promisify(execFile);

function kubectlPath(): string | undefined {
  try {
    return execFileSync(process.execPath, ["scripts/kubectl.mjs"], { encoding: "utf8" }).trim().split("\n").pop();
  } catch {
    return undefined;
  }
}

const kubectl = kubectlPath();

const crdYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 0, maximum: 10}
              color: {type: string, enum: [red, blue], default: red}
              replicas: {type: integer, default: 1}
          status:
            type: object
            properties:
              replicas: {type: integer}
`;

describe.skipIf(!kubectl)("real kubectl 1.35 with custom resources", () => {
  let srv: RunningApiServer;
  let dir: string;
  const k = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    try {
      const r = await run(kubectl!, ["--kubeconfig", srv.kubeconfigPath, ...args], { env: { ...process.env, HOME: dir }, timeout: 30_000 });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof x.code === "number" ? x.code : 1, out: x.stdout ?? "", err: x.stderr ?? "" };
    }
  };
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kubeloop-crd-"));
    srv = await startApiServer({ port: 0, kubeconfigPath: join(dir, "kubeconfig") });
  });
  afterAll(async () => {
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("applies a CRD and waits for Established", async () => {
    const a = await k("apply", "-f", file("crd.yaml", crdYAML));
    expect(a.err).toBe("");
    expect(a.out.trim()).toBe("customresourcedefinition.apiextensions.k8s.io/widgets.stable.example.com created");
    const w = await k("wait", "--for=condition=Established", "crd/widgets.stable.example.com", "--timeout=10s");
    expect(w.out.trim()).toBe("customresourcedefinition.apiextensions.k8s.io/widgets.stable.example.com condition met");
  });

  it("lists the resource in discovery and the CRD with the default table", async () => {
    const r = await k("api-resources", "--api-group=stable.example.com");
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/);
    expect(lines[1]).toMatch(/^widgets\s+wd\s+stable.example.com\/v1\s+true\s+Widget$/);
    const crds = await k("get", "crd");
    expect(crds.out.trim().split("\n")[0]).toMatch(/^NAME\s+CREATED AT$/);
    expect(crds.out).toMatch(/widgets\.stable\.example\.com\s+\d{4}-\d\d-\d\dT/);
  });

  it("creates an instance, shows printer columns and the defaulted field", async () => {
    const a = await k("apply", "-f", file("w1.yaml", "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n"));
    expect(a.err).toBe("");
    expect(a.out.trim()).toBe("widget.stable.example.com/w1 created");
    const g = await k("get", "widgets");
    const lines = g.out.trim().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+SIZE\s+COLOR\s+REPLICAS\s+AGE$/);
    expect(lines[1]).toMatch(/^w1\s+3\s+red\s+1\s+\d+s$/);
    const short = await k("get", "wd", "w1", "-o", "jsonpath={.spec.color}");
    expect(short.out).toBe("red");
    const again = await k("apply", "-f", join(dir, "w1.yaml"));
    expect(again.out.trim()).toBe("widget.stable.example.com/w1 unchanged");
  });

  it("rejects invalid objects with upstream's messages", async () => {
    const bad = await k("apply", "-f", file("bad.yaml", "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  size: 20\n  color: pink\n"));
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('The Widget "bad" is invalid:');
    expect(bad.err).toContain("spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10");
    expect(bad.err).toContain('spec.color: Unsupported value: "pink": supported values: "red", "blue"');
    const unknown = await k("apply", "-f", file("unk.yaml", "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: unk\nspec:\n  size: 1\n  sise: 2\n"));
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toContain('unknown field "spec.sise"');
  });

  it("scales through the scale subresource", async () => {
    const s = await k("scale", "widget", "w1", "--replicas=4");
    expect(s.err).toBe("");
    expect(s.out.trim()).toBe("widget.stable.example.com/w1 scaled");
    const g = await k("get", "widget", "w1", "-o", "jsonpath={.spec.replicas} {.metadata.generation}");
    expect(g.out).toBe("4 2");
  });

  it("answers a strategic merge patch with 415 and applies a merge patch", async () => {
    const smp = await k("patch", "widget", "w1", "--type=strategic", "-p", '{"spec":{"size":5}}');
    expect(smp.code).not.toBe(0);
    expect(smp.err.trim()).toBe(
      // kubectl's own wording around the server's 415, as against kube-apiserver.
      "error: application/strategic-merge-patch+json is not supported by stable.example.com/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    const merge = await k("patch", "widget", "w1", "--type=merge", "-p", '{"spec":{"size":5}}');
    expect(merge.out.trim()).toBe("widget.stable.example.com/w1 patched");
  });

  it("deletes the CRD and every instance", async () => {
    const d = await k("delete", "crd", "widgets.stable.example.com", "--timeout=20s");
    expect(d.out.trim()).toBe('customresourcedefinition.apiextensions.k8s.io "widgets.stable.example.com" deleted');
    // kubectl still has the resource in its discovery cache: the list itself is a 404.
    const g = await k("get", "widgets");
    expect(g.err.trim()).toBe('Error from server (NotFound): Unable to list "stable.example.com/v1, Resource=widgets": the server could not find the requested resource');
  });
});
