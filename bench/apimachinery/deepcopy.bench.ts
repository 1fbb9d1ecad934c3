/**
 * bench/apimachinery/deepcopy: deepCopy of a Deployment beside structuredClone and a JSON round
 * trip, each kernel in its own process (micro.ts).
 */
import { deepCopy } from "../../src/apimachinery/deepcopy.js";
import { roundsFromEnv, type Benchmark } from "../harness.js";
import { kernelRole, microFigures } from "../micro.js";

/** A Deployment-shaped object of about 3 KB, the typical object a controller copies. */
function sampleDeployment(i: number): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: `web-${i}`,
      namespace: "default",
      uid: "3b1f0a52-8d7b-4f5e-9f35-9a3c5c0e2a11",
      resourceVersion: String(1000 + i),
      generation: 3,
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: { app: "web", tier: "frontend", "app.kubernetes.io/managed-by": "kubeloop" },
      annotations: { "deployment.kubernetes.io/revision": "3", note: "x".repeat(200) },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web", tier: "frontend" } },
        spec: {
          containers: [
            {
              name: "web",
              image: "nginx:1.27",
              ports: [{ containerPort: 80, protocol: "TCP" }],
              env: Array.from({ length: 8 }, (_, k) => ({ name: `VAR_${k}`, value: `value-${k}` })),
              resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
              readinessProbe: { httpGet: { path: "/healthz", port: 80 }, periodSeconds: 5 },
            },
          ],
          restartPolicy: "Always",
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: {
      observedGeneration: 3,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      updatedReplicas: 3,
      conditions: [
        { type: "Available", status: "True", reason: "MinimumReplicasAvailable", lastUpdateTime: "2026-01-01T00:00:00Z" },
        { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", lastUpdateTime: "2026-01-01T00:00:00Z" },
      ],
    },
  };
}

/** Each kernel copies the same Deployment, in a process of its own. */
const obj = sampleDeployment(1);
let sink: unknown;
export const roles = {
  kernel: kernelRole({
    deepCopy: () => () => {
      sink = deepCopy(obj);
    },
    structuredClone: () => () => {
      sink = structuredClone(obj);
    },
    "JSON round trip": () => () => {
      sink = JSON.parse(JSON.stringify(obj));
    },
  }),
};
export const keep = () => sink;

const bench: Benchmark = {
  name: "apimachinery/deepcopy",
  run() {
    const size = JSON.stringify(obj).length;
    const name = `deepCopy of a ${size}-byte Deployment`;
    return microFigures(import.meta.url, "apimachinery/deepcopy", roundsFromEnv(), [
      { name, unit: "ops/s", ours: "deepCopy", peer: "structuredClone", peerName: "structuredClone" },
      { name, unit: "ops/s", ours: "deepCopy", peer: "JSON round trip", peerName: "JSON round trip" },
    ]);
  },
};
export default bench;
