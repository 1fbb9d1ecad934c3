/**
 * decodeRequestBody and decodePatchedObject against the 1.36 schema table: wrong types at depth
 * for the kind families (including groups another contributor is still adding to the registry:
 * batch, networking, policy, autoscaling, discovery), the json decoder's rules (saved type
 * errors, fatal unmarshaler errors, integer literals, int ranges, nulls), strict errors
 * (unknown and duplicate fields, in document order, deduplicated), and the unstructured
 * converter's messages for strategic merge patches.
 */
import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { FieldValidationMode } from "../rest/options.js";
import { decodePatchedObject, decodeRequestBody, type DecodeTarget } from "./request.js";

const gvk = (apiVersion: string, kind: string): DecodeTarget => {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  return { group, version, kind };
};

function decode(body: Record<string, unknown> | string, target: DecodeTarget, mode: FieldValidationMode = "Strict") {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return decodeRequestBody(Buffer.from(text), "application/json", target, mode, undefined);
}

function failure(body: Record<string, unknown> | string, target: DecodeTarget, mode: FieldValidationMode = "Strict"): string {
  try {
    decode(body, target, mode);
  } catch (err) {
    if (err instanceof StatusError) return `${err.code} ${err.message}`;
    throw err;
  }
  return "no error";
}

const obj = (apiVersion: string, kind: string, rest: Record<string, unknown>) => ({ apiVersion, kind, metadata: { name: "x" }, ...rest });
const podTemplate = (container: Record<string, unknown>) => ({ spec: { containers: [{ name: "c", image: "i", ...container }] } });

describe("wrong types at depth, per kind family", () => {
  const table: Array<[string, string, Record<string, unknown>, string]> = [
    ["batch/v1", "Job", { spec: { backoffLimit: "6" } }, "json: cannot unmarshal string into Go struct field JobSpec.spec.backoffLimit of type int32"],
    [
      "batch/v1",
      "CronJob",
      { spec: { schedule: "* * * * *", jobTemplate: { spec: { template: podTemplate({ env: [{ name: "A", value: 1 }] }) } } } },
      "json: cannot unmarshal number into Go struct field EnvVar.spec.jobTemplate.spec.template.spec.containers.env.value of type string",
    ],
    [
      "networking.k8s.io/v1",
      "Ingress",
      { spec: { rules: [{ http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "s", port: { number: "80" } } } }] } }] } },
      "json: cannot unmarshal string into Go struct field ServiceBackendPort.spec.rules.http.paths.backend.service.port.number of type int32",
    ],
    [
      "networking.k8s.io/v1",
      "NetworkPolicy",
      { spec: { podSelector: {}, ingress: [{ ports: [{ port: true }] }] } },
      "json: cannot unmarshal bool into Go struct field NetworkPolicyPort.spec.ingress.ports.port of type int32",
    ],
    ["policy/v1", "PodDisruptionBudget", { spec: { minAvailable: 1.5 } }, "json: cannot unmarshal number 1.5 into Go struct field PodDisruptionBudgetSpec.spec.minAvailable of type int32"],
    [
      "autoscaling/v2",
      "HorizontalPodAutoscaler",
      { spec: { scaleTargetRef: { kind: "Deployment", name: "d" }, maxReplicas: 3, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: "50" } } }] } },
      "json: cannot unmarshal string into Go struct field MetricTarget.spec.metrics.resource.target.averageUtilization of type int32",
    ],
    [
      "discovery.k8s.io/v1",
      "EndpointSlice",
      { addressType: "IPv4", endpoints: [{ addresses: "10.0.0.1" }] },
      "json: cannot unmarshal string into Go struct field Endpoint.endpoints.addresses of type []string",
    ],
    [
      "apps/v1",
      "StatefulSet",
      { spec: { volumeClaimTemplates: [{ spec: { resources: { requests: { storage: "1 Gi" } } } }] } },
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    ["apps/v1", "DaemonSet", { spec: { template: podTemplate({ securityContext: { runAsUser: "0" } }) } }, "json: cannot unmarshal string into Go struct field SecurityContext.spec.template.spec.containers.securityContext.runAsUser of type int64"],
    ["v1", "PersistentVolumeClaim", { spec: { accessModes: ["ReadWriteOnce", 5] } }, "json: cannot unmarshal number into Go struct field PersistentVolumeClaimSpec.spec.accessModes of type v1.PersistentVolumeAccessMode"],
    ["v1", "ResourceQuota", { spec: { hard: { pods: {} } } }, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["v1", "Pod", { spec: { containers: "c" } }, "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"],
    ["v1", "Pod", { spec: { containers: ["c"] } }, "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type v1.Container"],
    ["v1", "Pod", { metadata: { name: "x", labels: { a: 1 } } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"],
    ["v1", "Pod", { metadata: "x" }, "json: cannot unmarshal string into Go struct field Pod.metadata of type v1.ObjectMeta"],
    ["v1", "Pod", { spec: { nodeSelector: ["a"] } }, "json: cannot unmarshal array into Go struct field PodSpec.spec.nodeSelector of type map[string]string"],
    ["v1", "Pod", { metadata: { name: "x", uid: 5 } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID"],
    ["v1", "Pod", { metadata: { name: "x", creationTimestamp: 5 } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"],
    ["v1", "ConfigMap", { binaryData: { a: [1, 256] } }, "json: cannot unmarshal number 256 into Go struct field ConfigMap.binaryData of type uint8"],
    [
      "apiextensions.k8s.io/v1",
      "CustomResourceDefinition",
      { spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: { type: "object", additionalProperties: "yes" } } }] } },
      "boolean or JSON schema expected",
    ],
    [
      "apiextensions.k8s.io/v1",
      "CustomResourceDefinition",
      { spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: { type: "object", additionalProperties: { type: 5 } } } }] } },
      "json: cannot unmarshal number into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.additionalProperties of type string",
    ],
  ];
  for (const [apiVersion, kind, rest, detail] of table) {
    it(`${apiVersion} ${kind}: ${detail.slice(0, 60)}`, () => {
      expect(failure(obj(apiVersion, kind, rest), gvk(apiVersion, kind))).toBe(`400 ${kind} in version "${gvk(apiVersion, kind).version}" cannot be handled as a ${kind}: ${detail}`);
    });
  }
});

describe("the json decoder's rules", () => {
  const D = gvk("apps/v1", "Deployment");
  const dep = (spec: Record<string, unknown>) => obj("apps/v1", "Deployment", { spec });

  it("reports the first type error in document order, after decoding everything", () => {
    expect(failure(dep({ replicas: "1", minReadySeconds: "2" }), D)).toContain("DeploymentSpec.spec.replicas of type int32");
    // Strict errors never hide a type error.
    expect(failure(dep({ foo: 1, replicas: "1" }), D)).toContain("cannot unmarshal string");
  });

  it("an unmarshaler's error stops decoding at once and wins over a saved type error", () => {
    const q = dep({ replicas: "1", template: { spec: { containers: [{ name: "c", resources: { limits: { cpu: "x" } } }] } } });
    expect(failure(q, D)).toContain("quantities must match");
  });

  it("integer fields take integer literals only, in range", () => {
    expect(failure('{"spec":{"replicas":1e2}}', D)).toContain("cannot unmarshal number 1e2 into Go struct field DeploymentSpec.spec.replicas of type int32");
    expect(failure('{"spec":{"replicas":3.0}}', D)).toContain("cannot unmarshal number 3.0 into");
    expect(failure('{"spec":{"replicas":2147483648}}', D)).toContain("cannot unmarshal number 2147483648 into");
    expect(decode('{"spec":{"replicas":-2147483648}}', D).object.spec).toEqual({ replicas: -2147483648 });
    expect(decode('{"metadata":{"generation":9007199254740991}}', D).object.metadata).toEqual({ generation: 9007199254740991 });
    // int64's range is checked on the literal, beyond what a JavaScript number holds exactly.
    expect(decode('{"metadata":{"generation":9223372036854775807}}', D).object.metadata).toEqual({ generation: 2 ** 63 });
    expect(failure('{"metadata":{"generation":9223372036854775808}}', D)).toContain(
      "json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64",
    );
  });

  it("null: pointers and collections absent, other fields their zero value", () => {
    const o = decode(dep({ replicas: null, paused: null, minReadySeconds: null, selector: null, strategy: null }), D).object as KubeObject & { spec: unknown };
    // paused and minReadySeconds are omitempty: their zero values vanish; strategy is a struct: {}.
    expect(o.spec).toEqual({ strategy: {} });
  });

  it("IntOrString: numbers and strings as they are, anything else the int32's error", () => {
    const strategy = (v: unknown) => dep({ strategy: { rollingUpdate: { maxSurge: v } } });
    expect((decode(strategy("25%"), D).object.spec as { strategy: unknown }).strategy).toEqual({ rollingUpdate: { maxSurge: "25%" } });
    expect((decode(strategy(2), D).object.spec as { strategy: unknown }).strategy).toEqual({ rollingUpdate: { maxSurge: 2 } });
    expect(failure(strategy({}), D)).toContain("json: cannot unmarshal object into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32");
  });

  it("a body of another kind is left to the store (which refuses it)", () => {
    const o = decode(obj("v1", "ConfigMap", { spec: { replicas: "3" } }), D).object;
    expect(o.kind).toBe("ConfigMap");
  });
});

describe("strict errors", () => {
  const C = gvk("v1", "ConfigMap");
  it("unknown fields in document order, each once", () => {
    const text = '{"apiVersion":"v1","kind":"ConfigMap","b":1,"metadata":{"name":"x","z":1},"a":1,"b":2}';
    expect(failure(text, C)).toBe('400 ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "b", unknown field "metadata.z", unknown field "a"');
  });

  it("duplicate fields of structs and keys of maps, interleaved with unknown fields as met", () => {
    const text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","name":"y"},"q":1,"data":{"k":"1","k":"2"}}';
    expect(failure(text, C)).toBe(
      '400 ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "q", duplicate field "data.k"',
    );
    // The last one wins, as in Go.
    expect(decode(text, C, "Ignore").object).toMatchObject({ metadata: { name: "y" }, data: { k: "2" } });
  });

  it("Warn returns the texts, Ignore nothing", () => {
    expect(decode({ kind: "ConfigMap", metadata: { name: "x", z: 1 } }, C, "Warn").warnings).toEqual(['unknown field "metadata.z"']);
    expect(decode({ kind: "ConfigMap", metadata: { name: "x", z: 1 } }, C, "Ignore").warnings).toEqual([]);
  });

  it("custom resources: metadata decoded as an ObjectMeta of its own", () => {
    const F = gvk("example.com/v1", "Foo");
    expect(failure({ apiVersion: "example.com/v1", kind: "Foo", metadata: { name: 5 } }, F)).toBe(
      '400 Foo in version "v1" cannot be handled as a Foo: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string',
    );
    expect(decode({ apiVersion: "example.com/v1", kind: "Foo", metadata: { name: "a", x: 1 }, spec: { any: 1 } }, F, "Warn").warnings).toEqual([
      'unknown field "metadata.x"',
    ]);
    // Decoded into map[string]interface{}: duplicate keys are strict errors at any depth.
    expect(failure('{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"a"},"spec":{"n":1,"n":2}}', F)).toBe(
      '400 Foo in version "v1" cannot be handled as a Foo: strict decoding error: duplicate field "spec.n"',
    );
  });
});

describe("patched objects", () => {
  const D = gvk("apps/v1", "Deployment");
  const patched = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec });
  const smpFailure = (spec: Record<string, unknown>, patch: unknown = { spec }) => {
    try {
      decodePatchedObject({ type: "strategic", patched: patched(spec), patch, mode: "Strict", warnings: [] }, D);
    } catch (err) {
      return (err as StatusError).message;
    }
    return "no error";
  };

  it("strategic merge patch results: the unstructured converter's messages", () => {
    const table: Array<[Record<string, unknown>, string]> = [
      [{ replicas: "3" }, "unrecognized type: int32"],
      [{ replicas: 3.5 }, "cannot convert float64 to int32"],
      [{ paused: "yes" }, "unrecognized type: bool"],
      [{ template: "x" }, "cannot restore struct from: string"],
      [{ template: { spec: { containers: {} } } }, "cannot restore slice from map"],
      [{ selector: { matchLabels: [] } }, "cannot restore map from slice"],
      [{ template: { metadata: { name: 1 } } }, "cannot convert int64 to string"],
      [{ template: { spec: { containers: [{ name: "c", ports: [{ containerPort: 80, protocol: 6 }] }] } } }, "cannot convert int64 to v1.Protocol"],
      [{ strategy: { rollingUpdate: { maxSurge: true } } }, "json: cannot unmarshal bool into Go value of type int32"],
    ];
    for (const [spec, detail] of table) expect(smpFailure(spec)).toBe(` "" is invalid: patch: Invalid value: "${goMap(spec)}": ${detail}`);
  });

  it("an integral float converts, a too-large integer wraps (reflect's Convert)", () => {
    const out = decodePatchedObject({ type: "strategic", patched: patched({ replicas: 3.0, minReadySeconds: 4294967297 }), patch: {}, mode: "Strict", warnings: [] }, D);
    expect(out.spec).toEqual({ replicas: 3, minReadySeconds: 1 });
  });

  it("unknown fields of a strategic merge patch result are sorted", () => {
    const warnings: string[] = [];
    decodePatchedObject({ type: "strategic", patched: patched({ z: 1, template: { spec: { containers: [{ name: "c", y: 1 }] } }, a: 1 }), patch: {}, mode: "Warn", warnings }, D);
    expect(warnings).toEqual(['unknown field "spec.a"', 'unknown field "spec.template.spec.containers[0].y"', 'unknown field "spec.z"']);
  });

  it("a merge patch's own duplicate keys are strict errors", () => {
    const warnings: string[] = [];
    decodePatchedObject(
      { type: "merge", patched: patched({ replicas: 2 }), patch: { spec: { replicas: 2 } }, patchText: '{"spec":{"replicas":1,"replicas":2}}', mode: "Warn", warnings },
      D,
    );
    expect(warnings).toEqual(['duplicate field "spec.replicas"']);
  });

  it("a JSON patch's unknown operation fields", () => {
    const warnings: string[] = [];
    decodePatchedObject(
      { type: "json", patched: patched({ replicas: 2 }), patch: [{ op: "replace", path: "/spec/replicas", value: 2, x: 1 }], patchText: '[{"op":"replace","path":"/spec/replicas","value":2,"x":1}]', mode: "Warn", warnings },
      D,
    );
    expect(warnings).toEqual(['json patch unknown field "[0].x"']);
  });

  it("frozen (stored) parts are copied, never written", () => {
    const frozen = Object.freeze({ limits: Object.freeze({ cpu: "1000m" }) });
    const p = patched({ template: { spec: { containers: [{ name: "c", resources: frozen }] } } });
    const out = decodePatchedObject({ type: "merge", patched: p, patch: {}, mode: "Strict", warnings: [] }, D);
    expect((out.spec as { template: { spec: { containers: Array<{ resources: unknown }> } } }).template.spec.containers[0].resources).toEqual({ limits: { cpu: "1" } });
    expect(frozen.limits.cpu).toBe("1000m");
  });

  it("repeated quantities and times (remembered forms) decode as the first time, frozen or not", () => {
    const body = () => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", creationTimestamp: "0001-01-01T00:00:00Z", ownerReferences: [] },
      spec: {
        paused: false,
        x: 1,
        template: { metadata: { creationTimestamp: "2024-01-01T10:00:00.5+02:00" }, spec: { containers: [{ name: "c", resources: { limits: { cpu: "1000m", memory: "0.5Gi" } } }] } },
      },
    });
    const want = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: { template: { metadata: { creationTimestamp: "2024-01-01T08:00:00Z" }, spec: { containers: [{ name: "c", resources: { limits: { cpu: "1", memory: "512Mi" } } }] } } },
    };
    const deepFreeze = <T>(o: T): T => {
      if (o !== null && typeof o === "object") {
        for (const v of Object.values(o)) deepFreeze(v);
        Object.freeze(o);
      }
      return o;
    };
    for (let i = 0; i < 3; i++) {
      for (const frozen of [false, true]) {
        const input = frozen ? deepFreeze(body()) : body();
        const snapshot = JSON.stringify(input);
        const out = decodePatchedObject({ type: "merge", patched: input as unknown as KubeObject, patch: {}, mode: "Ignore", warnings: [] }, D);
        expect(out).toEqual(want);
        if (frozen) expect(JSON.stringify(input)).toBe(snapshot);
      }
    }
  });
});

/** fmt's %v of {spec: ...}, the way the strategic patcher prints its patch map. */
function goMap(spec: Record<string, unknown>): string {
  const v = (x: unknown): string => {
    if (Array.isArray(x)) return `[${x.map(v).join(" ")}]`;
    if (x !== null && typeof x === "object") {
      const o = x as Record<string, unknown>;
      return `map[${Object.keys(o)
        .sort()
        .map((k) => `${k}:${v(o[k])}`)
        .join(" ")}]`;
    }
    return String(x);
  };
  return v({ spec });
}
