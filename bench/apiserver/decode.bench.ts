/**
 * bench/apiserver/decode: the cost of decoding request bodies like Go structs (src/apiserver/decode,
 * what every CREATE and UPDATE of a built-in kind now goes through) beside the shallow check it
 * replaced (top-level and ObjectMeta unknown fields plus ObjectMeta's types: ./shallowcheck.ts and
 * rest/metatypes.ts, after decodeObjectBody's JSON.parse), on the same bodies in the same run.
 *
 * Bodies: a CREATE of a typical Deployment (two containers, resources, probes) and the UPDATE a
 * client sends back for it (as stored: uid, resourceVersion, managedFields, defaults, status), as
 * JSON bytes, under fieldValidation=Warn (kubectl's default; Strict costs the same when nothing is
 * unknown). Each measurement runs in its own process (this file, forked with DECODE_BENCH_ROLE set
 * to the variant), DURATION_MS per body after a warm-up; ROUNDS rounds alternate which variant goes
 * first. Reported: median operations per second with min–max, and CPU-seconds per 1,000 bodies
 * (process.cpuUsage of the measuring process) beside wall-clock.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { figure, median, progress as report, type Benchmark, type Figure, type Sample as HarnessSample } from "../harness.js";

const ROLE = process.env.DECODE_BENCH_ROLE as Variant | undefined;
const DURATION_MS = 1200;
const ROUNDS = 5;

type Variant = "schema" | "shallow";
type Body = "create" | "update";
interface Sample {
  perSecond: number;
  cpuPer1000: number;
}
type Result = Record<Body, Sample>;

const progress = (m: string) => report("apiserver/decode", m);

function deployment(stored: boolean): object {
  const container = (name: string, image: string, cpu: string, memory: string) => ({
    name,
    image,
    ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
    env: Array.from({ length: 6 }, (_, k) => ({ name: `VAR_${k}`, value: `value-${k}` })),
    resources: { requests: { cpu, memory }, limits: { cpu: "500m", memory: "256Mi" } },
    readinessProbe: { httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    ...(stored ? { terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", imagePullPolicy: "IfNotPresent" } : {}),
  });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      labels: { app: "web", tier: "frontend" },
      annotations: { "deployment.kubernetes.io/revision": "1" },
      ...(stored
        ? {
            uid: "6f1c2b4e-8f0a-4c1e-9d7b-1a2b3c4d5e6f",
            resourceVersion: "12345",
            generation: 2,
            creationTimestamp: "2026-12-01T10:00:00Z",
            managedFields: [
              { manager: "kubectl", operation: "Update", apiVersion: "apps/v1", time: "2026-12-01T10:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {}, "f:template": { "f:spec": { "f:containers": {} } } } } },
            ],
          }
        : {}),
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web", tier: "frontend" } },
        spec: {
          containers: [container("web", "registry.example.com/team/web:1.2.3", "100m", "128Mi"), container("sidecar", "registry.example.com/team/proxy:0.9", "10m", "16Mi")],
          ...(stored ? { restartPolicy: "Always", terminationGracePeriodSeconds: 30, dnsPolicy: "ClusterFirst", schedulerName: "default-scheduler", securityContext: {} } : {}),
        },
      },
      ...(stored ? { revisionHistoryLimit: 10, progressDeadlineSeconds: 600 } : {}),
    },
    ...(stored
      ? {
          status: {
            observedGeneration: 2,
            replicas: 3,
            updatedReplicas: 3,
            readyReplicas: 3,
            availableReplicas: 3,
            conditions: [
              { type: "Available", status: "True", lastUpdateTime: "2026-12-01T10:00:05Z", lastTransitionTime: "2026-12-01T10:00:05Z", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." },
              { type: "Progressing", status: "True", lastUpdateTime: "2026-12-01T10:00:05Z", lastTransitionTime: "2026-12-01T10:00:00Z", reason: "NewReplicaSetAvailable", message: 'ReplicaSet "web-5d8f7c9b4" has successfully progressed.' },
            ],
          },
        }
      : {}),
  };
}

// ---- the measuring process --------------------------------------------------------------------

async function measure(variant: Variant): Promise<Result> {
  const { decodeRequestBody } = await import("../../src/apiserver/decode/request.js");
  const { decodeObjectBody } = await import("../../src/apiserver/server/body.js");
  const { requireObjectMetaTypes } = await import("../../src/apiserver/rest/metatypes.js");
  const { checkUnknownFields } = await import("./shallowcheck.js");
  const target = { group: "apps", version: "v1", kind: "Deployment" };
  const decode =
    variant === "schema"
      ? (buf: Buffer) => decodeRequestBody(buf, "application/json", target, "Warn", undefined).object
      : (buf: Buffer) => {
          const body = decodeObjectBody(buf, "application/json", undefined);
          requireObjectMetaTypes(body.object, target.kind, target.version);
          checkUnknownFields(body.object, target.group, target.kind, "Warn");
          return body.object;
        };
  const out = {} as Result;
  for (const body of ["create", "update"] as const) {
    const buf = Buffer.from(JSON.stringify(deployment(body === "update")));
    let sink = 0;
    const warm = performance.now() + 300;
    while (performance.now() < warm) sink += Object.keys(decode(buf)).length;
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < DURATION_MS) {
      for (let i = 0; i < 64; i++) sink += Object.keys(decode(buf)).length;
      n += 64;
    }
    const elapsed = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    if (sink === 0) throw new Error("nothing decoded");
    out[body] = { perSecond: (n / elapsed) * 1000, cpuPer1000: (cpu.user + cpu.system) / 1e6 / (n / 1000) };
  }
  return out;
}

if (ROLE) {
  measure(ROLE).then(
    (r) => process.send!(r),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

// ---- the coordinator ---------------------------------------------------------------------------

function inChild(variant: Variant): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, DECODE_BENCH_ROLE: variant }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
    let result: Result | undefined;
    child.once("message", (m: Result) => (result = m));
    child.once("exit", (code) => (result ? resolve(result) : reject(new Error(`decode bench (${variant}) exited with ${code}`))));
  });
}

const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;

const bench: Benchmark = {
  name: "apiserver/decode",
  async run(): Promise<Figure[]> {
    const samples: Record<Variant, Result[]> = { schema: [], shallow: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Variant[] = round % 2 ? ["shallow", "schema"] : ["schema", "shallow"];
      for (const v of order) samples[v].push(await inChild(v));
      progress(`round ${round + 1}/${ROUNDS} done`);
    }
    const figures: Figure[] = [];
    for (const body of ["create", "update"] as const) {
      const samplesOf = (v: Variant): HarnessSample[] => samples[v].map((r) => ({ value: r[body].perSecond, cpu: { decoder: r[body].cpuPer1000 } }));
      const rate = (v: Variant) => samples[v].map((r) => r[body].perSecond);
      const cpu = (v: Variant) => samples[v].map((r) => r[body].cpuPer1000);
      const what = body === "create" ? "CREATE body of a Deployment" : "UPDATE body of a stored Deployment";
      progress(
        `${body}: schema ${median(rate("schema")).toFixed(0)}/s (${range(rate("schema"))}), ${median(cpu("schema")).toFixed(3)} CPU-s/1000; ` +
          `shallow ${median(rate("shallow")).toFixed(0)}/s (${range(rate("shallow"))}), ${median(cpu("shallow")).toFixed(3)} CPU-s/1000`,
      );
      figures.push(
        figure({
          name: `${what} decoded like the Go struct`,
          unit: "bodies/s",
          higherIsBetter: true,
          ours: samplesOf("schema"),
          peer: samplesOf("shallow"),
          peerName: "the shallow check it replaced",
          cpuOf: { ours: "decoder", peer: "decoder" },
          note: "cpu: CPU-seconds per 1,000 bodies of the measuring process",
        }),
      );
    }
    return figures;
  },
};

export default bench;
