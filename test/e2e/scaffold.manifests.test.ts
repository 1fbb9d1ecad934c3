/**
 * The deployment artifacts of a scaffolded project (kubeloop init demo, then create api for a
 * cluster-scoped kind): its Helm chart renders exactly the objects of its deploy/*.yaml (but the
 * Namespace) and deploy/crds, with the real helm binary, and `kubectl kustomize deploy/` builds
 * the kustomization (every resource it names exists), as the chart of kubeloop's own Application
 * controller is checked in application-helm.test.ts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { ensureBinary } from "../../scripts/kubectl.mjs";
import { createApi, initProject } from "../../src/cli/scaffold/index.js";
import { root } from "./pod.js";

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [k: string]: unknown;
}

const work = mkdtempSync(join(tmpdir(), "kubeloop-scaffold-manifests-"));
const project = initProject("demo", {}, work).root;
createApi({ group: "ops", version: "v1", kind: "Policy", scope: "Cluster" }, project);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const docs = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
const key = (o: Obj) => `${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
const byKey = (objs: Obj[]) => new Map(objs.map((o) => [key(o), o]));
const yamlIn = (dir: string, skip: string[] = []) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") && !skip.includes(f))
    .flatMap((f) => docs(readFileSync(join(dir, f), "utf8")));

function tool(name: string, args: string[]): string {
  const r = spawnSync(ensureBinary(name), args, {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, HELM_CACHE_HOME: `${root}.cache/helm`, HELM_CONFIG_HOME: `${root}.cache/helm`, HELM_DATA_HOME: `${root}.cache/helm` },
  });
  if (r.status !== 0) throw new Error(`${name} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

describe("a scaffolded project's manifests", () => {
  it("the Helm chart renders the objects of deploy/*.yaml (but the Namespace) and deploy/crds", () => {
    const rendered = byKey(docs(tool("helm", ["template", "demo", "deploy/helm/demo", "--namespace", "demo-system", "--include-crds"])));
    const deploy = yamlIn(join(project, "deploy"), ["kustomization.yaml"]).filter((o) => o.kind !== "Namespace");
    const expected = byKey([...deploy, ...yamlIn(join(project, "deploy/crds"))]);
    expect([...rendered.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [k, o] of expected) expect(rendered.get(k), k).toEqual(o);
  });

  it("kubectl kustomize builds deploy/: the namespace, both CRDs, the ServiceAccount, the RBAC and the Deployment", () => {
    const built = docs(tool("kubectl", ["kustomize", "deploy/"])).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(built.sort()).toEqual(
      [
        "Namespace/demo-system",
        "CustomResourceDefinition/demos.demo.example.com",
        "CustomResourceDefinition/policies.ops.example.com",
        "ServiceAccount/demo",
        "ClusterRole/demo",
        "ClusterRoleBinding/demo",
        "Role/demo-leader-election",
        "RoleBinding/demo-leader-election",
        "Deployment/demo-controller",
      ].sort(),
    );
  });
});
