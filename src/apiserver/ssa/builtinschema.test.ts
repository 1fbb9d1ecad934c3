import { describe, expect, it } from "vitest";
import { builtinSchema } from "./builtinschema.js";
import { builtinTypeFor } from "./schema.js";
import { itemElement, merge } from "./typed.js";
import type { TypeNode } from "./typenode.js";

const schema = builtinSchema();

/** The node at a field path of a named definition. */
function at(definition: string, ...path: string[]): TypeNode {
  let t = schema.type(definition);
  for (const p of path) {
    if (p === "[]") {
      if (t.kind !== "list") throw new Error(`${path.join(".")}: not a list`);
      t = t.element;
      continue;
    }
    if (t.kind !== "struct") throw new Error(`${path.join(".")}: ${p} is under a ${t.kind}`);
    const f = t.field(p);
    if (!f) throw new Error(`${definition}: no field ${p}`);
    t = f;
  }
  return t;
}

function describeNode(t: TypeNode): string {
  switch (t.kind) {
    case "list":
      return t.listType === "map" ? `map-list(${t.keys.join(",")})` : `${t.listType}-list`;
    case "map":
      return t.atomic ? "atomic-map" : "map";
    case "struct":
      return t.atomic ? "atomic-struct" : "struct";
    default:
      return t.kind;
  }
}

const CORE = "io.k8s.api.core.v1.";
const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.";
const AGG = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.";

describe("built-in structured-merge-diff schema (smd-schema.yaml)", () => {
  const table: [string, string[], string][] = [
    [`${CORE}Container`, ["ports"], "map-list(containerPort,protocol)"],
    [`${CORE}Container`, ["env"], "map-list(name)"],
    [`${CORE}Container`, ["volumeMounts"], "map-list(mountPath)"],
    [`${CORE}Container`, ["args"], "atomic-list"],
    [`${CORE}Container`, ["envFrom"], "atomic-list"],
    [`${CORE}ServiceSpec`, ["ports"], "map-list(port,protocol)"],
    [`${CORE}ServiceSpec`, ["selector"], "atomic-map"],
    [`${CORE}PodSpec`, ["containers"], "map-list(name)"],
    [`${CORE}PodSpec`, ["volumes"], "map-list(name)"],
    [`${CORE}PodSpec`, ["tolerations"], "atomic-list"],
    [`${CORE}PodSpec`, ["topologySpreadConstraints"], "map-list(topologyKey,whenUnsatisfiable)"],
    [`${CORE}PodSpec`, ["nodeSelector"], "atomic-map"],
    [`${CORE}PodStatus`, ["conditions"], "map-list(type)"],
    [`${CORE}NodeSpec`, ["podCIDRs"], "set-list"],
    [`${CORE}ResourceRequirements`, ["limits"], "map"],
    [`${CORE}PersistentVolumeSpec`, ["claimRef"], "struct"],
    [`${CORE}Pod`, ["spec", "containers", "[]", "resources", "claims"], "map-list(name)"],
    [`${META}ObjectMeta`, ["finalizers"], "set-list"],
    [`${META}ObjectMeta`, ["ownerReferences"], "map-list(uid)"],
    [`${META}ObjectMeta`, ["labels"], "map"],
    [`${META}ObjectMeta`, ["managedFields"], "atomic-list"],
    [`${META}LabelSelector`, [], "atomic-struct"],
    [`${CORE}ObjectReference`, [], "atomic-struct"],
    ["io.k8s.api.apps.v1.ControllerRevision", ["data"], "atomic-map"],
    ["io.k8s.api.apps.v1.Deployment", ["spec", "template", "spec", "initContainers"], "map-list(name)"],
    ["io.k8s.api.discovery.v1.EndpointSlice", ["endpoints"], "atomic-list"],
    ["io.k8s.api.rbac.v1.ClusterRole", ["rules"], "atomic-list"],
    // Derived for the groups smd-schema.yaml does not cover, by the same rules.
    [`${APIEXT}CustomResourceDefinitionSpec`, ["versions"], "atomic-list"],
    [`${APIEXT}CustomResourceDefinitionStatus`, ["conditions"], "map-list(type)"],
    [`${APIEXT}JSONSchemaProps`, ["x-kubernetes-validations"], "map-list(rule)"],
    [`${APIEXT}JSONSchemaProps`, ["properties"], "map"],
    [`${APIEXT}JSONSchemaProps`, ["default"], "deduced"],
    [`${AGG}APIServiceStatus`, ["conditions"], "map-list(type)"],
  ];
  for (const [def, path, want] of table) {
    it(`${def.split(".").slice(-1)[0]}${path.length ? "." + path.join(".") : ""} is ${want}`, () => expect(describeNode(at(def, ...path))).toBe(want));
  }

  it("keys list items by their key fields, filling in the schema defaults of omitted keys", () => {
    const ports = at(`${CORE}Container`, "ports");
    expect(itemElement(ports, { containerPort: 80 }, 0)).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(itemElement(ports, { containerPort: 53, protocol: "UDP" }, 1)).toBe('k:{"containerPort":53,"protocol":"UDP"}');
    expect(itemElement(at(`${CORE}Container`, "env"), { name: "A", value: "1" }, 0)).toBe('k:{"name":"A"}');
    expect(itemElement(at(`${CORE}ServiceSpec`, "ports"), { port: 443 }, 0)).toBe('k:{"port":443,"protocol":"TCP"}');
    expect(itemElement(at(`${META}ObjectMeta`, "finalizers"), "example.com/x", 0)).toBe('v:"example.com/x"');
  });

  it("merges associative lists by key and replaces atomic ones", () => {
    const spec = at(`${CORE}PodSpec`);
    const live = {
      containers: [{ name: "app", image: "a:1", env: [{ name: "A", value: "1" }] }],
      tolerations: [{ key: "x", operator: "Exists" }],
    };
    const applied = {
      containers: [{ name: "app", env: [{ name: "B", value: "2" }] }, { name: "sidecar", image: "s:1" }],
      tolerations: [{ key: "y", operator: "Exists" }],
    };
    expect(merge(live, applied, spec)).toEqual({
      containers: [
        { name: "app", image: "a:1", env: [{ name: "A", value: "1" }, { name: "B", value: "2" }] },
        { name: "sidecar", image: "s:1" },
      ],
      tolerations: [{ key: "y", operator: "Exists" }],
    });
  });

  it("records the fields Go always serializes", () => {
    const c = at(`${CORE}Container`);
    if (c.kind !== "struct") throw new Error("not a struct");
    expect([...c.required]).toEqual(["name"]);
    const port = at(`${CORE}ContainerPort`);
    if (port.kind !== "struct") throw new Error("not a struct");
    expect([...port.required]).toEqual(["containerPort"]);
  });

  it("knows every resource kind of every group version, and nothing else", () => {
    expect(builtinTypeFor({ group: "apps", version: "v1", kind: "Deployment" })).toBe(schema.type("io.k8s.api.apps.v1.Deployment"));
    expect(builtinTypeFor({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition" })?.kind).toBe("struct");
    expect(builtinTypeFor({ group: "apiregistration.k8s.io", version: "v1", kind: "APIService" })?.kind).toBe("struct");
    expect(builtinTypeFor({ group: "resource.k8s.io", version: "v1beta2", kind: "ResourceClaim" })?.kind).toBe("struct");
    expect(builtinTypeFor({ group: "stable.example.com", version: "v1", kind: "CronTab" })).toBeUndefined();
    expect(builtinTypeFor({ group: "apps", version: "v1", kind: "DeploymentList" })).toBeUndefined();
  });
});
