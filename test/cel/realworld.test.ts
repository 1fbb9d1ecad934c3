/**
 * CEL rules of real-world CRDs, through the API server over HTTP: the published CRDs of Gateway
 * API (standard channel), Karpenter (NodePool, NodeClaim, EC2NodeClass) and Kueue install
 * (every rule compiles within upstream's cost budgets), every example those projects publish
 * is accepted, and objects made invalid from those examples are refused with the project's own
 * message in kube-apiserver's format (`spec.x: Invalid value: "object": <message>`), on create
 * and, for transition rules, on update.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customResourceDefinitionStrategy } from "../../src/apiserver/crd/crdstrategy.js";
import { testStrategies } from "../apiserver/fixtures.js";
import { TestServer } from "../apiserver/harness.js";
import { collectionPath, crdsOf, examplesOf, kindsOf, projects, type KindInfo, type Obj, type Project } from "./realworld-fixtures.js";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** Examples that are invalid as published (upstream refuses them the same way). */
const invalidAsPublished: Record<string, string> = {
  "karpenter/windows-custom-userdata.yaml/NodePool/windows2022": `spec.template.spec.nodeClassRef.group: Invalid value: "karpenter.k8s.aws/v1": spec.template.spec.nodeClassRef.group in body should match '^[^/]*$'`,
};

const clone = <T>(o: T): T => structuredClone(o);

interface Case {
  name: string;
  project: Project;
  /** example file and the kind/name of the object in it to start from */
  from: [file: string, kind: string, name: string];
  /** turns the example into the object to create (or, with `update`, the first version) */
  create?: (o: Obj) => void;
  /** a change applied as an update of the created object */
  update?: (o: Obj) => void;
  /** the error (one of the causes) kube-apiserver reports */
  error: string;
}

const cases: Case[] = [
  // ---- Karpenter ----
  {
    name: "NodePool: requirement with operator In and no values",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    create: (o) => (o.spec.template.spec.requirements[0].values = []),
    error: `spec.template.spec.requirements: Invalid value: "array": requirements with operator 'In' must have a value defined`,
  },
  {
    name: "NodePool: Gt with a non-integer value",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    create: (o) => (o.spec.template.spec.requirements[4].values = ["two"]),
    // The rule calls int() on the value: the conversion error is what upstream reports.
    error: `spec.template.spec.requirements: Invalid value: "array": type conversion error from 'string' to 'int' evaluating rule: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value`,
  },
  {
    name: "NodePool: restricted label domain on a requirement key",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    create: (o) => o.spec.template.spec.requirements.push({ key: "karpenter.sh/custom", operator: "Exists" }),
    error: `spec.template.spec.requirements[5].key: Invalid value: "string": label domain "karpenter.sh" is restricted`,
  },
  {
    name: "NodePool: restricted template label (map keys)",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    create: (o) => (o.spec.template.metadata = { labels: { "kubernetes.io/hostname": "x" } }),
    error: `spec.template.metadata.labels: Invalid value: "object": label "kubernetes.io/hostname" is restricted`,
  },
  {
    name: "NodePool: disruption budget schedule without duration",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    create: (o) => (o.spec.disruption = { consolidateAfter: "30s", budgets: [{ nodes: "10%", schedule: "@daily" }] }),
    error: `spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with 'duration'`,
  },
  {
    name: "NodePool: nodeClassRef.kind is immutable (transition rule)",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    update: (o) => (o.spec.template.spec.nodeClassRef.kind = "OtherNodeClass"),
    error: `spec.template.spec.nodeClassRef: Invalid value: "object": nodeClassRef.kind is immutable`,
  },
  {
    name: "NodePool: static NodePools take no weight",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    create: (o) => Object.assign(o.spec, { replicas: 2, weight: 10 }),
    error: `spec: Invalid value: "object": 'weight' is not supported on static NodePools`,
  },
  {
    name: "NodePool: dynamic to static is refused on update (has() on oldSelf)",
    project: "karpenter",
    from: ["general-purpose.yaml", "NodePool", "general-purpose"],
    update: (o) => (o.spec.replicas = 3),
    error: `spec: Invalid value: "object": Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes`,
  },
  {
    name: "EC2NodeClass: role and instanceProfile are exclusive",
    project: "karpenter",
    from: ["general-purpose.yaml", "EC2NodeClass", "default"],
    create: (o) => (o.spec.instanceProfile = "KarpenterProfile"),
    error: `spec: Invalid value: "object": must specify exactly one of ['role', 'instanceProfile']`,
  },
  {
    name: "EC2NodeClass: alias format (matches)",
    project: "karpenter",
    from: ["general-purpose.yaml", "EC2NodeClass", "default"],
    create: (o) => (o.spec.amiSelectorTerms = [{ alias: "al2023" }]),
    error: `spec.amiSelectorTerms[0].alias: Invalid value: "string": 'alias' is improperly formatted, must match the format 'family@version'`,
  },
  {
    name: "EC2NodeClass: windows families only take latest (split, ternary)",
    project: "karpenter",
    from: ["general-purpose.yaml", "EC2NodeClass", "default"],
    create: (o) => (o.spec.amiSelectorTerms = [{ alias: "windows2022@v20240101" }]),
    error: `spec.amiSelectorTerms[0].alias: Invalid value: "string": windows families may only specify version 'latest'`,
  },
  {
    name: "EC2NodeClass: amiFamily must match the alias (find)",
    project: "karpenter",
    from: ["general-purpose.yaml", "EC2NodeClass", "default"],
    create: (o) => (o.spec.amiFamily = "Bottlerocket"),
    error: `spec: Invalid value: "object": if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias`,
  },
  {
    name: "EC2NodeClass: kubeReserved keys (map all)",
    project: "karpenter",
    from: ["general-purpose.yaml", "EC2NodeClass", "default"],
    create: (o) => (o.spec.kubelet = { kubeReserved: { gpu: "1" } }),
    error: `spec.kubelet.kubeReserved: Invalid value: "object": valid keys for kubeReserved are ['cpu','memory','ephemeral-storage','pid']`,
  },
  {
    name: "EC2NodeClass: image GC thresholds compared",
    project: "karpenter",
    from: ["general-purpose.yaml", "EC2NodeClass", "default"],
    create: (o) => (o.spec.kubelet = { imageGCHighThresholdPercent: 40, imageGCLowThresholdPercent: 60 }),
    error: `spec.kubelet: Invalid value: "object": imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent`,
  },
  {
    name: "EC2NodeClass: one root volume (filter)",
    project: "karpenter",
    from: ["general-purpose.yaml", "EC2NodeClass", "default"],
    create: (o) =>
      (o.spec.blockDeviceMappings = [
        { deviceName: "/dev/xvda", rootVolume: true, ebs: { volumeSize: "20Gi" } },
        { deviceName: "/dev/xvdb", rootVolume: true, ebs: { volumeSize: "20Gi" } },
      ]),
    error: `spec.blockDeviceMappings: Invalid value: "array": must have only one blockDeviceMappings with rootVolume`,
  },
  // ---- Kueue ----
  {
    name: "LocalQueue: clusterQueue is immutable (self == oldSelf)",
    project: "kueue",
    from: ["admin--single-clusterqueue-setup.yaml", "LocalQueue", "user-queue"],
    update: (o) => (o.spec.clusterQueue = "other-queue"),
    error: `spec.clusterQueue: Invalid value: "string": field is immutable`,
  },
  {
    name: "ClusterQueue: every flavor covers the covered resources",
    project: "kueue",
    from: ["admin--single-clusterqueue-setup.yaml", "ClusterQueue", "cluster-queue"],
    create: (o) => o.spec.resourceGroups[0].flavors[0].resources.pop(),
    error: `spec.resourceGroups[0]: Invalid value: "object": flavors must have the same number of resources as the coveredResources`,
  },
  {
    name: "ClusterQueue: borrowingLimit needs a cohort (nested all)",
    project: "kueue",
    from: ["admin--single-clusterqueue-setup.yaml", "ClusterQueue", "cluster-queue"],
    create: (o) => (o.spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit = 1),
    error: `spec: Invalid value: "object": borrowingLimit must be nil when cohort is empty`,
  },
  {
    name: "ResourceFlavor: toleration without key must be Exists",
    project: "kueue",
    from: ["admin--single-clusterqueue-setup.yaml", "ResourceFlavor", "default-flavor"],
    create: (o) => (o.spec = { tolerations: [{ operator: "Equal", value: "x", effect: "NoSchedule" }] }),
    error: `spec.tolerations: Invalid value: "array": operator must be Exists when 'key' is empty, which means 'match all values and all keys'`,
  },
  {
    name: "ResourceFlavor: topologyName is immutable once set (oldSelf has())",
    project: "kueue",
    from: ["admin--single-clusterqueue-setup.yaml", "ResourceFlavor", "default-flavor"],
    create: (o) => (o.spec = { nodeLabels: { "cloud.provider.com/node-group": "tas" }, topologyName: "default" }),
    update: (o) => (o.spec.topologyName = "other"),
    error: `spec: Invalid value: "object": topologyName is immutable when topologyName is set`,
  },
  // ---- Gateway API ----
  {
    name: "Gateway: listener names are unique (exists_one)",
    project: "gateway-api",
    from: ["basic-http.yaml", "Gateway", "my-gateway"],
    create: (o) => o.spec.listeners.push({ name: "http", protocol: "HTTP", port: 8080 }),
    error: `spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway`,
  },
  {
    name: "Gateway: no tls for HTTP listeners",
    project: "gateway-api",
    from: ["basic-http.yaml", "Gateway", "my-gateway"],
    create: (o) => (o.spec.listeners[0].tls = { mode: "Terminate", certificateRefs: [{ name: "cert" }] }),
    error: `spec.listeners: Invalid value: "array": tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']`,
  },
  {
    name: "Gateway: hostname addresses match the pattern (raw string regex)",
    project: "gateway-api",
    from: ["basic-http.yaml", "Gateway", "my-gateway"],
    create: (o) => (o.spec.addresses = [{ type: "Hostname", value: "Not_A_Host" }]),
    error: `spec.addresses[0]: Invalid value: "object": Hostname value must be empty or contain only valid characters (matching ^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)`,
  },
  {
    name: "HTTPRoute: a filter's type and field agree",
    project: "gateway-api",
    from: ["basic-http.yaml", "HTTPRoute", "http-app-1"],
    create: (o) => (o.spec.rules[0].filters = [{ type: "RequestHeaderModifier" }]),
    error: `spec.rules[0].filters[0]: Invalid value: "object": filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type`,
  },
  {
    name: "HTTPRoute: RequestRedirect and backendRefs do not mix",
    project: "gateway-api",
    from: ["basic-http.yaml", "HTTPRoute", "http-app-1"],
    create: (o) => (o.spec.rules[0].filters = [{ type: "RequestRedirect", requestRedirect: { scheme: "https" } }]),
    error: `spec.rules[0]: Invalid value: "object": RequestRedirect filter must not be used together with backendRefs`,
  },
  {
    name: "HTTPRoute: Service backends need a port",
    project: "gateway-api",
    from: ["basic-http.yaml", "HTTPRoute", "http-app-1"],
    create: (o) => delete o.spec.rules[0].backendRefs[0].port,
    error: `spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference`,
  },
  {
    name: "HTTPRoute: sectionName unique when one parent is referenced twice",
    project: "gateway-api",
    from: ["basic-http.yaml", "HTTPRoute", "http-app-1"],
    create: (o) => o.spec.parentRefs.push({ name: "my-gateway" }),
    error: `spec.parentRefs: Invalid value: "array": sectionName must be unique when parentRefs includes 2 or more references to the same parent`,
  },
  {
    name: "HTTPRoute: sectionName on every reference to a parent referenced twice",
    project: "gateway-api",
    from: ["basic-http.yaml", "HTTPRoute", "http-app-1"],
    create: (o) => o.spec.parentRefs.push({ name: "my-gateway", sectionName: "http" }),
    error: `spec.parentRefs: Invalid value: "array": sectionName must be specified when parentRefs includes 2 or more references to the same parent`,
  },
  {
    name: "HTTPRoute: CORS allowOrigins '*' alone",
    project: "gateway-api",
    from: ["basic-http.yaml", "HTTPRoute", "http-app-1"],
    create: (o) => (o.spec.rules[0].filters = [{ type: "CORS", cors: { allowOrigins: ["*", "https://a.example"] } }]),
    error: `spec.rules[0].filters[0].cors.allowOrigins: Invalid value: "array": AllowOrigins cannot contain '*' alongside other origins`,
  },
];

describe("CEL rules of real-world CRDs", () => {
  const t = new TestServer({ strategies: [...testStrategies(), customResourceDefinitionStrategy] });
  const kinds = new Map<Project, Map<string, KindInfo>>();
  const crdCount: Record<string, number> = {};

  beforeAll(async () => {
    await t.start();
    for (const p of projects) {
      const crds = crdsOf(p);
      crdCount[p] = crds.length;
      for (const c of crds) {
        const r = await t.post(CRDS, c);
        if (r.status !== 201) throw new Error(`installing ${c.metadata.name}: ${r.status} ${r.text}`);
      }
      kinds.set(p, kindsOf(crds));
    }
    await t.server.customResources.idle();
  }, 120_000);
  afterAll(() => t.stop());

  it("installs every CRD of the three projects (rules compile within the cost budgets)", async () => {
    expect(crdCount).toEqual({ "gateway-api": 8, karpenter: 3, kueue: 8 });
    const list = await t.get(CRDS);
    const established = (list.body.items as Obj[]).filter((c) => (c.status?.conditions ?? []).some((x: Obj) => x.type === "Established" && x.status === "True"));
    expect(established.length).toBe(19);
  });

  for (const p of projects) {
    it(`accepts every ${p} example`, async () => {
      const refused: string[] = [];
      let accepted = 0;
      for (const ex of examplesOf(p)) {
        const created: string[] = [];
        for (const o of ex.objects) {
          if (o.kind === "Namespace") {
            await t.post("/api/v1/namespaces", o);
            continue;
          }
          const path = collectionPath(kinds.get(p)!, o);
          if (!path) continue;
          const r = await t.post(path, o);
          const key = `${p}/${ex.file}/${o.kind}/${o.metadata?.name}`;
          if (invalidAsPublished[key]) {
            expect(r.status, key).toBe(422);
            expect(r.body.message).toContain(invalidAsPublished[key]);
          } else if (r.status === 201) {
            accepted++;
            created.push(`${path}/${o.metadata.name}`);
          } else refused.push(`${key}: ${r.status} ${r.body?.message}`);
        }
        for (const c of created) await t.del(c);
      }
      expect(refused).toEqual([]);
      expect(accepted).toBeGreaterThan(p === "gateway-api" ? 80 : 15);
    }, 120_000);
  }

  for (const c of cases) {
    it(`${c.project}: ${c.name}`, async () => {
      const ex = examplesOf(c.project).find((e) => e.file === c.from[0]);
      const base = ex?.objects.find((o) => o.kind === c.from[1] && o.metadata?.name === c.from[2]);
      if (!base) throw new Error(`example ${c.from.join(" ")} not found`);
      const obj = clone(base);
      obj.metadata.name = `${obj.metadata.name}-${cases.indexOf(c)}`;
      c.create?.(obj);
      const path = collectionPath(kinds.get(c.project)!, obj)!;
      const [group] = String(obj.apiVersion).split("/");
      let r;
      if (c.update) {
        const created = await t.post(path, obj);
        expect(created.status, created.text).toBe(201);
        const next = clone(created.body);
        c.update(next);
        r = await t.put(`${path}/${obj.metadata.name}`, next);
      } else r = await t.post(path, obj);
      expect(r.status, r.text).toBe(422);
      expect(r.body.reason).toBe("Invalid");
      expect(r.body.message).toMatch(new RegExp(`^${obj.kind}\\.${group.replace(/\./g, "\\.")} "${obj.metadata.name}" is invalid: `));
      expect(r.body.message).toContain(c.error);
      const field = c.error.slice(0, c.error.indexOf(": "));
      expect((r.body.details.causes as Obj[]).some((x) => x.field === field)).toBe(true);
      await t.del(`${path}/${obj.metadata.name}`);
    });
  }
});
