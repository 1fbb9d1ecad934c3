/**
 * Table printing, table-driven after upstream's printers_test.go and duration_test.go. Upstream
 * builds timestamps from time.Now(); here they are offsets from an injected `now`.
 */
import { describe, expect, test } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { humanDuration, printerFor, toTable } from "./index.js";
import { printService } from "./network.js";
import { podFailedConditions, podSucceededConditions } from "./pods.js";

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

const print = (group: string, kind: string, obj: object, wide = true) =>
  printerFor({ group, kind }).print(obj as KubeObject, { now: NOW, wide });
/** The cells kubectl shows without -o wide (upstream's non-wide expectations). */
const narrow = (group: string, kind: string, obj: object) => {
  const p = printerFor({ group, kind });
  const count = p.columns.filter((c) => c.priority === 0).length;
  return p.print(obj as KubeObject, { now: NOW, wide: true }).cells.slice(0, count);
};

describe("humanDuration (duration_test.go)", () => {
  test.each([
    [S, "1s"],
    [70 * S, "70s"],
    [190 * S, "3m10s"],
    [70 * M, "70m"],
    [47 * H, "47h"],
    [49 * H, "2d1h"],
    [(8 * 24 + 2) * H, "8d"],
    [367 * 24 * H, "367d"],
    [(365 * 2 * 24 + 25) * H, "2y1d"],
    [(365 * 8 * 24 + 2) * H, "8y"],
    // Boundaries.
    [-2 * S, "<invalid>"],
    [-2 * S + 1, "0s"],
    [0, "0s"],
    [S - 1, "0s"],
    [2 * M - 1, "119s"],
    [2 * M, "2m"],
    [2 * M + S, "2m1s"],
    [10 * M - 1, "9m59s"],
    [10 * M, "10m"],
    [10 * M + S, "10m"],
    [3 * H - 1, "179m"],
    [3 * H, "3h"],
    [3 * H + M, "3h1m"],
    [8 * H - 1, "7h59m"],
    [8 * H, "8h"],
    [8 * H + 59 * M, "8h"],
    [2 * D - 1, "47h"],
    [2 * D, "2d"],
    [2 * D + H, "2d1h"],
    [8 * D - 1, "7d23h"],
    [8 * D, "8d"],
    [8 * D + 23 * H, "8d"],
    [2 * 365 * D - 1, "729d"],
    [2 * 365 * D, "2y"],
    [2 * 365 * D + 23 * H, "2y"],
    [2 * 365 * D + D - 1, "2y"],
    [2 * 365 * D + D, "2y1d"],
    [3 * 365 * D, "3y"],
    [8 * 365 * D - 1, "7y364d"],
    [8 * 365 * D, "8y"],
    [8 * 365 * D + 364 * D, "8y"],
    [9 * 365 * D, "9y"],
  ])("%d ms → %s", (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

const running = { running: {} };
const terminatedAgo = (ms: number) => ({ terminated: { exitCode: 0, finishedAt: ago(ms) } });
const containers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}` }));
const initContainers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `i${i}` }));

describe("pods (TestPrintPod)", () => {
  const cases: Array<[string, object, unknown[], object[]?]> = [
    [
      "name, containers, restarts, ready",
      { metadata: { name: "test1" }, spec: { containers: containers(2) }, status: { phase: "podPhase", containerStatuses: [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }] } },
      ["test1", "1/2", "podPhase", "6", "<unknown>"],
    ],
    [
      "container waiting reason overrides phase",
      { metadata: { name: "test2" }, spec: { containers: containers(2) }, status: { phase: "podPhase", containerStatuses: [{ ready: true, restartCount: 3, state: running }, { state: { waiting: { reason: "ContainerWaitingReason" } }, restartCount: 3 }] } },
      ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"],
    ],
    [
      "first container overrides the rest",
      {
        metadata: { name: "test3" },
        spec: { containers: containers(2) },
        status: { phase: "podPhase", containerStatuses: [{ state: { waiting: { reason: "ContainerWaitingReason" } }, restartCount: 3 }, { state: { terminated: { reason: "ContainerTerminatedReason" } }, restartCount: 3 }] },
      },
      ["test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"],
    ],
    [
      "ready is not enough for running",
      { metadata: { name: "test4" }, spec: { containers: containers(2) }, status: { phase: "podPhase", containerStatuses: [{ ready: true, restartCount: 3, state: running }, { ready: true, restartCount: 3 }] } },
      ["test4", "1/2", "podPhase", "6", "<unknown>"],
    ],
    [
      "status.reason overrides phase",
      { metadata: { name: "test5" }, spec: { containers: containers(2) }, status: { reason: "podReason", phase: "podPhase", containerStatuses: [{ ready: true, restartCount: 3, state: running }, { ready: true, restartCount: 3 }] } },
      ["test5", "1/2", "podReason", "6", "<unknown>"],
    ],
    [
      "completed beside running, not ready",
      {
        metadata: { name: "test6" },
        spec: { containers: containers(2) },
        status: { phase: "Running", containerStatuses: [{ ready: true, restartCount: 3, state: { terminated: { reason: "Completed", exitCode: 0 } } }, { ready: true, restartCount: 3, state: running }] },
      },
      ["test6", "1/2", "NotReady", "6", "<unknown>"],
    ],
    [
      "completed beside running, ready",
      {
        metadata: { name: "test6" },
        spec: { containers: containers(2) },
        status: {
          phase: "Running",
          containerStatuses: [{ ready: true, restartCount: 3, state: { terminated: { reason: "Completed", exitCode: 0 } } }, { ready: true, restartCount: 3, state: running }],
          conditions: [{ type: "Ready", status: "True" }],
        },
      },
      ["test6", "1/2", "Running", "6", "<unknown>"],
    ],
    [
      "init container restarting",
      {
        metadata: { name: "test7" },
        spec: { initContainers: initContainers(1), containers: containers(1) },
        status: { phase: "podPhase", initContainerStatuses: [{ ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * S) }], containerStatuses: [{ ready: false, restartCount: 0, state: { waiting: {} } }] },
      },
      ["test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"],
    ],
    [
      "two init containers, the first restarting",
      {
        metadata: { name: "test8" },
        spec: { initContainers: initContainers(2), containers: containers(1) },
        status: {
          phase: "podPhase",
          initContainerStatuses: [{ ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * S) }, { ready: false, state: { waiting: {} } }],
          containerStatuses: [{ ready: false, state: { waiting: {} } }],
        },
      },
      ["test8", "0/1", "Init:0/2", "3 (10s ago)", "<unknown>"],
    ],
    [
      "first init container done, second restarting",
      {
        metadata: { name: "test9" },
        spec: { initContainers: initContainers(2), containers: containers(1) },
        status: {
          phase: "podPhase",
          initContainerStatuses: [{ ready: false, state: { terminated: {} } }, { ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * S) }],
          containerStatuses: [{ ready: false, state: { waiting: {} } }],
        },
      },
      ["test9", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"],
    ],
    [
      "first init container done with restarts, second restarting",
      {
        metadata: { name: "test10" },
        spec: { initContainers: initContainers(2), containers: containers(1) },
        status: {
          phase: "podPhase",
          initContainerStatuses: [
            { ready: false, restartCount: 2, state: { terminated: {} }, lastState: terminatedAgo(2 * M) },
            { ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * S) },
          ],
          containerStatuses: [{ ready: false, state: { waiting: {} } }],
        },
      },
      ["test10", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"],
    ],
    [
      "init done with restarts, container restarting",
      {
        metadata: { name: "test11" },
        spec: { initContainers: initContainers(1), containers: containers(1) },
        status: {
          phase: "Running",
          initContainerStatuses: [{ ready: false, restartCount: 2, state: { terminated: {} }, lastState: terminatedAgo(2 * M) }],
          containerStatuses: [{ ready: false, restartCount: 4, state: running, lastState: terminatedAgo(20 * S) }],
        },
      },
      ["test11", "0/1", "Running", "4 (20s ago)", "<unknown>"],
    ],
    [
      "restarted 5d ago",
      { metadata: { name: "test12" }, spec: { containers: containers(1) }, status: { phase: "Running", containerStatuses: [{ ready: true, restartCount: 3, state: running, lastState: terminatedAgo(5 * D) }] } },
      ["test12", "1/1", "Running", "3 (5d ago)", "<unknown>"],
    ],
    [
      "one never restarted, one 10d ago",
      {
        metadata: { name: "test13" },
        spec: { containers: containers(2) },
        status: { phase: "Running", containerStatuses: [{ ready: true, restartCount: 0, state: running }, { ready: true, restartCount: 3, state: running, lastState: terminatedAgo(10 * D) }] },
      },
      ["test13", "2/2", "Running", "3 (10d ago)", "<unknown>"],
    ],
    [
      "the latest restart wins",
      {
        metadata: { name: "test14" },
        spec: { containers: containers(2) },
        status: {
          phase: "Running",
          containerStatuses: [
            { ready: true, restartCount: 6, state: running, lastState: terminatedAgo(5 * D) },
            { ready: true, restartCount: 3, state: running, lastState: terminatedAgo(20 * D) },
          ],
        },
      },
      ["test14", "2/2", "Running", "9 (5d ago)", "<unknown>"],
    ],
    [
      "scheduling gated",
      { metadata: { name: "test15" }, spec: { containers: containers(2) }, status: { phase: "podPhase", conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }] } },
      ["test15", "0/2", "SchedulingGated", "0", "<unknown>"],
    ],
    [
      "succeeded",
      { metadata: { name: "test16" }, spec: { containers: containers(1) }, status: { phase: "Succeeded", containerStatuses: [{ ready: false, restartCount: 0, state: { terminated: { reason: "Completed", exitCode: 0 } } }] } },
      ["test16", "0/1", "Completed", "0", "<unknown>"],
      podSucceededConditions,
    ],
    [
      "failed",
      { metadata: { name: "test17" }, spec: { containers: containers(1) }, status: { phase: "Failed", containerStatuses: [{ ready: false, restartCount: 0, state: { terminated: { reason: "Error", exitCode: 1 } } }] } },
      ["test17", "0/1", "Error", "0", "<unknown>"],
      podFailedConditions,
    ],
    [
      "succeeded and deleted stays Completed",
      {
        metadata: { name: "test18", deletionTimestamp: ago(10 * S) },
        spec: { containers: containers(1) },
        status: { phase: "Succeeded", containerStatuses: [{ ready: false, restartCount: 0, state: { terminated: { reason: "Completed", exitCode: 0 } } }] },
      },
      ["test18", "0/1", "Completed", "0", "<unknown>"],
      podSucceededConditions,
    ],
    [
      "running and deleted is Terminating",
      { metadata: { name: "test19", deletionTimestamp: ago(10 * S) }, spec: { containers: containers(1) }, status: { phase: "Running", containerStatuses: [{ ready: false, restartCount: 0, state: running }] } },
      ["test19", "0/1", "Terminating", "0", "<unknown>"],
    ],
    [
      "pending and deleted is Terminating",
      { metadata: { name: "test20", deletionTimestamp: ago(10 * S) }, spec: { containers: containers(1) }, status: { phase: "Pending" } },
      ["test20", "0/1", "Terminating", "0", "<unknown>"],
    ],
    [
      "node lost",
      { metadata: { name: "lost", deletionTimestamp: ago(10 * S) }, spec: { containers: containers(1) }, status: { phase: "Running", reason: "NodeLost" } },
      ["lost", "0/1", "Unknown", "0", "<unknown>"],
    ],
    [
      "ContainerCreating and CrashLoopBackOff come from waiting reasons",
      {
        metadata: { name: "crash", creationTimestamp: ago(3 * M + 10 * S) },
        spec: { containers: containers(2) },
        status: {
          phase: "Running",
          containerStatuses: [
            { ready: false, restartCount: 5, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * M) } } },
            { ready: false, state: { waiting: { reason: "ContainerCreating" } } },
          ],
        },
      },
      ["crash", "0/2", "CrashLoopBackOff", "5 (5m ago)", "3m10s"],
    ],
    [
      "init failure without reason reports the exit code",
      { metadata: { name: "initfail" }, spec: { initContainers: initContainers(1), containers: containers(1) }, status: { phase: "Pending", initContainerStatuses: [{ state: { terminated: { exitCode: 3 } } }] } },
      ["initfail", "0/1", "Init:ExitCode:3", "0", "<unknown>"],
    ],
  ];
  test.each(cases)("%s", (_name, pod, cells, conditions) => {
    const row = print("", "Pod", pod);
    expect(row.cells.slice(0, 5)).toEqual(cells);
    expect(row.conditions).toEqual(conditions);
  });

  const always = "Always";
  test.each<[string, object, unknown[]]>([
    [
      "restartable init containers not started",
      {
        metadata: { name: "test1" },
        spec: { initContainers: [{ name: "r1", restartPolicy: always }, { name: "r2", restartPolicy: always }], containers: containers(1) },
        status: {
          phase: "Pending",
          initContainerStatuses: [
            { name: "r1", ready: false, restartCount: 3, state: running, started: false, lastState: terminatedAgo(10 * S) },
            { name: "r2", ready: false, state: { waiting: {} }, started: false },
          ],
          containerStatuses: [{ ready: false, restartCount: 0, state: { waiting: {} } }],
          conditions: [{ type: "Initialized", status: "False" }],
        },
      },
      ["test1", "0/3", "Init:0/2", "3 (10s ago)", "<unknown>"],
    ],
    [
      "first restartable init container started",
      {
        metadata: { name: "test1" },
        spec: { initContainers: [{ name: "r1", restartPolicy: always }, { name: "r2", restartPolicy: always }], containers: containers(1) },
        status: {
          phase: "Pending",
          initContainerStatuses: [
            { name: "r1", ready: false, restartCount: 3, state: running, started: true, lastState: terminatedAgo(10 * S) },
            { name: "r2", ready: false, state: running, started: false },
          ],
          containerStatuses: [{ ready: false, restartCount: 0, state: { waiting: {} } }],
          conditions: [{ type: "Initialized", status: "False" }],
        },
      },
      ["test1", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"],
    ],
    [
      "sidecars started, container running",
      {
        metadata: { name: "test2" },
        spec: { initContainers: [{ name: "r1", restartPolicy: always }, { name: "r2", restartPolicy: always }], containers: containers(1) },
        status: {
          phase: "Running",
          initContainerStatuses: [
            { name: "r1", ready: false, restartCount: 3, state: running, started: true, lastState: terminatedAgo(10 * S) },
            { name: "r2", ready: false, state: running, started: true },
          ],
          containerStatuses: [{ ready: true, restartCount: 4, state: running, lastState: terminatedAgo(20 * S) }],
          conditions: [{ type: "Initialized", status: "True" }],
        },
      },
      ["test2", "1/3", "Running", "7 (10s ago)", "<unknown>"],
    ],
    [
      "statuses of unknown containers",
      {
        metadata: { name: "test4" },
        spec: { initContainers: [{ name: "init1" }, { name: "sidecar1", restartPolicy: always }], containers: [{ name: "container1" }] },
        status: { phase: "Running", initContainerStatuses: [{ name: "initinvalid" }, { name: "init1" }, { name: "sidecar1" }], containerStatuses: [{ name: "containerinvalid" }, { name: "container1" }] },
      },
      ["test4", "0/2", "Init:0/2", "0", "<unknown>"],
    ],
  ])("restartable init containers: %s", (_name, pod, cells) => {
    expect(print("", "Pod", pod).cells.slice(0, 5)).toEqual(cells);
  });

  test.each<[string, object, unknown[]]>([
    [
      "node, IPs, nominated node, readiness gates",
      {
        metadata: { name: "test1" },
        spec: { containers: containers(2), nodeName: "test1", readinessGates: [{ conditionType: "condition1" }, { conditionType: "condition2" }, { conditionType: "condition3" }] },
        status: {
          conditions: [{ type: "condition1", status: "False" }, { type: "condition2", status: "True" }],
          phase: "podPhase",
          podIPs: [{ ip: "1.1.1.1" }, { ip: "2001:db8::" }],
          containerStatuses: [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }],
          nominatedNodeName: "node1",
        },
      },
      ["test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"],
    ],
    [
      "nothing known",
      {
        metadata: { name: "test2" },
        spec: { containers: containers(2), nodeName: "" },
        status: { phase: "podPhase", containerStatuses: [{ ready: true, restartCount: 3, state: running }, { state: { waiting: { reason: "ContainerWaitingReason" } }, restartCount: 3 }] },
      },
      ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>", "<none>", "<none>", "<none>", "<none>"],
    ],
  ])("wide: %s", (_name, pod, cells) => {
    expect(print("", "Pod", pod).cells).toEqual(cells);
  });
});

describe("deployments and replicasets", () => {
  const deployment = {
    metadata: { name: "test1", creationTimestamp: new Date(NOW + 1900).toISOString() },
    spec: {
      replicas: 5,
      template: { spec: { containers: [{ name: "fake-container1", image: "fake-image1" }, { name: "fake-container2", image: "fake-image2" }] } },
      selector: { matchLabels: { foo: "bar" } },
    },
    status: { replicas: 10, updatedReplicas: 2, availableReplicas: 1, unavailableReplicas: 4 },
  };
  test("TestPrintDeployment", () => {
    expect(narrow("apps", "Deployment", deployment)).toEqual(["test1", "0/5", 2, 1, "0s"]);
    expect(print("apps", "Deployment", deployment).cells).toEqual(["test1", "0/5", 2, 1, "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", "foo=bar"]);
  });
  test("TestPrintReplicaSet", () => {
    const rs = {
      metadata: { name: "test1", creationTimestamp: new Date(NOW + 1900).toISOString() },
      spec: {
        replicas: 5,
        template: { spec: { containers: [{ name: "fake-container1", image: "fake-image1" }, { name: "fake-container2", image: "fake-image2" }] } },
        selector: { matchLabels: { foo: "bar" }, matchExpressions: [{ key: "tier", operator: "In", values: ["web", "api"] }] },
      },
      status: { replicas: 5, readyReplicas: 2 },
    };
    expect(print("apps", "ReplicaSet", rs).cells).toEqual(["test1", 5, 5, 2, "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", "foo=bar,tier in (api,web)"]);
  });
  test("columns", () => {
    const cols = printerFor({ group: "apps", kind: "Deployment" }).columns;
    expect(cols.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ["Name", "string", "name", 0],
      ["Ready", "string", "", 0],
      ["Up-to-date", "string", "", 0],
      ["Available", "string", "", 0],
      ["Age", "string", "", 0],
      ["Containers", "string", "", 1],
      ["Images", "string", "", 1],
      ["Selector", "string", "", 1],
    ]);
    expect(cols[0]!.description).toMatch(/^Name must be unique within a namespace/);
    expect(cols[4]!.description).toMatch(/^CreationTimestamp is a timestamp/);
  });
});

describe("services (TestPrintService)", () => {
  test.each<[string, object, unknown[]]>([
    ["ClusterIP", { metadata: { name: "service1" }, spec: { clusterIPs: ["10.9.8.7"], type: "ClusterIP", ports: [{ protocol: "TCP", port: 2233 }] } }, ["service1", "ClusterIP", "10.9.8.7", "<none>", "2233/TCP", "<unknown>"]],
    ["NodePort", { metadata: { name: "service2" }, spec: { clusterIPs: ["10.9.8.7"], type: "NodePort", ports: [{ protocol: "TCP", port: 8888, nodePort: 9999 }] } }, ["service2", "NodePort", "10.9.8.7", "<none>", "8888:9999/TCP", "<unknown>"]],
    ["LoadBalancer pending", { metadata: { name: "service3" }, spec: { clusterIPs: ["10.9.8.7"], type: "LoadBalancer", ports: [{ protocol: "TCP", port: 8888 }] } }, ["service3", "LoadBalancer", "10.9.8.7", "<pending>", "8888/TCP", "<unknown>"]],
    [
      "LoadBalancer with external IPs",
      { metadata: { name: "service4" }, spec: { clusterIPs: ["10.9.8.7"], type: "LoadBalancer", ports: [{ protocol: "TCP", port: 8888 }], externalIPs: ["80.11.12.10"] }, status: { loadBalancer: { ingress: [{ ip: "3.4.5.6" }] } } },
      ["service4", "LoadBalancer", "10.9.8.7", "3.4.5.6,80.11.12.10", "8888/TCP", "<unknown>"],
    ],
    ["ExternalName", { metadata: { name: "service5" }, spec: { type: "ExternalName", externalName: "my.database.example.com" } }, ["service5", "ExternalName", "<none>", "my.database.example.com", "<none>", "<unknown>"]],
    ["headless", { metadata: { name: "service6" }, spec: { type: "ClusterIP", clusterIP: "None", clusterIPs: ["None"], ports: [{ protocol: "UDP", port: 53 }] } }, ["service6", "ClusterIP", "None", "<none>", "53/UDP", "<unknown>"]],
  ])("%s", (_name, svc, cells) => {
    expect(narrow("", "Service", svc)).toEqual(cells);
  });

  const lb = {
    metadata: { name: "service4" },
    spec: { clusterIPs: ["1.5.6.7"], type: "LoadBalancer", ports: [{ port: 80, protocol: "TCP" }, { port: 8090, protocol: "UDP" }, { port: 8000, protocol: "TCP" }], selector: { foo: "bar" } },
    status: { loadBalancer: { ingress: [{ ip: "2.3.4.5" }, { ip: "3.4.5.6" }, { ip: "5.6.7.8", hostname: "host5678" }] } },
  };
  test("narrow output clips load-balancer addresses; the server's wide output does not", () => {
    expect(printService(lb as KubeObject, { now: NOW, wide: false }).cells.slice(0, 6)).toEqual(["service4", "LoadBalancer", "1.5.6.7", "2.3.4.5,3.4.5...", "80/TCP,8090/UDP,8000/TCP", "<unknown>"]);
    expect(print("", "Service", lb).cells).toEqual(["service4", "LoadBalancer", "1.5.6.7", "2.3.4.5,3.4.5.6,5.6.7.8", "80/TCP,8090/UDP,8000/TCP", "<unknown>", "foo=bar"]);
  });
});

describe("endpoints", () => {
  test.each<[string, object, string]>([
    ["no subsets", {}, "<none>"],
    ["headless", { subsets: [{ addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }] }] }, "10.0.0.1,10.0.0.2"],
    ["with ports", { subsets: [{ addresses: [{ ip: "10.0.0.1" }, { ip: "fd00::1" }], ports: [{ port: 80 }] }] }, "10.0.0.1:80,[fd00::1]:80"],
    [
      "more than three",
      { subsets: [{ addresses: [{ ip: "1.1.1.1" }, { ip: "2.2.2.2" }, { ip: "3.3.3.3" }, { ip: "4.4.4.4" }], ports: [{ port: 80 }, { port: 443 }] }] },
      "1.1.1.1:80,2.2.2.2:80,3.3.3.3:80 + 5 more...",
    ],
  ])("%s", (_name, subsets, want) => {
    expect(print("", "Endpoints", { metadata: { name: "ep", creationTimestamp: ago(5 * S) }, ...subsets }).cells).toEqual(["ep", want, "5s"]);
  });
});

describe("events (TestPrintEvent)", () => {
  const base = {
    source: { component: "kubelet", host: "Node1" },
    involvedObject: { kind: "Deployment", name: "Deployment Name", fieldPath: "spec.containers{foo}" },
    reason: "Event Reason",
    message: "Message Data",
    type: "Normal",
  };
  test.each<[string, object, unknown[]]>([
    [
      "basic",
      { ...base, metadata: { name: "event1" }, firstTimestamp: ago(3 * D), lastTimestamp: ago(2 * D), count: 6 },
      ["2d", "Normal", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", 6, "event1"],
    ],
    [
      "no first timestamp: event time, and count 1",
      { ...base, type: "Warning", metadata: { name: "event2" }, eventTime: ago(3 * D), lastTimestamp: ago(3 * D) },
      ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", 1, "event2"],
    ],
    [
      "no last timestamp",
      { ...base, metadata: { name: "event3" }, eventTime: ago(3 * D) },
      ["3d", "Normal", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", 1, "event3"],
    ],
    [
      "series",
      { ...base, metadata: { name: "event4" }, eventTime: ago(3 * D), series: { count: 2, lastObservedTime: ago(2 * D) } },
      ["2d", "Normal", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", 3, "event4"],
    ],
    [
      "no object name, no host",
      { metadata: { name: "event5" }, involvedObject: { kind: "Node" }, source: { component: "kubelet" }, reason: "R", message: "  padded  ", type: "Normal", lastTimestamp: ago(30 * S), firstTimestamp: ago(30 * S), count: 1 },
      ["30s", "Normal", "R", "node", "", "kubelet", "padded", "30s", 1, "event5"],
    ],
  ])("core/v1: %s", (_name, event, cells) => {
    expect(print("", "Event", event).cells).toEqual(cells);
  });

  test("events.k8s.io/v1 maps regarding, note and the deprecated fields", () => {
    const event = {
      metadata: { name: "e1" },
      regarding: { kind: "Pod", name: "p1", fieldPath: "spec.containers{app}" },
      note: "Pulled image",
      reason: "Pulled",
      type: "Normal",
      eventTime: ago(3 * M),
      reportingController: "kubelet",
      deprecatedSource: { component: "kubelet", host: "node-1" },
      series: { count: 4, lastObservedTime: ago(20 * S) },
    };
    expect(print("events.k8s.io", "Event", event).cells).toEqual(["20s", "Normal", "Pulled", "pod/p1", "spec.containers{app}", "kubelet, node-1", "Pulled image", "3m", 5, "e1"]);
    const cols = printerFor({ group: "events.k8s.io", kind: "Event" }).columns;
    expect(cols.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(["Last Seen", "Type", "Reason", "Object", "Message"]);
    expect(cols.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(["Subobject", "Source", "First Seen", "Count", "Name"]);
  });
});

describe("other kinds", () => {
  const meta = (name: string) => ({ name, creationTimestamp: ago(2 * H + 5 * M) });
  test.each<[string, string, object, unknown[], string[]]>([
    ["", "Namespace", { metadata: meta("default"), status: { phase: "Active" } }, ["default", "Active", "125m"], ["Name", "Status", "Age"]],
    ["", "ConfigMap", { metadata: meta("cm"), data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }, ["cm", 3, "125m"], ["Name", "Data", "Age"]],
    ["", "Secret", { metadata: meta("s"), type: "Opaque", data: { a: "MQ==" } }, ["s", "Opaque", 1, "125m"], ["Name", "Type", "Data", "Age"]],
    ["", "ServiceAccount", { metadata: meta("default") }, ["default", 0, "125m"], ["Name", "Secrets", "Age"]],
    ["coordination.k8s.io", "Lease", { metadata: meta("l"), spec: { holderIdentity: "me" } }, ["l", "me", "125m"], ["Name", "Holder", "Age"]],
    [
      "rbac.authorization.k8s.io",
      "RoleBinding",
      { metadata: meta("rb"), roleRef: { kind: "Role", name: "reader" }, subjects: [{ kind: "User", name: "alice" }, { kind: "Group", name: "devs" }, { kind: "ServiceAccount", namespace: "ns", name: "sa" }, { kind: "User", name: "bob" }] },
      ["rb", "Role/reader", "125m", "alice, bob", "devs", "ns/sa"],
      ["Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"],
    ],
    [
      "",
      "Node",
      {
        metadata: { ...meta("n1"), labels: { "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "worker", "node-role.kubernetes.io/": "" } },
        spec: { unschedulable: true },
        status: { conditions: [{ type: "Ready", status: "True" }], addresses: [{ type: "InternalIP", address: "10.0.0.5" }], nodeInfo: { kubeletVersion: "v1.35.0", osImage: "Linux" } },
      },
      ["n1", "Ready,SchedulingDisabled", "control-plane,worker", "125m", "v1.35.0", "10.0.0.5", "<none>", "Linux", "<unknown>", "<unknown>"],
      ["Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"],
    ],
    ["", "Node", { metadata: meta("n2"), status: {} }, ["n2", "Unknown", "<none>", "125m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"], ["Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"]],
    ["rbac.authorization.k8s.io", "ClusterRole", { metadata: meta("admin") }, ["admin", ago(2 * H + 5 * M)], ["Name", "Created At"]],
    ["apiextensions.k8s.io", "CustomResourceDefinition", { metadata: meta("foos.example.com") }, ["foos.example.com", ago(2 * H + 5 * M)], ["Name", "Created At"]],
    ["example.com", "Foo", { metadata: { name: "f" } }, ["f", null], ["Name", "Created At"]],
  ])("%s %s", (group, kind, obj, cells, columns) => {
    expect(print(group, kind, obj).cells).toEqual(cells);
    expect(printerFor({ group, kind }).columns.map((c) => c.name)).toEqual(columns);
  });

  test("the default table's Created At column is a date", () => {
    expect(printerFor({ group: "x", kind: "Y" }).columns[1]).toMatchObject({ name: "Created At", type: "date", priority: 0 });
  });
});

describe("toTable", () => {
  const pods = [
    { apiVersion: "v1", kind: "Pod", metadata: { name: "a", namespace: "ns", labels: { app: "x" }, creationTimestamp: ago(5 * S) }, spec: { containers: containers(1) }, status: { phase: "Pending" } },
  ];
  test("Table envelope, column definitions and PartialObjectMetadata rows by default", () => {
    const t = toTable({ group: "", kind: "Pod" }, pods, { now: NOW });
    expect(t.kind).toBe("Table");
    expect(t.apiVersion).toBe("meta.k8s.io/v1");
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"]);
    expect(t.columnDefinitions.map((c) => c.priority)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(t.columnDefinitions[0]).toMatchObject({ type: "string", format: "name" });
    expect(t.rows).toEqual([
      {
        cells: ["a", "0/1", "Pending", "0", "5s", "<none>", "<none>", "<none>", "<none>"],
        object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: pods[0]!.metadata },
      },
    ]);
  });
  test("includeObject Object and None", () => {
    expect(toTable({ group: "", kind: "Pod" }, pods, { now: NOW, includeObject: "Object" }).rows[0]!.object).toBe(pods[0]);
    expect("object" in toTable({ group: "", kind: "Pod" }, pods, { now: NOW, includeObject: "None" }).rows[0]!).toBe(false);
  });
  test("row conditions are copies", () => {
    const done = { metadata: { name: "d" }, spec: { containers: containers(1) }, status: { phase: "Succeeded" } };
    const t = toTable({ group: "", kind: "Pod" }, [done], { now: NOW });
    expect(t.rows[0]!.conditions).toEqual(podSucceededConditions);
    expect(t.rows[0]!.conditions![0]).not.toBe(podSucceededConditions[0]);
  });
});
