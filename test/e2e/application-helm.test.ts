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

function helmTemplate(args: string[], release = "kubeloop-application", namespace = "kubeloop-system"): string {
  const r = spawnSync(ensureBinary("helm"), ["template", release, chart, "--namespace", namespace, ...args], {
    encoding: "utf8",
    env: { ...process.env, HELM_CACHE_HOME: `${root}.cache/helm`, HELM_CONFIG_HOME: `${root}.cache/helm`, HELM_DATA_HOME: `${root}.cache/helm` },
  });
  if (r.status !== 0) throw new Error(`helm template failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The objects of deploy/*.yaml (not the kustomization), but the Namespace: Helm's --create-namespace makes it. */
function manifests(): Obj[] {
  const dir = `${root}deploy`;
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    .flatMap((f) => docs(readFileSync(`${dir}/${f}`, "utf8")))
    .filter((o) => o.kind !== "Namespace");
}

describe("Helm chart", () => {
  it("renders the same objects as deploy/*.yaml (but the Namespace) and deploy/crds (helm template --include-crds)", () => {
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
          "image.repository=registry.example/kubeloop,image.tag=9.9.9,replicas=2,leaderElect=false",
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

  it("renders no Namespace, and prefixes cluster-scoped names with the release name", () => {
    const out = docs(helmTemplate([])).filter((o) => o.kind !== "CustomResourceDefinition");
    expect(out.some((o) => o.kind === "Namespace")).toBe(false);
    const other = docs(helmTemplate([], "second", "team-b"));
    const clusterScoped = (objs: Obj[]) => objs.filter((o) => o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding").map((o) => o.metadata.name);
    expect(clusterScoped(out)).toEqual(["kubeloop-application", "kubeloop-application"]);
    expect(clusterScoped(other)).toEqual(["second-kubeloop-application", "second-kubeloop-application"]);
    const binding = other.find((o) => o.kind === "ClusterRoleBinding") as unknown as { roleRef: { name: string }; subjects: Array<{ name: string; namespace: string }> };
    expect(binding.roleRef.name).toBe("second-kubeloop-application");
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "second-kubeloop-application", namespace: "team-b" }]);
  });

  it("selects only its own release's pods: two releases in one namespace do not share a selector", () => {
    const selectorOf = (release: string) => {
      const dep = docs(helmTemplate([], release, "team-a")).find((o) => o.kind === "Deployment") as unknown as { spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } } };
      for (const [k, v] of Object.entries(dep.spec.selector.matchLabels)) expect(dep.spec.template.metadata.labels[k], k).toBe(v);
      return dep.spec.selector.matchLabels;
    };
    expect(selectorOf("one")["app.kubernetes.io/instance"]).toBe("one");
    expect(selectorOf("two")["app.kubernetes.io/instance"]).toBe("two");
  });
});
