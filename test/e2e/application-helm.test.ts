/**
 * The Helm chart (deploy/helm/kubeloop-application) renders exactly the objects of deploy/*.yaml
 * and deploy/crds/, with the helm binary shipped in the same npm package as kubectl.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { ensureBinary } from "../../scripts/kubectl.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const chart = `${root}deploy/helm/kubeloop-application`;

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [k: string]: unknown;
}

function docs(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

function byKey(objs: Obj[]): Map<string, Obj> {
  return new Map(objs.map((o) => [`${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`, o]));
}

function helmTemplate(args: string[]): string {
  const r = spawnSync(ensureBinary("helm"), ["template", "kubeloop-application", chart, "--namespace", "kubeloop-system", ...args], {
    encoding: "utf8",
    env: { ...process.env, HELM_CACHE_HOME: `${root}.cache/helm`, HELM_CONFIG_HOME: `${root}.cache/helm`, HELM_DATA_HOME: `${root}.cache/helm` },
  });
  if (r.status !== 0) throw new Error(`helm template failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function manifests(): Obj[] {
  const dir = `${root}deploy`;
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => docs(readFileSync(`${dir}/${f}`, "utf8")));
}

describe("Helm chart", () => {
  it("renders the same objects as deploy/*.yaml and deploy/crds (helm template --include-crds)", () => {
    const rendered = byKey(docs(helmTemplate(["--include-crds"])));
    const expected = byKey([...manifests(), ...docs(readFileSync(`${root}deploy/crds/applications.kubeloop.dev.yaml`, "utf8"))]);
    expect([...rendered.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [k, o] of expected) expect(rendered.get(k), k).toEqual(o);
  });

  it("ships a byte-identical copy of the CRD", () => {
    expect(readFileSync(`${chart}/crds/applications.kubeloop.dev.yaml`, "utf8")).toBe(readFileSync(`${root}deploy/crds/applications.kubeloop.dev.yaml`, "utf8"));
  });

  it("honours values: image, replicas, leaderElect, resources", () => {
    const out = byKey(
      docs(
        helmTemplate([
          "--set",
          "image.repository=registry.example/kubeloop,image.tag=9.9.9,replicas=2,leaderElect=false,createNamespace=false",
          "--set",
          "resources.limits.memory=1Gi",
        ]),
      ),
    );
    const dep = out.get("apps/v1/Deployment/kubeloop-system/kubeloop-application-controller") as unknown as {
      spec: { replicas: number; template: { spec: { containers: Array<{ image: string; args: string[]; resources: { limits: { memory: string } } }> } } };
    };
    expect(dep.spec.replicas).toBe(2);
    const c = dep.spec.template.spec.containers[0];
    expect(c.image).toBe("registry.example/kubeloop:9.9.9");
    expect(c.args).not.toContain("--leader-elect");
    expect(c.resources.limits.memory).toBe("1Gi");
    expect([...out.keys()].some((k) => k.includes("/Role/") || k.includes("/Namespace/"))).toBe(false);
  });
});
