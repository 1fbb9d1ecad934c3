import { deepCopy } from "../../src/apimachinery/deepcopy.js";
import type { Benchmark } from "../harness.js";
import { opsPerSecond } from "../harness.js";

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

const bench: Benchmark = {
  name: "apimachinery/deepcopy",
  async run() {
    const obj = sampleDeployment(1);
    const size = JSON.stringify(obj).length;
    let sink: unknown;
    const ours = opsPerSecond(() => {
      sink = deepCopy(obj);
    });
    const clone = opsPerSecond(() => {
      sink = structuredClone(obj);
    });
    const json = opsPerSecond(() => {
      sink = JSON.parse(JSON.stringify(obj));
    });
    void sink;
    return [
      { name: `deepCopy of a ${size}-byte Deployment`, value: ours, unit: "ops/s", peer: { name: "structuredClone", value: clone }, higherIsBetter: true },
      { name: `deepCopy of a ${size}-byte Deployment`, value: ours, unit: "ops/s", peer: { name: "JSON round trip", value: json }, higherIsBetter: true },
    ];
  },
};
export default bench;
