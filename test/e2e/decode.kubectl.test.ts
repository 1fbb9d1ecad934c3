/**
 * The real kubectl 1.35 against `kubeloop apiserver` (the CLI command, started as a user starts
 * it): what it prints for bodies a 1.36 server refuses while decoding (a string for an int32,
 * an unknown nested field under --validate=strict), and `kubectl api-resources` equal to a 1.36
 * cluster's default list (the generated resource catalog's servedByDefault rows, which
 * test/apigen/catalog.test.ts pins to upstream's 67).
 */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdtempSync, existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupVersions, resources, type ResourceInfo } from "../../src/apimachinery/api/catalog.js";
import { runCli } from "../../src/cli/main.js";
import { Kubectl } from "./kubectl.js";

let k: Kubectl;
let stop!: (signal: string) => void;
let done: Promise<number>;
const errors: string[] = [];

beforeAll(async () => {
  const kubeconfig = join(mkdtempSync(join(tmpdir(), "kubeloop-decode-")), "kubeconfig");
  const lines: string[] = [];
  done = runCli(["apiserver", "--port", "0", "--kubeconfig-out", kubeconfig], {
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    stopSignal: () => new Promise((r) => (stop = r)),
  });
  for (let i = 0; i < 3000 && !lines.some((l) => l.startsWith("kubeconfig: ")); i++) await new Promise((r) => setTimeout(r, 10));
  if (!existsSync(kubeconfig)) throw new Error(`kubeloop apiserver did not start: ${errors.join("\n")}`);
  k = new Kubectl(kubeconfig);
}, 60_000);

afterAll(async () => {
  stop?.("SIGTERM");
  await done;
});

const deployment = (replicas: string, containerExtra = "") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: web
        image: nginx
${containerExtra}`;

describe("kubectl prints upstream's decoding errors", () => {
  it('apply of replicas: "3"', async () => {
    const file = await k.manifest("replicas.yaml", deployment('"3"'));
    const r = await k.run(["apply", "-f", file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `Error from server (BadRequest): error when creating "${file}": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    expect((await k.run(["get", "deployment", "web"])).code).not.toBe(0);
  });

  it("create --validate=strict with an unknown nested field", async () => {
    const file = await k.manifest("unknown.yaml", deployment("1", "        foo: bar\n"));
    const r = await k.run(["create", "--validate=strict", "-f", file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `Error from server (BadRequest): error when creating "${file}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].foo"`,
    );
    expect((await k.run(["get", "deployment", "web"])).code).not.toBe(0);
  });

  it("create --validate=warn stores the object and prints the server's warning", async () => {
    const file = await k.manifest("warn.yaml", deployment("1", "        foo: bar\n"));
    const r = await k.run(["create", "--validate=warn", "-f", file]);
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe('Warning: unknown field "spec.template.spec.containers[0].foo"');
    await k.ok(["delete", "deployment", "web"]);
  });

  it("apply --server-side of a wrong type", async () => {
    const file = await k.manifest("ssa.yaml", deployment('"3"'));
    const r = await k.run(["apply", "--server-side", "-f", file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      "Error from server: failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string",
    );
  });
});

/** A resource as `kubectl api-resources` prints it: NAME SHORTNAMES APIVERSION NAMESPACED KIND. */
const row = (r: ResourceInfo) => [r.resource, r.shortNames.join(",") || "-", r.group ? `${r.group}/${r.version}` : r.version, String(r.namespaced), r.kind].join(" ");


describe("kubectl api-resources", () => {
  it("lists exactly a 1.36 cluster's default resources", async () => {
    const out = await k.ok(["api-resources"]);
    const lines = out.trimEnd().split("\n");
    const header = lines[0];
    const columns = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"];
    expect(header.split(/\s+/)).toEqual(columns);
    // Columns by the header's positions (an empty SHORTNAMES cell is blank): "-" for empty.
    const starts = columns.map((c) => header.indexOf(c));
    const got = lines.slice(1).map((l) => starts.map((s, i) => l.slice(s, starts[i + 1]).trim() || "-").join(" "));
    const preferred = (r: ResourceInfo) => groupVersions.find((g) => g.group === r.group)?.servedByDefault[0] === r.version;
    const upstream = resources.filter((r) => r.servedByDefault && preferred(r)).map(row);
    expect(upstream).toHaveLength(67);
    // Row for row, in kubectl's order (by group, then name): nothing missing, nothing extra.
    expect(got.slice().sort()).toEqual(upstream.slice().sort());
    expect(got).toHaveLength(67);
  });
});
