import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { KubeObject } from "../../apimachinery/types.js";
import {
  decodeProtobufBody,
  encodeProtobufBody,
  ProtobufDecodeError,
  UnsupportedProtobufKindError,
} from "./index.js";
import { WIRE_VARINT, WireWriter } from "./wire.js";

const MAGIC = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);
const utf8 = new TextEncoder();

/** Builds a `k8s\0` body around hand-made raw message bytes. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra?: (w: WireWriter) => void): Uint8Array {
  const tm = new WireWriter();
  tm.bytesField(1, utf8.encode(apiVersion));
  tm.bytesField(2, utf8.encode(kind));
  const w = new WireWriter();
  w.raw(MAGIC);
  w.bytesField(1, tm.finish());
  w.bytesField(2, raw);
  extra?.(w);
  return w.finish();
}

function roundTrip(obj: KubeObject): KubeObject {
  const { object, warnings, unknownFields } = decodeProtobufBody(encodeProtobufBody(obj));
  expect(warnings).toEqual([]);
  expect(unknownFields).toEqual([]);
  return object;
}

describe("envelope", () => {
  it("rejects a body without the k8s\\0 prefix", () => {
    expect(() => decodeProtobufBody(utf8.encode('{"kind":"Pod"}'))).toThrow(ProtobufDecodeError);
    expect(() => decodeProtobufBody(new Uint8Array(0))).toThrow(ProtobufDecodeError);
  });

  it("rejects a body cut anywhere inside the object's message", () => {
    const meta = new WireWriter();
    meta.bytesField(1, utf8.encode("x"));
    const inner = new WireWriter();
    inner.bytesField(1, meta.finish());
    const raw = inner.finish();
    // The raw field comes last, so every cut after its tag lands in its length prefix or payload.
    const full = envelope("v1", "ConfigMap", raw);
    expect(decodeProtobufBody(full).object).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } });
    const rawTag = full.length - raw.length - 2;
    for (let n = rawTag + 1; n < full.length; n++) {
      expect(() => decodeProtobufBody(full.subarray(0, n))).toThrow(ProtobufDecodeError);
    }
  });

  it("map keys such as __proto__ stay plain keys", () => {
    const cm = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" }, data: JSON.parse('{"__proto__":"p","a":"b"}') as object };
    const out = roundTrip(cm);
    expect(Object.getPrototypeOf(out.data)).toBe(Object.prototype);
    expect(Object.keys(out.data as object)).toEqual(["__proto__", "a"]);
  });

  it("answers an unknown kind or apiVersion with UnsupportedProtobufKindError", () => {
    expect(() => decodeProtobufBody(envelope("v1", "Frobnicator", new Uint8Array(0)))).toThrow(UnsupportedProtobufKindError);
    expect(() => decodeProtobufBody(envelope("example.com/v1", "Foo", new Uint8Array(0)))).toThrow(
      /no protobuf schema for example.com\/v1, Kind=Foo/,
    );
    // A version of a known group that has no generated.proto.
    expect(() => decodeProtobufBody(envelope("apps/v9", "Deployment", new Uint8Array(0)))).toThrow(
      UnsupportedProtobufKindError,
    );
  });

  it("requires a kind and rejects content encodings", () => {
    expect(() => decodeProtobufBody(envelope("v1", "", new Uint8Array(0)))).toThrow(ProtobufDecodeError);
    const gz = envelope("v1", "ConfigMap", new Uint8Array(0), (w) => w.bytesField(3, utf8.encode("gzip")));
    expect(() => decodeProtobufBody(gz)).toThrow(/contentEncoding/);
  });

  it("decodes helm's DeleteOptions with an empty raw message", () => {
    // helm uninstall: k8s\0 + Unknown{TypeMeta{v1, DeleteOptions}, raw: empty} (31 bytes).
    const body = encodeProtobufBody({ apiVersion: "v1", kind: "DeleteOptions" });
    expect(body.length).toBe(31);
    expect(decodeProtobufBody(body)).toEqual({ object: { kind: "DeleteOptions", apiVersion: "v1" }, warnings: [], unknownFields: [] });
  });

  it("serves meta/v1 options kinds under any group version", () => {
    const opts = { kind: "DeleteOptions", apiVersion: "apps/v1", gracePeriodSeconds: 0, propagationPolicy: "Foreground", dryRun: ["All"] };
    // gracePeriodSeconds is a pointer: an explicit 0 must survive.
    expect(roundTrip(opts)).toStrictEqual(opts);
    const pre = { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: "u1", resourceVersion: "5" }, orphanDependents: false };
    expect(roundTrip(pre)).toStrictEqual(pre);
  });
});

describe("field rules", () => {
  it("skips unknown field numbers silently (no client warning) and keeps the rest", () => {
    const spec = new WireWriter();
    spec.tag(1, WIRE_VARINT);
    spec.varint(3); // replicas
    spec.tag(99, WIRE_VARINT);
    spec.varint(7);
    spec.bytesField(98, utf8.encode("junk"));
    const dep = new WireWriter();
    dep.bytesField(2, spec.finish());
    dep.tag(77, 1);
    dep.raw(new Uint8Array(8)); // fixed64
    dep.tag(76, 5);
    dep.raw(new Uint8Array(4)); // fixed32
    const { object, warnings, unknownFields } = decodeProtobufBody(envelope("apps/v1", "Deployment", dep.finish()));
    expect(object).toEqual({ kind: "Deployment", apiVersion: "apps/v1", spec: { replicas: 3 } });
    expect(warnings).toEqual([]);
    expect(unknownFields).toEqual([
      "unknown field 99 in apps/v1.DeploymentSpec",
      "unknown field 98 in apps/v1.DeploymentSpec",
      "unknown field 77 in apps/v1.Deployment",
      "unknown field 76 in apps/v1.Deployment",
    ]);
  });

  it("ignores ObjectMeta field 15 (clusterName, removed in 1.24) that older clients still send", () => {
    const meta = new WireWriter();
    meta.bytesField(1, utf8.encode("cm1"));
    meta.bytesField(15, utf8.encode("")); // Go clients up to 1.23 always wrote clusterName
    const cm = new WireWriter();
    cm.bytesField(1, meta.finish());
    const { object, warnings } = decodeProtobufBody(envelope("v1", "ConfigMap", cm.finish()));
    expect(object).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "cm1" } });
    expect(warnings).toEqual([]);
  });

  it("rejects a known field with the wrong wire type, groups, and field number 0", () => {
    const bad = new WireWriter();
    bad.tag(1, WIRE_VARINT); // metadata is a message
    bad.varint(1);
    expect(() => decodeProtobufBody(envelope("v1", "ConfigMap", bad.finish()))).toThrow(/wire type 0, expected 2/);
    const group = new WireWriter();
    group.tag(50, 3);
    expect(() => decodeProtobufBody(envelope("v1", "ConfigMap", group.finish()))).toThrow(ProtobufDecodeError);
    expect(() => decodeProtobufBody(envelope("v1", "ConfigMap", new Uint8Array([0x02, 0x00])))).toThrow(/field number 0/);
  });

  it("rejects invalid UTF-8 in strings", () => {
    const cm = new WireWriter();
    const meta = new WireWriter();
    meta.bytesField(1, new Uint8Array([0xff, 0xfe]));
    cm.bytesField(1, meta.finish());
    expect(() => decodeProtobufBody(envelope("v1", "ConfigMap", cm.finish()))).toThrow(/UTF-8/);
  });

  it("omits present zero values of non-pointer omitempty fields, as Go's JSON would", () => {
    // The encoder writes every non-pointer field (hostNetwork: false, dnsPolicy: "", ...), as Go does.
    const pod = { kind: "Pod", apiVersion: "v1", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }] } };
    const body = encodeProtobufBody(pod);
    expect(body.length).toBeGreaterThan(40);
    expect(roundTrip(pod)).toStrictEqual({
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "i", resources: {} }] },
      status: {},
    });
  });

  it("keeps zero values of fields without omitempty and of pointers", () => {
    const pod: KubeObject = {
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name: "p", deletionGracePeriodSeconds: 0 },
      spec: {
        containers: [{ name: "c", ports: [{ containerPort: 0 }], resources: {} }],
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        priority: -5,
      },
      status: {},
    };
    expect(roundTrip(pod)).toStrictEqual(pod);
  });

  it("drops repeated and map fields that are empty", () => {
    const cm = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x", labels: {}, finalizers: [] }, data: {} };
    expect(roundTrip(cm)).toStrictEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } });
  });

  it("keeps empty strings inside repeated fields and maps", () => {
    const role = {
      kind: "Role",
      apiVersion: "rbac.authorization.k8s.io/v1",
      metadata: { name: "r", annotations: { a: "" } },
      rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    };
    expect(roundTrip(role)).toStrictEqual(role);
  });

  it("decodes packed and unpacked repeated integers", () => {
    const ctx = new WireWriter();
    const packed = new WireWriter();
    for (const g of [1, 300, 70000]) packed.varint(g);
    ctx.bytesField(4, packed.finish()); // supplementalGroups, packed
    ctx.tag(4, WIRE_VARINT);
    ctx.varint(5); // and one unpacked
    const spec = new WireWriter();
    spec.bytesField(14, ctx.finish());
    const pod = new WireWriter();
    pod.bytesField(2, spec.finish());
    const { object } = decodeProtobufBody(envelope("v1", "Pod", pod.finish()));
    expect(object).toEqual({ kind: "Pod", apiVersion: "v1", spec: { securityContext: { supplementalGroups: [1, 300, 70000, 5] } } });
  });

  it("lets the last occurrence of a singular field win", () => {
    const cm = new WireWriter();
    const m1 = new WireWriter();
    m1.bytesField(1, utf8.encode("first"));
    const m2 = new WireWriter();
    m2.bytesField(1, utf8.encode("second"));
    cm.bytesField(1, m1.finish());
    cm.bytesField(1, m2.finish());
    expect(decodeProtobufBody(envelope("v1", "ConfigMap", cm.finish())).object.metadata).toEqual({ name: "second" });
  });

  it("fills in a map entry's missing value with the zero value", () => {
    const entry = new WireWriter();
    entry.bytesField(1, utf8.encode("k"));
    const secret = new WireWriter();
    secret.bytesField(2, entry.finish()); // data: {k: <no value>}
    const { object } = decodeProtobufBody(envelope("v1", "Secret", secret.finish()));
    expect(object.data).toEqual({ k: "" });
  });

  it("rejects nesting deeper than the limit", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 250; i++) schema = { type: "object", properties: { x: schema } };
    const crd = {
      kind: "CustomResourceDefinition",
      apiVersion: "apiextensions.k8s.io/v1",
      metadata: { name: "deep.example.com" },
      spec: { versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
    };
    expect(() => decodeProtobufBody(encodeProtobufBody(crd))).toThrow(/nesting deeper/);
  });
});

describe("special types", () => {
  it("Time: RFC 3339 seconds, zero omitted by omitzero or printed as null", () => {
    const ev = {
      kind: "Event",
      apiVersion: "v1",
      metadata: { name: "e", namespace: "default", creationTimestamp: "2024-01-02T03:04:05Z", deletionTimestamp: "2030-12-31T23:59:59Z" },
      involvedObject: { kind: "Pod", name: "p" },
      firstTimestamp: "1970-01-01T00:00:00Z",
      lastTimestamp: null,
      eventTime: "2024-01-02T03:04:05.123456Z",
      source: {},
    };
    const out = roundTrip(ev);
    expect(out.metadata).toEqual(ev.metadata);
    expect(out.firstTimestamp).toBe("1970-01-01T00:00:00Z"); // the Unix epoch is not the zero time
    expect(out.lastTimestamp).toBeNull(); // non-pointer Time without omitzero: Go prints null
    expect(out.eventTime).toBe("2024-01-02T03:04:05.123456Z");
    // A creationTimestamp left unset is omitted (omitzero in 1.35).
    expect(roundTrip({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } }).metadata).toEqual({ name: "x" });
  });

  it("Time drops sub-second parts on the wire; MicroTime keeps microseconds", () => {
    const t = new WireWriter();
    t.tag(1, WIRE_VARINT);
    t.varint(1704164645);
    t.tag(2, WIRE_VARINT);
    t.varint(987654321);
    const meta = new WireWriter();
    meta.bytesField(8, t.finish());
    const cm = new WireWriter();
    cm.bytesField(1, meta.finish());
    expect(decodeProtobufBody(envelope("v1", "ConfigMap", cm.finish())).object.metadata).toEqual({
      creationTimestamp: "2024-01-02T03:04:05Z",
    });
    const spec = new WireWriter();
    spec.bytesField(4, t.finish()); // renewTime
    const lease = new WireWriter();
    lease.bytesField(2, spec.finish());
    expect(decodeProtobufBody(envelope("coordination.k8s.io/v1", "Lease", lease.finish())).object.spec).toEqual({
      renewTime: "2024-01-02T03:04:05.987654Z",
    });
  });

  it("Lease round trip with MicroTime pointers", () => {
    const lease = {
      kind: "Lease",
      apiVersion: "coordination.k8s.io/v1",
      metadata: { name: "l", namespace: "kube-system" },
      spec: {
        holderIdentity: "me",
        leaseDurationSeconds: 15,
        acquireTime: "2026-11-29T12:20:09.000000Z",
        renewTime: "2026-11-29T12:20:09.123456Z",
        leaseTransitions: 0,
      },
    };
    expect(roundTrip(lease)).toStrictEqual(lease);
  });

  it("IntOrString and Quantity", () => {
    const dep = {
      kind: "Deployment",
      apiVersion: "apps/v1",
      metadata: { name: "d" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "d" } },
        template: {
          metadata: { labels: { app: "d" } },
          spec: {
            containers: [
              {
                name: "c",
                image: "i",
                resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "0" } },
              },
            ],
          },
        },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
      status: {},
    };
    expect(roundTrip(dep)).toStrictEqual(dep);
  });

  it("bytes maps become base64, as in JSON", () => {
    const cm = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "bin" },
      binaryData: { blob: Buffer.from([0, 1, 2, 255]).toString("base64") },
      immutable: false,
    };
    expect(roundTrip(cm)).toStrictEqual(cm);
  });

  it("inline structs (Volume's VolumeSource, Probe's ProbeHandler) merge into the parent", () => {
    const pod = {
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name: "p" },
      spec: {
        volumes: [
          { name: "cfg", configMap: { name: "cm", items: [{ key: "a", path: "a.txt" }], defaultMode: 420 } },
          { name: "tmp", emptyDir: { sizeLimit: "1Gi" } },
        ],
        containers: [
          {
            name: "c",
            image: "i",
            resources: {},
            livenessProbe: { httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" }, initialDelaySeconds: 3, periodSeconds: 10 },
            readinessProbe: { exec: { command: ["true"] } },
          },
        ],
      },
      status: {},
    };
    expect(roundTrip(pod)).toStrictEqual(pod);
  });

  it("RawExtension holds JSON, or a nested protobuf object", () => {
    const rev = {
      kind: "ControllerRevision",
      apiVersion: "apps/v1",
      metadata: { name: "r" },
      data: { spec: { template: { metadata: { labels: { a: "b" } } } } },
      revision: 1,
    };
    expect(roundTrip(rev)).toStrictEqual(rev);

    const nested = encodeProtobufBody({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "inner" } });
    const raw = new WireWriter();
    raw.bytesField(1, nested);
    const msg = new WireWriter();
    msg.bytesField(2, raw.finish());
    const { object } = decodeProtobufBody(envelope("apps/v1", "ControllerRevision", msg.finish()));
    expect(object.data).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "inner" } });

    const badRaw = new WireWriter();
    badRaw.bytesField(1, utf8.encode("{not json"));
    const bad = new WireWriter();
    bad.bytesField(2, badRaw.finish());
    expect(() => decodeProtobufBody(envelope("apps/v1", "ControllerRevision", bad.finish()))).toThrow(ProtobufDecodeError);
  });

  it("FieldsV1 in managedFields", () => {
    const cm = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: {
        name: "x",
        managedFields: [
          {
            manager: "kubectl",
            operation: "Apply",
            apiVersion: "v1",
            time: "2024-05-06T07:08:09Z",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:data": { "f:a": {} } },
          },
        ],
      },
      data: { a: "1" },
    };
    expect(roundTrip(cm)).toStrictEqual(cm);
  });

  it("map<string, []string> (UserInfo.extra) uses the wrapper message", () => {
    const sar = {
      kind: "SubjectAccessReview",
      apiVersion: "authorization.k8s.io/v1",
      metadata: {},
      spec: {
        resourceAttributes: { verb: "get", resource: "pods" },
        user: "alice",
        groups: ["dev"],
        extra: { scopes: ["a", "b"], empty: [] },
        uid: "1",
      },
      status: { allowed: false },
    };
    expect(roundTrip(sar)).toStrictEqual(sar);
  });

  it("CustomResourceDefinition with JSONSchemaProps and its Or* forms", () => {
    const crd = {
      kind: "CustomResourceDefinition",
      apiVersion: "apiextensions.k8s.io/v1",
      metadata: { name: "foos.example.com" },
      spec: {
        group: "example.com",
        names: { plural: "foos", singular: "foo", shortNames: ["fo"], kind: "Foo", listKind: "FooList" },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                required: ["spec"],
                properties: {
                  spec: {
                    type: "object",
                    properties: {
                      replicas: { type: "integer", minimum: 0, maximum: 10.5, default: 1 },
                      mode: { type: "string", enum: ["a", "b"] },
                      tags: { type: "array", items: { type: "string" } },
                      tuple: { items: [{ type: "string" }, { type: "integer" }] },
                    },
                    additionalProperties: false,
                    "x-kubernetes-preserve-unknown-fields": true,
                    "x-kubernetes-validations": [{ rule: "self.replicas >= 0", message: "bad" }],
                  },
                  labels: { type: "object", additionalProperties: { type: "string" } },
                  deps: { dependencies: { a: ["b"], c: { required: ["d"] } } },
                },
              },
            },
            subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" } },
            additionalPrinterColumns: [{ name: "Mode", type: "string", jsonPath: ".spec.mode" }],
          },
        ],
      },
      status: { acceptedNames: { plural: "", kind: "" }, storedVersions: ["v1"] },
    };
    expect(roundTrip(crd)).toStrictEqual(crd);
  });
});

describe("round trips (property)", () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
  const labels = fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string(), { maxKeys: 4 });

  it("ConfigMaps and Secrets survive encode → decode", () => {
    fc.assert(
      fc.property(name, labels, fc.dictionary(fc.string(), fc.string(), { maxKeys: 5 }), fc.uint8Array({ maxLength: 40 }), (n, l, data, bin) => {
        const meta: Record<string, unknown> = { name: n };
        if (Object.keys(l).length > 0) meta.labels = { ...l };
        const cm: KubeObject = { kind: "ConfigMap", apiVersion: "v1", metadata: meta };
        if (Object.keys(data).length > 0) cm.data = { ...data };
        expect(roundTrip(cm)).toStrictEqual(cm);
        const secret: KubeObject = {
          kind: "Secret",
          apiVersion: "v1",
          metadata: meta,
          data: { bin: Buffer.from(bin).toString("base64") },
          type: "Opaque",
        };
        expect(roundTrip(secret)).toStrictEqual(secret);
      }),
      { numRuns: 200 },
    );
  });

  it("Deployments with random replicas, ports and IntOrString survive encode → decode", () => {
    fc.assert(
      fc.property(
        name,
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.array(fc.integer({ min: 1, max: 65535 }), { maxLength: 3 }),
        fc.oneof(fc.integer({ min: 0, max: 100 }), fc.stringMatching(/^[0-9]{1,2}%$/)),
        fc.bigInt({ min: 0n, max: 2n ** 53n - 1n }).map(Number),
        (n, replicas, ports, surge, generation) => {
          const container: Record<string, unknown> = { name: "c", image: "nginx", resources: {} };
          if (ports.length > 0) container.ports = ports.map((p) => ({ containerPort: p, protocol: "TCP" }));
          const dep: KubeObject = {
            kind: "Deployment",
            apiVersion: "apps/v1",
            metadata: generation === 0 ? { name: n } : { name: n, generation },
            spec: {
              replicas,
              selector: { matchLabels: { app: n } },
              template: { metadata: { labels: { app: n } }, spec: { containers: [container] } },
              strategy: { rollingUpdate: { maxSurge: surge } },
            },
            status: {},
          };
          expect(roundTrip(dep)).toStrictEqual(dep);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("arbitrary bytes never crash the decoder with anything but the two typed errors", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (tail) => {
        const body = new Uint8Array(MAGIC.length + tail.length);
        body.set(MAGIC);
        body.set(tail, MAGIC.length);
        try {
          decodeProtobufBody(body);
        } catch (err) {
          expect(err instanceof ProtobufDecodeError || err instanceof UnsupportedProtobufKindError).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("arbitrary bytes as a Pod's raw message only fail with ProtobufDecodeError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (raw) => {
        try {
          decodeProtobufBody(envelope("v1", "Pod", raw));
        } catch (err) {
          expect(err).toBeInstanceOf(ProtobufDecodeError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
