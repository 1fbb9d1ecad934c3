/**
 * CRDs declared in TypeScript (runtime/crd) against the embedded API server: the generated
 * manifest passes the server's CRD and structural-schema validation, becomes Established, and the
 * schema does what it says on custom resources (defaults, enums, bounds, int-or-string,
 * list-type map, embedded resources, preserve-unknown-fields, scale subresource), through the
 * typed client built from the declaration's descriptor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInvalid } from "../../src/apimachinery/errors.js";
import type { RunningApiServer } from "../../src/apiserver/index.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { builtin } from "../../src/client/typed.js";
import { applicationCRD } from "../../src/controllers/application/declaration.js";
import { asCustomResourceDefinition, defineCustomResource, installCRD, k, type CustomResourceObject } from "../../src/runtime/index.js";

const apiserver = await import("../../src/apiserver/index.js");

const container = k.object({ name: k.string(), image: k.string().optional() });

const gizmos = defineCustomResource({
  group: "crdtest.kubeloop.dev",
  scope: "Namespaced",
  names: { kind: "Gizmo", plural: "gizmos", shortNames: ["gz"], categories: ["kubeloop-test"] },
  versions: {
    v1: {
      storage: true,
      spec: k.object({
        replicas: k.integer({ format: "int32", minimum: 0, maximum: 10, default: 1 }).optional(),
        mode: k.enum(["Fast", "Slow"], { default: "Slow" }).optional(),
        maxSurge: k.intOrString().optional(),
        containers: k.array(container, { listType: "map", mapKeys: ["name"] }).optional(),
        tags: k.array(k.string(), { listType: "set" }).optional(),
        template: k.embedded().optional(),
        extra: k.preserveUnknown().optional(),
        labels: k.map(k.string()).optional(),
      }),
      status: k.object({ replicas: k.integer().optional(), selector: k.string().optional() }).optional(),
      subresources: { status: true, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" } },
      printerColumns: [{ name: "Mode", type: "string", jsonPath: ".spec.mode" }],
    },
    v1beta1: { spec: k.object({ replicas: k.integer().optional() }) },
  },
});
type Gizmo = CustomResourceObject<typeof gizmos>;

let api: RunningApiServer;
let client: KubeClient;

beforeAll(async () => {
  api = await apiserver.startApiServer({ port: 0 });
  client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, rest: { qps: -1 } });
});
afterAll(async () => {
  await client?.close();
  await api?.stop();
});

describe("declared CRDs on the embedded API server", () => {
  it("the kitchen-sink declaration is accepted, established and served", async () => {
    const crd = await installCRD(client, gizmos, { timeoutMs: 20_000, pollMs: 20 });
    expect(crd.status?.conditions?.find((c) => c.type === "Established")?.status).toBe("True");
    expect(crd.status?.acceptedNames?.shortNames).toEqual(["gz"]);
    // Installing the same declaration again writes nothing (the stored spec is the declared one).
    const again = await installCRD(client, gizmos, { timeoutMs: 20_000, pollMs: 20 });
    expect(again.metadata?.resourceVersion).toBe(crd.metadata?.resourceVersion);
  });

  it("applies defaults, keeps what the schema says to keep, and the typed client reads it back", async () => {
    const gz = client.resource(gizmos.resource, "default");
    const obj: Gizmo = {
      apiVersion: "crdtest.kubeloop.dev/v1",
      kind: "Gizmo",
      metadata: { name: "g1" },
      spec: {
        maxSurge: "25%",
        containers: [{ name: "a", image: "x" }, { name: "b" }],
        tags: ["x", "y"],
        template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "t" }, data: { a: "1" } },
        extra: { anything: { goes: [1, 2] } },
        labels: { a: "b" },
      },
    };
    const created = await gz.create(obj);
    expect(created.spec.replicas).toBe(1);
    expect(created.spec.mode).toBe("Slow");
    expect(created.spec.maxSurge).toBe("25%");
    expect(created.spec.template).toMatchObject({ kind: "ConfigMap", data: { a: "1" } });
    expect(created.spec.extra).toEqual({ anything: { goes: [1, 2] } });
    const n = await gz.create({ ...obj, metadata: { name: "g2" }, spec: { maxSurge: 2 } });
    expect(n.spec.maxSurge).toBe(2);
  });

  const invalid: [string, Gizmo["spec"], string][] = [
    ["an enum value not declared", { mode: "Medium" as "Fast" }, "spec.mode"],
    ["a value above maximum", { replicas: 11 }, "spec.replicas"],
    ["a duplicate map-list key", { containers: [{ name: "a" }, { name: "a" }] }, "spec.containers"],
    ["a duplicate set item", { tags: ["x", "x"] }, "spec.tags"],
    ["an embedded resource without kind", { template: { apiVersion: "v1" } }, "spec.template"],
  ];
  it.each(invalid)("rejects %s (422 Invalid naming the field)", async (_name, spec, field) => {
    const gz = client.resource(gizmos.resource, "default");
    const err = await gz.create({ metadata: { name: `bad-${Math.abs(JSON.stringify(spec).length)}` }, spec }).catch((e: unknown) => e);
    expect(isInvalid(err)).toBe(true);
    expect(String((err as Error).message)).toContain(field);
  });

  it("the scale subresource reads the declared paths", async () => {
    const gz = client.resource(gizmos.resource, "default");
    expect(await gz.getScale("g1")).toMatchObject({ kind: "Scale", spec: { replicas: 1 } });
    const g1 = await gz.get("g1");
    await gz.updateStatus({ ...g1, status: { replicas: 1, selector: "app=g1" } });
    expect(await gz.getScale("g1")).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 1, selector: "app=g1" } });
  });

  it("the Application CRD declaration installs as it is declared", async () => {
    const crd = await installCRD(client, applicationCRD, { timeoutMs: 20_000, pollMs: 20 });
    expect(crd.spec.names.shortNames).toEqual(["app"]);
    const apps = client.resource(applicationCRD.resource, "default");
    const a = await apps.create({ metadata: { name: "a1" }, spec: { image: "nginx", ports: [{ containerPort: 80 }], service: { port: 80 } } });
    expect(a.spec.replicas).toBe(1);
    expect(a.spec.ports?.[0].protocol).toBe("TCP");
    expect(a.spec.service?.type).toBe("ClusterIP");
  });

  it("CEL rules are emitted as x-kubernetes-validations and enforced where the server evaluates CEL", async () => {
    const celled = defineCustomResource({
      group: "crdtest.kubeloop.dev",
      scope: "Namespaced",
      names: { kind: "Celled", plural: "celleds" },
      versions: { v1: { spec: k.object({ min: k.integer(), max: k.integer() }).validate({ rule: "self.min <= self.max", message: "min must not exceed max" }) } },
    });
    expect(celled.manifest().spec.versions[0].schema.openAPIV3Schema.properties?.spec?.["x-kubernetes-validations"]).toEqual([{ rule: "self.min <= self.max", message: "min must not exceed max" }]);
    const created = await client
      .resource(builtin.customResourceDefinitions)
      .create(asCustomResourceDefinition(celled.manifest()))
      .then(
        () => "created" as const,
        (e: unknown) => e,
      );
    if (created !== "created") {
      // A server without a CEL evaluator refuses the rule by name, never ignores it.
      expect(isInvalid(created)).toBe(true);
      expect(String((created as Error).message)).toContain("x-kubernetes-validations");
      return;
    }
    await installCRD(client, celled, { timeoutMs: 20_000, pollMs: 20 });
    const err = await client
      .resource(celled.resource, "default")
      .create({ metadata: { name: "c" }, spec: { min: 2, max: 1 } })
      .catch((e: unknown) => e);
    expect(isInvalid(err)).toBe(true);
    expect(String((err as Error).message)).toContain("min must not exceed max");
  });
});
