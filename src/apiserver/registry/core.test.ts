import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { defaultImagePullPolicy } from "./poddefaults.js";
import { computePodQOS } from "./podvalidation.js";
import { podStrategy } from "./pods.js";
import { serviceStrategy } from "./services.js";

type Obj = KubeObject & { spec: Record<string, unknown>; status?: Record<string, unknown> };

function pod(): Obj {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }] }] },
  } as Obj;
}

function createdPod(mutate: (p: Obj) => void = () => {}): Obj {
  const p = pod();
  mutate(p);
  podStrategy.defaults(p);
  podStrategy.prepareForCreate(p);
  return p;
}

describe("Pod defaults and create", () => {
  it.each([
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["nginx:1.27", "IfNotPresent"],
    ["registry:5000/nginx", "Always"],
    ["registry:5000/nginx:1", "IfNotPresent"],
    ["nginx@sha256:abc", "IfNotPresent"],
  ])("imagePullPolicy for %s is %s", (image, want) => expect(defaultImagePullPolicy(image)).toBe(want));

  it("defaults spec, sets Pending, QoS and generation", () => {
    const p = createdPod((x) => (x.status = { phase: "Running" }));
    expect(p.spec).toMatchObject({
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 30,
      schedulerName: "default-scheduler",
      securityContext: {},
      enableServiceLinks: true,
      containers: [{ imagePullPolicy: "Always", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", ports: [{ containerPort: 80, protocol: "TCP" }] }],
    });
    expect(p.status).toEqual({ phase: "Pending", qosClass: "BestEffort" });
    expect(p.metadata?.generation).toBe(1);
    expect(podStrategy.validate(p)).toEqual([]);
  });

  it("defaults requests from limits, making the pod Guaranteed", () => {
    const p = createdPod((x) => ((x.spec.containers as Record<string, unknown>[])[0].resources = { limits: { cpu: "500m", memory: "128Mi" } }));
    expect((p.spec.containers as { resources: unknown }[])[0].resources).toEqual({
      limits: { cpu: "500m", memory: "128Mi" },
      requests: { cpu: "500m", memory: "128Mi" },
    });
    expect(p.status?.qosClass).toBe("Guaranteed");
  });

  it.each([
    [{}, "BestEffort"],
    [{ requests: { cpu: "100m" } }, "Burstable"],
    [{ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1000m", memory: "1Gi" } }, "Guaranteed"],
    [{ requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }, "Burstable"],
  ])("QoS of %j is %s", (resources, want) => {
    expect(computePodQOS({ containers: [{ name: "c", resources }] })).toBe(want);
  });

  it("field set", () => {
    const p = createdPod((x) => (x.spec.nodeName = "n1"));
    expect(podStrategy.fieldSet(p)).toEqual({
      "metadata.name": "p",
      "metadata.namespace": "default",
      "spec.nodeName": "n1",
      "spec.restartPolicy": "Always",
      "spec.schedulerName": "default-scheduler",
      "spec.serviceAccountName": "",
      "spec.hostNetwork": "false",
      "status.phase": "Pending",
      "status.podIP": "",
      "status.nominatedNodeName": "",
    });
  });
});

describe("Pod validation", () => {
  const cases: { name: string; mutate: (p: Obj) => void; want: string[] }[] = [
    { name: "valid", mutate: () => {}, want: [] },
    { name: "containers required", mutate: (p) => (p.spec.containers = []), want: ["spec.containers: Required value"] },
    {
      name: "container name must be a DNS label",
      mutate: (p) => ((p.spec.containers as Record<string, unknown>[])[0].name = "Web"),
      want: ['spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of'],
    },
    {
      name: "bad container port and protocol",
      mutate: (p) => ((p.spec.containers as Record<string, unknown>[])[0].ports = [{ containerPort: 70000, protocol: "HTTP" }]),
      want: [
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
        'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      ],
    },
    {
      name: "restartPolicy enum",
      mutate: (p) => (p.spec.restartPolicy = "Sometimes"),
      want: ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    },
    {
      name: "volume mount must name a volume",
      mutate: (p) => ((p.spec.containers as Record<string, unknown>[])[0].volumeMounts = [{ name: "data", mountPath: "/data" }]),
      want: ['spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    },
    {
      name: "requests above limits",
      mutate: (p) => ((p.spec.containers as Record<string, unknown>[])[0].resources = { requests: { cpu: "2" }, limits: { cpu: "1" } }),
      want: ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
    },
    {
      name: "ephemeral containers cannot be set on create",
      mutate: (p) => (p.spec.ephemeralContainers = [{ name: "debug", image: "busybox", imagePullPolicy: "Always", terminationMessagePolicy: "File" }]),
      want: ["spec.ephemeralContainers: Forbidden: cannot be set on create"],
    },
    {
      name: "toleration without key needs Exists",
      mutate: (p) => (p.spec.tolerations = [{ operator: "Equal", value: "x" }]),
      want: ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = pod();
      podStrategy.defaults(p);
      c.mutate(p);
      podStrategy.prepareForCreate(p);
      const got = podStrategy.validate(p).map(String);
      expect(got.length, got.join("\n")).toBe(c.want.length);
      c.want.forEach((w, i) => expect(got[i].startsWith(w), got[i]).toBe(true));
    });
  }
});

function storedPod(): Obj {
  const p = createdPod();
  Object.assign(p.metadata as object, { resourceVersion: "3", uid: "u" });
  return p;
}

describe("Pod updates", () => {
  it("allows image changes and bumps generation", () => {
    const old = storedPod();
    const n = structuredClone(old);
    (n.spec.containers as Record<string, unknown>[])[0].image = "nginx:2";
    n.status = { phase: "Running" };
    podStrategy.prepareForUpdate(n, old);
    expect(n.status).toEqual(old.status);
    expect(n.metadata?.generation).toBe(2);
    expect(podStrategy.validateUpdate(n, old)).toEqual([]);
  });
  it("forbids other spec changes with upstream's message", () => {
    const old = storedPod();
    const n = structuredClone(old);
    n.spec.nodeName = "other";
    podStrategy.prepareForUpdate(n, old);
    const errs = podStrategy.validateUpdate(n, old).map(String);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain(
      "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    );
    expect(errs[0]).toContain('+ nodeName: "other"');
  });
  it("forbids adding containers", () => {
    const old = storedPod();
    const n = structuredClone(old);
    (n.spec.containers as unknown[]).push({ name: "d", image: "x", imagePullPolicy: "Always", terminationMessagePolicy: "File" });
    expect(podStrategy.validateUpdate(n, old).map(String)).toEqual(["spec.containers: Forbidden: pod updates may not add or remove containers"]);
  });
  it("status update keeps spec and owner references, checks qosClass", () => {
    const old = storedPod();
    old.metadata = { ...old.metadata, ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "r", uid: "1" }] };
    const n = structuredClone(old);
    n.spec.nodeName = "n1";
    n.metadata = { ...n.metadata, ownerReferences: [] };
    n.status = { phase: "Running", qosClass: "Guaranteed", podIPs: [{ ip: "10.0.0.1" }] };
    podStrategy.prepareForStatusUpdate(n, old);
    expect(n.spec.nodeName).toBeUndefined();
    expect(n.metadata?.ownerReferences).toEqual(old.metadata?.ownerReferences);
    expect(podStrategy.validateStatusUpdate(n, old).map(String)).toEqual(['status.qosClass: Invalid value: "Guaranteed": field is immutable']);
  });
});

function service(): Obj {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default" },
    spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
  } as Obj;
}

describe("Service", () => {
  it("defaults and create", () => {
    const s = service();
    serviceStrategy.defaults(s);
    serviceStrategy.prepareForCreate(s);
    expect(s.spec).toEqual({
      selector: { app: "web" },
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      type: "ClusterIP",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
      ipFamilyPolicy: "SingleStack",
      ipFamilies: ["IPv4"],
    });
    expect(s.status).toEqual({ loadBalancer: {} });
    expect(s.metadata?.generation).toBeUndefined();
    expect(serviceStrategy.validate(s)).toEqual([]);
  });
  const cases: { name: string; mutate: (s: Obj) => void; want: string[] }[] = [
    {
      name: "name must be a DNS-1035 label",
      mutate: (s) => ((s.metadata as Record<string, unknown>).name = "1web"),
      want: ['metadata.name: Invalid value: "1web": a DNS-1035 label must consist of'],
    },
    { name: "ports required", mutate: (s) => (s.spec.ports = []), want: ["spec.ports: Required value"] },
    { name: "headless needs no ports", mutate: (s) => Object.assign(s.spec, { ports: [], clusterIP: "None", clusterIPs: ["None"] }), want: [] },
    {
      name: "type enum",
      mutate: (s) => (s.spec.type = "Magic"),
      want: ['spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'],
    },
    {
      name: "port number",
      mutate: (s) => ((s.spec.ports as Record<string, unknown>[])[0].port = 0),
      want: ["spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"],
    },
    {
      name: "names required for several ports",
      mutate: (s) => (s.spec.ports = [{ port: 80, protocol: "TCP", targetPort: 80 }, { port: 443, protocol: "TCP", targetPort: 443, name: "https" }]),
      want: ["spec.ports[0].name: Required value"],
    },
    {
      name: "nodePort not with ClusterIP",
      mutate: (s) => ((s.spec.ports as Record<string, unknown>[])[0].nodePort = 30080),
      want: ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
    },
    {
      name: "selector labels",
      mutate: (s) => (s.spec.selector = { app: "no spaces" }),
      want: ['spec.selector: Invalid value: "no spaces"'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = service();
      serviceStrategy.defaults(s);
      c.mutate(s);
      serviceStrategy.prepareForCreate(s);
      const got = serviceStrategy.validate(s).map(String);
      expect(got.length, got.join("\n")).toBe(c.want.length);
      c.want.forEach((w, i) => expect(got[i].startsWith(w), got[i]).toBe(true));
    });
  }
  function storedService(): Obj {
    const s = service();
    serviceStrategy.defaults(s);
    serviceStrategy.prepareForCreate(s);
    Object.assign(s.spec, { clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10"] });
    Object.assign(s.metadata as object, { resourceVersion: "2", uid: "u" });
    return s;
  }
  it("clusterIP may not change once set", () => {
    const old = storedService();
    const n = structuredClone(old);
    n.spec.clusterIP = "10.96.0.11";
    serviceStrategy.prepareForUpdate(n, old);
    expect(n.spec.clusterIPs).toEqual(["10.96.0.11"]);
    expect(serviceStrategy.validateUpdate(n, old).map(String)).toEqual(['spec.clusterIPs[0]: Invalid value: ["10.96.0.11"]: may not change once set']);
  });
  it("patches allocated values a client left out", () => {
    const old = storedService();
    const n = service();
    Object.assign(n.metadata as object, { resourceVersion: "2", uid: "u" });
    serviceStrategy.defaults(n);
    serviceStrategy.prepareForUpdate(n, old);
    expect(n.spec.clusterIP).toBe("10.96.0.10");
    expect(n.spec.clusterIPs).toEqual(["10.96.0.10"]);
    expect(serviceStrategy.validateUpdate(n, old)).toEqual([]);
  });
});
