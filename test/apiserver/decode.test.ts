/**
 * Decoding like Go structs, over HTTP against the server with every built-in resource: a wrong
 * type at depth in a body of each kind family is a 400 Status with kube-apiserver's text and
 * nothing is stored; fieldValidation Strict / Warn / Ignore at depth; patches (JSON, merge,
 * strategic) and server-side apply whose result does not decode; the Go-like normal form of
 * what is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";

let api: RunningApiServer;

beforeAll(async () => {
  api = await startApiServer({ port: 0, insecureHttp: true });
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function call(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Reply> {
  const res = await fetch(api.url + path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": contentType },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

const container = (extra: Record<string, unknown> = {}) => ({ name: "c", image: "nginx", ...extra });
const podSpec = (extra: Record<string, unknown> = {}) => ({ containers: [container(extra)] });
const template = (spec: Record<string, unknown> = podSpec()) => ({ metadata: { labels: { app: "x" } }, spec });
const deploymentBody = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: { selector: { matchLabels: { app: "x" } }, template: template(), ...spec },
});

interface WrongType {
  family: string;
  /** Collection path. */
  path: string;
  body: Record<string, unknown>;
  message: string;
}

const cannot = (kind: string, detail: string, version = "v1") => `${kind} in version "${version}" cannot be handled as a ${kind}: ${detail}`;

const wrongTypes: WrongType[] = [
  {
    family: "core",
    path: "/api/v1/namespaces/default/pods",
    body: { apiVersion: "v1", kind: "Pod", metadata: { name: "p1" }, spec: podSpec({ ports: [{ containerPort: "80" }] }) },
    message: cannot("Pod", "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"),
  },
  {
    family: "core",
    path: "/api/v1/namespaces/default/configmaps",
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1" }, data: { a: 1 } },
    message: cannot("ConfigMap", "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"),
  },
  {
    family: "core",
    path: "/api/v1/namespaces/default/secrets",
    body: { apiVersion: "v1", kind: "Secret", metadata: { name: "s1" }, data: { a: "not base64!" } },
    message: cannot("Secret", "illegal base64 data at input byte 3"),
  },
  {
    family: "core",
    path: "/api/v1/namespaces/default/services",
    body: { apiVersion: "v1", kind: "Service", metadata: { name: "svc1" }, spec: { ports: [{ port: 80, targetPort: true }] } },
    message: cannot("Service", "json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32"),
  },
  {
    family: "core",
    path: "/api/v1/namespaces",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" }, spec: { finalizers: "kubernetes" } },
    message: cannot("Namespace", "json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName"),
  },
  {
    family: "core",
    path: "/api/v1/namespaces/default/serviceaccounts",
    body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa1" }, automountServiceAccountToken: "true" },
    message: cannot("ServiceAccount", "json: cannot unmarshal string into Go struct field ServiceAccount.automountServiceAccountToken of type bool"),
  },
  {
    family: "core",
    path: "/api/v1/nodes",
    body: { apiVersion: "v1", kind: "Node", metadata: { name: "n1" }, spec: { taints: [{ key: "k", effect: "NoSchedule", timeAdded: "yesterday" }] } },
    message: cannot("Node", 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
  },
  {
    family: "core",
    path: "/api/v1/namespaces/default/events",
    body: { apiVersion: "v1", kind: "Event", metadata: { name: "e1" }, involvedObject: { name: "x" }, count: "1" },
    message: cannot("Event", "json: cannot unmarshal string into Go struct field Event.count of type int32"),
  },
  {
    family: "apps",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: deploymentBody("d1", { replicas: "3" }),
    message: cannot("Deployment", "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"),
  },
  {
    family: "apps",
    path: "/apis/apps/v1/namespaces/default/replicasets",
    body: {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "rs1" },
      spec: { selector: { matchLabels: { app: "x" } }, template: template(podSpec({ resources: { limits: { cpu: "lots" } } })) },
    },
    message: cannot("ReplicaSet", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
  },
  {
    family: "coordination",
    path: "/apis/coordination.k8s.io/v1/namespaces/default/leases",
    body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l1" }, spec: { renewTime: "2026-01-01T00:00:00Z" } },
    message: cannot("Lease", 'parsing time "2026-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
  },
  {
    family: "events",
    path: "/apis/events.k8s.io/v1/namespaces/default/events",
    body: { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: "ev1" }, eventTime: 5 },
    message: cannot("Event", "json: cannot unmarshal number into Go struct field Event.eventTime of type string"),
  },
  {
    family: "rbac",
    path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
    body: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "r1" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: "get" }] },
    message: cannot("Role", "json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string"),
  },
  {
    family: "rbac",
    path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "crb1" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: ["view"] },
      subjects: [],
    },
    message: cannot("ClusterRoleBinding", "json: cannot unmarshal array into Go struct field RoleRef.roleRef.name of type string"),
  },
  {
    family: "storage",
    path: "/apis/storage.k8s.io/v1/storageclasses",
    body: { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "sc1" }, provisioner: "x", reclaimPolicy: 5 },
    message: cannot("StorageClass", "json: cannot unmarshal number into Go struct field StorageClass.reclaimPolicy of type v1.PersistentVolumeReclaimPolicy"),
  },
  {
    family: "admissionregistration",
    path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "vwc1" },
      webhooks: [{ name: "a.example.com", clientConfig: { url: "https://x" }, sideEffects: "None", admissionReviewVersions: ["v1"], timeoutSeconds: "10" }],
    },
    message: cannot("ValidatingWebhookConfiguration", "json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32"),
  },
  {
    family: "certificates",
    path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
    body: {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "csr1" },
      spec: { request: "AAAA", signerName: "example.com/x", expirationSeconds: 3.5 },
    },
    message: cannot("CertificateSigningRequest", "json: cannot unmarshal number 3.5 into Go struct field CertificateSigningRequestSpec.spec.expirationSeconds of type int32"),
  },
  {
    family: "scheduling",
    path: "/apis/scheduling.k8s.io/v1/priorityclasses",
    body: { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "pc1" }, value: "1000" },
    message: cannot("PriorityClass", "json: cannot unmarshal string into Go struct field PriorityClass.value of type int32"),
  },
  {
    family: "node",
    path: "/apis/node.k8s.io/v1/runtimeclasses",
    body: { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name: "rc1" }, handler: "h", scheduling: { tolerations: [{ tolerationSeconds: "5" }] } },
    message: cannot("RuntimeClass", "json: cannot unmarshal string into Go struct field Toleration.scheduling.tolerations.tolerationSeconds of type int64"),
  },
  {
    family: "flowcontrol",
    path: "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
    body: { apiVersion: "flowcontrol.apiserver.k8s.io/v1", kind: "FlowSchema", metadata: { name: "fs1" }, spec: { priorityLevelConfiguration: { name: "x" }, matchingPrecedence: "10" } },
    message: cannot("FlowSchema", "json: cannot unmarshal string into Go struct field FlowSchemaSpec.spec.matchingPrecedence of type int32"),
  },
  {
    family: "apiextensions",
    path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    body: {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "foos.example.com" },
      spec: { group: "example.com", scope: "Namespaced", names: { plural: "foos", kind: "Foo" }, versions: [{ name: "v1", served: "yes", storage: true }] },
    },
    message: cannot("CustomResourceDefinition", "json: cannot unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of type bool"),
  },
  {
    family: "apiregistration",
    path: "/apis/apiregistration.k8s.io/v1/apiservices",
    body: { apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name: "v1.x.example.com" }, spec: { group: "x.example.com", version: "v1", groupPriorityMinimum: "1000" } },
    message: cannot("APIService", "json: cannot unmarshal string into Go struct field APIServiceSpec.spec.groupPriorityMinimum of type int32"),
  },
];

describe("a wrong type at depth is a 400 with upstream's message, nothing stored", () => {
  for (const c of wrongTypes) {
    const name = (c.body.metadata as { name: string }).name;
    it(`${c.family}: ${c.body.kind as string}`, async () => {
      const r = await call("POST", c.path, c.body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400, message: c.message });
      expect((await call("GET", `${c.path}/${name}`)).status).toBe(404);
    });
  }

  it("PUT of a wrong type leaves the stored object as it was", async () => {
    const path = "/apis/apps/v1/namespaces/default/deployments";
    const created = await call("POST", path, deploymentBody("put1", { replicas: 2 }));
    expect(created.status).toBe(201);
    const bad = { ...created.body, spec: { ...created.body.spec, replicas: "3" } };
    const r = await call("PUT", `${path}/put1`, bad);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(cannot("Deployment", "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"));
    const after = await call("GET", `${path}/put1`);
    expect(after.body.spec.replicas).toBe(2);
    expect(after.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it("the scale subresource decodes an autoscaling/v1 Scale", async () => {
    const path = "/apis/apps/v1/namespaces/default/deployments";
    await call("POST", path, deploymentBody("scale1", { replicas: 1 }));
    const r = await call("PUT", `${path}/scale1/scale`, { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "scale1" }, spec: { replicas: "5" } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(cannot("Scale", "json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32"));
    expect((await call("GET", `${path}/scale1`)).body.spec.replicas).toBe(1);
  });
});

describe("fieldValidation at depth", () => {
  const path = "/apis/apps/v1/namespaces/default/deployments";
  const withUnknown = (name: string) => deploymentBody(name, { template: template(podSpec({ foo: 1 })), bar: true });

  it("Strict: 400 naming every unknown field, nothing stored", async () => {
    const r = await call("POST", `${path}?fieldValidation=Strict`, withUnknown("strict1"));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(cannot("Deployment", 'strict decoding error: unknown field "spec.template.spec.containers[0].foo", unknown field "spec.bar"'));
    expect((await call("GET", `${path}/strict1`)).status).toBe(404);
  });

  it("Strict: duplicate fields too", async () => {
    const text = JSON.stringify(deploymentBody("dup1")).replace('"spec":{', '"spec":{"replicas":1,"replicas":2,');
    const r = await call("POST", `${path}?fieldValidation=Strict`, text);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(cannot("Deployment", 'strict decoding error: duplicate field "spec.replicas"'));
  });

  it("Warn (the default): stored without the fields, one Warning header each", async () => {
    const r = await call("POST", path, withUnknown("warn1"));
    expect(r.status).toBe(201);
    expect(r.headers.get("warning")).toBe('299 - "unknown field \\"spec.template.spec.containers[0].foo\\"", 299 - "unknown field \\"spec.bar\\""');
    expect(r.body.spec.bar).toBeUndefined();
    expect(r.body.spec.template.spec.containers[0].foo).toBeUndefined();
  });

  it("Ignore: dropped silently", async () => {
    const r = await call("POST", `${path}?fieldValidation=Ignore`, withUnknown("ignore1"));
    expect(r.status).toBe(201);
    expect(r.headers.get("warning")).toBeNull();
    expect(r.body.spec.template.spec.containers[0].foo).toBeUndefined();
  });

  it("YAML bodies: goyaml's duplicate-key errors", async () => {
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  a: x\n  a: y\n";
    const strict = await call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", yaml, "application/yaml");
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(cannot("ConfigMap", 'strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map'));
    const warn = await call("POST", "/api/v1/namespaces/default/configmaps", yaml, "application/yaml");
    expect(warn.status).toBe(201);
    expect(warn.headers.get("warning")).toBe('299 - "line 7: key \\"a\\" already set in map"');
    expect(warn.body.data).toEqual({ a: "y" });
  });
});

describe("patches whose result does not decode: 422, nothing stored", () => {
  const path = "/apis/apps/v1/namespaces/default/deployments";
  let rv = "";
  beforeAll(async () => {
    rv = (await call("POST", path, deploymentBody("patch1", { replicas: 1 }))).body.metadata.resourceVersion;
  });

  it("merge patch", async () => {
    const r = await call("PATCH", `${path}/patch1`, { spec: { replicas: "3" } }, "application/merge-patch+json");
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe("Invalid");
    expect(r.body.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{.*\\"replicas\\":\\"3\\".*\}": json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32$/);
    expect(r.body.details.causes[0]).toMatchObject({ reason: "FieldValueInvalid", field: "patch" });
  });

  it("JSON patch", async () => {
    const r = await call("PATCH", `${path}/patch1`, [{ op: "replace", path: "/spec/replicas", value: "3" }], "application/json-patch+json");
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32$/);
  });

  it("strategic merge patch: the unstructured converter's message, the patch printed as a Go map", async () => {
    const r = await call("PATCH", `${path}/patch1`, { spec: { replicas: "3" } }, "application/strategic-merge-patch+json");
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(' "" is invalid: patch: Invalid value: "map[spec:map[replicas:3]]": unrecognized type: int32');
    const r2 = await call("PATCH", `${path}/patch1`, { metadata: { name: 5 } }, "application/strategic-merge-patch+json");
    expect(r2.body.message).toBe(' "" is invalid: patch: Invalid value: "map[metadata:map[name:5]]": cannot convert int64 to string');
  });

  it("unknown fields in a patch: Strict 422, Warn warns", async () => {
    const strict = await call("PATCH", `${path}/patch1?fieldValidation=Strict`, { spec: { template: { spec: { foo: 1 } } } }, "application/merge-patch+json");
    expect(strict.status).toBe(422);
    expect(strict.body.message).toMatch(/: strict decoding error: unknown field "spec\.template\.spec\.foo"$/);
    const warn = await call("PATCH", `${path}/patch1`, { spec: { template: { spec: { foo: 1 } } } }, "application/strategic-merge-patch+json");
    expect(warn.status).toBe(200);
    expect(warn.headers.get("warning")).toBe('299 - "unknown field \\"spec.template.spec.foo\\""');
    rv = warn.body.metadata.resourceVersion;
  });

  it("the stored object is untouched", async () => {
    const cur = await call("GET", `${path}/patch1`);
    expect(cur.body.spec.replicas).toBe(1);
    expect(cur.body.metadata.resourceVersion).toBe(rv);
  });
});

describe("server-side apply", () => {
  const path = "/apis/apps/v1/namespaces/default/deployments";
  const apply = (name: string, body: unknown) => call("PATCH", `${path}/${name}?fieldManager=me`, body, "application/apply-patch+yaml");

  it("a wrong type or an unknown field fails the typed conversion (structured-merge-diff's text)", async () => {
    const r = await apply("ssa1", { ...deploymentBody("ssa1", { replicas: "3" }), metadata: { name: "ssa1", namespace: "default" } });
    expect(r.status).toBe(500);
    expect(r.body.message).toBe(
      "failed to create typed patch object (default/ssa1; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string",
    );
    const u = await apply("ssa1", deploymentBody("ssa1", { foo: 1 }));
    expect(u.body.message).toBe("failed to create typed patch object (/ssa1; apps/v1, Kind=Deployment): .spec.foo: field not declared in schema");
    expect((await call("GET", `${path}/ssa1`)).status).toBe(404);
  });

  it("the applied object is stored in Go's normal form", async () => {
    const r = await apply("ssa2", deploymentBody("ssa2", { template: template(podSpec({ resources: { limits: { cpu: "1000m" } } })) }));
    expect(r.status).toBe(201);
    expect(r.body.spec.template.spec.containers[0].resources.limits.cpu).toBe("1");
  });
});

describe("Go's normal form of what is stored", () => {
  it("omitempty fields left empty vanish; quantities, times and bytes canonical; nulls become zero values", async () => {
    const r = await call("POST", "/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "norm1", ownerReferences: [], labels: {}, annotations: { a: null }, creationTimestamp: null },
      spec: {
        containers: [container({ resources: { requests: { cpu: "1000m", memory: "0.5Gi" }, limits: { cpu: 2.5 } }, tty: false, stdin: null })],
        activeDeadlineSeconds: null,
      },
    });
    expect(r.status).toBe(201);
    const meta = r.body.metadata;
    expect(meta.ownerReferences).toBeUndefined();
    expect(meta.labels).toBeUndefined();
    expect(meta.annotations).toEqual({ a: "" });
    const c = r.body.spec.containers[0];
    expect(c.resources).toEqual({ requests: { cpu: "1", memory: "512Mi" }, limits: { cpu: "2500m" } });
    expect(c).not.toHaveProperty("tty");
    expect(c).not.toHaveProperty("stdin");
    expect(r.body.spec).not.toHaveProperty("activeDeadlineSeconds");
  });

  it("an orphaned dependent shows no ownerReferences: []", async () => {
    const owner = await call("POST", "/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner1" } });
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner1", uid: owner.body.metadata.uid };
    await call("POST", "/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dep1", ownerReferences: [ref] } });
    // The garbage collector's orphaning patch: delete the reference by uid.
    const r = await call(
      "PATCH",
      "/api/v1/namespaces/default/configmaps/dep1",
      { metadata: { ownerReferences: [{ $patch: "delete", uid: ref.uid }] } },
      "application/strategic-merge-patch+json",
    );
    expect(r.status).toBe(200);
    expect(r.body.metadata).not.toHaveProperty("ownerReferences");
  });

  it("timestamps in RFC 3339 seconds (Time) and microseconds (MicroTime), UTC", async () => {
    const r = await call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "times1" },
      spec: { holderIdentity: "a", renewTime: "2026-01-01T10:00:00.123456+02:00" },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec.renewTime).toBe("2026-01-01T08:00:00.123456Z");
  });
});
