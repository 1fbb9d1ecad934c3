/** deployment/util's table tests (deployment_util_test.go, hash_test.go), restated. */
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { IntOrStringError } from "../../apimachinery/intstr.js";
import type { IntOrString } from "../../apimachinery/types.js";
import { newControllerRef } from "../../apimachinery/ownerrefs.js";
import { newUID, withRSStatus } from "./fixture.js";
import {
  calculateStatus,
  compactStatus,
  getTerminatingReplicaCountForReplicaSets,
  statusEqual,
  computeHash,
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  DEPLOYMENT_GVK,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  DESIRED_REPLICAS_ANNOTATION,
  equalIgnoreHash,
  filterActiveReplicaSets,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getActualReplicaCountForReplicaSets,
  getDeploymentCondition,
  getDeploymentsForReplicaSet,
  getReplicaCountForReplicaSets,
  getReplicaSetFraction,
  getReplicaSetProportion,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  isSaturated,
  lastRevision,
  MAX_REPLICAS_ANNOTATION,
  maxRevision,
  maxSurge,
  maxUnavailable,
  minAvailable,
  NEW_RS_AVAILABLE_REASON,
  newRSNewReplicas,
  removeDeploymentCondition,
  replicasAnnotationsNeedUpdate,
  resolveFenceposts,
  revision,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  safeEncodeString,
  setDeploymentAnnotationsTo,
  setDeploymentCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from "./index.js";

/** upstream's generateDeployment(image). */
function generateDeployment(image: string): Deployment {
  const podLabels = { name: image };
  return {
    metadata: { name: image, namespace: "default", uid: newUID(), annotations: {} },
    spec: {
      replicas: 1,
      selector: { matchLabels: podLabels },
      template: {
        metadata: { labels: { ...podLabels } },
        spec: {
          containers: [{ name: image, image, imagePullPolicy: "Always", terminationMessagePath: "/dev/termination-log" }],
          dnsPolicy: "ClusterFirst",
          terminationGracePeriodSeconds: 30,
          restartPolicy: "Always",
          securityContext: {},
        },
      },
    },
  };
}

/** upstream's generateRS(deployment): its template, owned by it, 0 replicas. */
function generateRS(d: Deployment, name = `replicaset-${newUID().slice(-6)}`): ReplicaSet {
  const template = deepCopy(d.spec!.template);
  return {
    metadata: {
      uid: newUID(),
      name,
      namespace: "default",
      labels: { ...(template.metadata?.labels ?? {}) },
      ownerReferences: [newControllerRef(d, DEPLOYMENT_GVK)],
    },
    spec: { replicas: 0, template, selector: { matchLabels: { ...(template.metadata?.labels ?? {}) } } },
  };
}

function at(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

describe("findNewReplicaSet (TestGetNewRS, TestFindNewReplicaSet)", () => {
  const deployment = generateDeployment("nginx");
  const now = Date.UTC(2026, 0, 1);
  const newRS = generateRS(deployment, "new");
  newRS.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "hash";
  (newRS.metadata as { creationTimestamp?: string }).creationTimestamp = at(now + 60_000);
  const newRSDup = generateRS(deployment, "dup");
  newRSDup.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "different-hash";
  (newRSDup.metadata as { creationTimestamp?: string }).creationTimestamp = at(now);
  const oldDeployment = generateDeployment("nginx");
  oldDeployment.spec!.template.spec!.containers[0].name = "nginx-old-1";
  const oldRS = generateRS(oldDeployment, "old");

  it.each([
    ["No new ReplicaSet", [generateRS(generateDeployment("foo")), generateRS(generateDeployment("bar"))], undefined],
    ["Get new ReplicaSet with the same template as Deployment spec but different pod-template-hash value", [newRS, oldRS], newRS],
    ["Get the oldest new ReplicaSet when there are more than one ReplicaSet with the same template", [newRS, oldRS, newRSDup], newRSDup],
    ["Get nil new ReplicaSet", [oldRS], undefined],
  ] as Array<[string, ReplicaSet[], ReplicaSet | undefined]>)("%s", (_name, list, expected) => {
    const copy = [...list];
    expect(findNewReplicaSet(deployment, list)).toBe(expected);
    expect(list).toEqual(copy); // the caller's order is untouched
  });
});

describe("findOldReplicaSets (TestGetOldRSs, TestFindOldReplicaSets)", () => {
  const deployment = generateDeployment("nginx");
  const now = Date.UTC(2026, 0, 1);
  const newRS = generateRS(deployment, "new");
  newRS.spec!.replicas = 1;
  newRS.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "hash";
  (newRS.metadata as { creationTimestamp?: string }).creationTimestamp = at(now + 60_000);
  const newRSDup = generateRS(deployment, "dup");
  newRSDup.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "different-hash";
  (newRSDup.metadata as { creationTimestamp?: string }).creationTimestamp = at(now);
  const oldDeployment = generateDeployment("nginx");
  oldDeployment.spec!.template.spec!.containers[0].name = "nginx-old-1";
  const oldRS = generateRS(oldDeployment, "old");
  (oldRS.metadata as { creationTimestamp?: string }).creationTimestamp = at(now - 60_000);

  it.each([
    ["Get old ReplicaSets", [newRS, oldRS], [oldRS], []],
    ["Get old ReplicaSets with no new ReplicaSet", [oldRS], [oldRS], []],
    ["Get old ReplicaSets with two new ReplicaSets, only the oldest new ReplicaSet is seen as new ReplicaSet", [oldRS, newRS, newRSDup], [oldRS, newRS], [newRS]],
    ["Get empty old ReplicaSets", [newRS], [], []],
  ] as Array<[string, ReplicaSet[], ReplicaSet[], ReplicaSet[]]>)("%s", (_name, list, expectedAll, expectedRequired) => {
    const [required, all] = findOldReplicaSets(deployment, list);
    expect(all).toEqual(expectedAll);
    expect(required).toEqual(expectedRequired);
  });
});

describe("equalIgnoreHash (TestEqualIgnoreHash)", () => {
  const tmpl = (name: string, nodeName: string, annotations: Record<string, string>, labels: Record<string, string>): PodTemplateSpec => ({
    metadata: { name, annotations, labels },
    spec: { nodeName, containers: [] },
  });
  const H = DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY;
  it.each([
    ["Same spec, same labels", tmpl("foo", "foo-node", {}, { [H]: "value-1", something: "else" }), tmpl("foo", "foo-node", {}, { [H]: "value-1", something: "else" }), true],
    ["Same spec, only pod-template-hash label value is different", tmpl("foo", "foo-node", {}, { [H]: "value-1", something: "else" }), tmpl("foo", "foo-node", {}, { [H]: "value-2", something: "else" }), true],
    ["Same spec, the former doesn't have pod-template-hash label", tmpl("foo", "foo-node", {}, { something: "else" }), tmpl("foo", "foo-node", {}, { [H]: "value-2", something: "else" }), true],
    ["Same spec, the label is different, and the pod-template-hash label value is the same", tmpl("foo", "foo-node", {}, { [H]: "value-1" }), tmpl("foo", "foo-node", {}, { [H]: "value-1", something: "else" }), false],
    ["Different spec, same labels", tmpl("foo", "foo-node", { former: "value" }, { [H]: "value-1", something: "else" }), tmpl("foo", "foo-node", { latter: "value" }, { [H]: "value-1", something: "else" }), false],
    ["Different spec, different pod-template-hash label value", tmpl("foo-1", "foo-node", {}, { [H]: "value-1", something: "else" }), tmpl("foo-2", "foo-node", {}, { [H]: "value-2", something: "else" }), false],
    ["Different spec, the former doesn't have pod-template-hash label", tmpl("foo-1", "foo-node-1", {}, { something: "else" }), tmpl("foo-2", "foo-node-2", {}, { [H]: "value-2", something: "else" }), false],
    ["Different spec, different labels", tmpl("foo", "foo-node-1", {}, { something: "else" }), tmpl("foo", "foo-node-2", {}, { nothing: "else" }), false],
  ])("%s", (_name, former, latter, expected) => {
    const f0 = deepCopy(former);
    const l0 = deepCopy(latter);
    expect(equalIgnoreHash(former, latter)).toBe(expected);
    expect(equalIgnoreHash(latter, former)).toBe(expected);
    // inputs untouched (labels keep their hash)
    expect(former).toEqual(f0);
    expect(latter).toEqual(l0);
  });

  it("treats absent, empty maps and empty lists alike (Semantic.DeepEqual)", () => {
    expect(equalIgnoreHash({ metadata: { labels: { a: "b" } }, spec: { containers: [] } }, { metadata: { labels: { a: "b" }, annotations: {} }, spec: { containers: [], volumes: [] } })).toBe(true);
    expect(equalIgnoreHash({ metadata: { labels: { a: "b" } } }, { metadata: { labels: { a: "b", [H]: "x" } } })).toBe(true);
  });
});

describe("replica counts (TestGetReplicaCountForReplicaSets)", () => {
  const rs1 = withRSStatus({ ...generateRS(generateDeployment("foo")), spec: { replicas: 1, selector: {} } }, { replicas: 2 });
  const rs2 = withRSStatus({ ...generateRS(generateDeployment("bar")), spec: { replicas: 2, selector: {} } }, { replicas: 3 });
  it.each([
    ["1:2 Replicas", [rs1], 1, 2],
    ["3:5 Replicas", [rs1, rs2], 3, 5],
  ] as Array<[string, ReplicaSet[], number, number]>)("%s", (_n, sets, count, actual) => {
    expect(getReplicaCountForReplicaSets(sets)).toBe(count);
    expect(getActualReplicaCountForReplicaSets(sets)).toBe(actual);
  });
  it("filterActiveReplicaSets keeps spec.replicas > 0 and skips holes", () => {
    const zero = { ...rs1, spec: { replicas: 0, selector: {} } };
    expect(filterActiveReplicaSets([rs1, zero, undefined, rs2])).toEqual([rs1, rs2]);
  });
});

describe("terminatingReplicas (GetTerminatingReplicaCountForReplicaSets, calculateStatus)", () => {
  const withTerminating = (t: number | undefined): ReplicaSet =>
    withRSStatus({ ...generateRS(generateDeployment("foo")), spec: { replicas: 1, selector: {} } }, { replicas: 1, ...(t === undefined ? {} : { terminatingReplicas: t }) } as NonNullable<ReplicaSet["status"]>);
  it.each([
    ["no ReplicaSets", [], undefined],
    ["no ReplicaSet reports it (the gate off)", [withTerminating(undefined), withTerminating(undefined)], undefined],
    ["zero is a value", [withTerminating(0)], 0],
    ["summed over the ReplicaSets that report it", [withTerminating(1), withTerminating(undefined), withTerminating(2)], 3],
  ] as Array<[string, ReplicaSet[], number | undefined]>)("%s", (_n, sets, expected) => {
    expect(getTerminatingReplicaCountForReplicaSets(sets)).toBe(expected);
    const d = generateDeployment("foo");
    const status = calculateStatus(sets, sets[0], d, Date.UTC(2026, 0, 1)) as DeploymentStatus & { terminatingReplicas?: number };
    expect(status.terminatingReplicas).toBe(expected);
    // Kept through compaction (a pointer: 0 is not omitted), and a difference is a status change.
    if (expected === undefined) expect(compactStatus(status)).not.toHaveProperty("terminatingReplicas");
    else expect(compactStatus(status)).toHaveProperty("terminatingReplicas", expected);
    if (expected !== undefined) expect(statusEqual(status, { ...status, terminatingReplicas: undefined } as DeploymentStatus)).toBe(false);
  });
});

describe("resolveFenceposts (TestResolveFenceposts)", () => {
  it.each([
    ["0%", "0%", 0, 0, 1],
    ["39%", "39%", 10, 4, 3],
    [1, 0, 5, 1, 0],
    [0, 0, 5, 0, 1],
    ["1%", "25%", 2, 1, 0],
    ["0%", "1%", 2, 0, 1],
    ["150%", "100%", 3, 5, 3],
  ] as Array<[IntOrString, IntOrString, number, number, number]>)("maxSurge=%s maxUnavailable=%s desired=%d → [%d, %d]", (surge, unavailable, desired, s, u) => {
    expect(resolveFenceposts(surge, unavailable, desired)).toEqual([s, u]);
  });
  it.each([
    ["oops", "39%", 10],
    ["55%", "urg", 10],
    ["90", "10%", 10], // a string that is not a percentage, even if numeric
    ["99999999999%", "0%", 100], // overflows int32
    ["99999999999999999999%", "0%", 1], // beyond int64
  ])("maxSurge=%s maxUnavailable=%s is an error", (surge, unavailable, desired) => {
    expect(() => resolveFenceposts(surge, unavailable, desired)).toThrow(IntOrStringError);
  });
  it("absent values count as 0", () => {
    expect(resolveFenceposts(undefined, undefined, 10)).toEqual([0, 1]);
  });
});

describe("newRSNewReplicas (TestNewRSNewReplicas)", () => {
  it.each([
    ["can not scale up - to newRSReplicas", "RollingUpdate", 1, 5, 1, 5],
    ["scale up - to depReplicas", "RollingUpdate", 6, 2, 10, 6],
    ["recreate - to depReplicas", "Recreate", 3, 1, 1, 3],
  ] as Array<[string, string, number, number, number, number]>)("%s", (_n, type, depReplicas, newRSReplicas, surge, expected) => {
    const d = generateDeployment("nginx");
    d.spec!.replicas = depReplicas;
    d.spec!.strategy = { type, rollingUpdate: { maxUnavailable: 1, maxSurge: surge } };
    const newRC = generateRS(d);
    newRC.spec!.replicas = newRSReplicas;
    const rs5 = generateRS(d);
    rs5.spec!.replicas = 5;
    expect(newRSNewReplicas(d, [rs5], newRC)).toBe(expected);
  });
  it("rejects an unknown strategy type", () => {
    const d = generateDeployment("nginx");
    d.spec!.strategy = { type: "Canary" };
    expect(() => newRSNewReplicas(d, [], generateRS(d))).toThrow("deployment type Canary isn't supported");
  });
});

describe("conditions (TestGetCondition, TestSetCondition, TestRemoveCondition)", () => {
  const condProgressing = (): DeploymentCondition => ({ type: "Progressing", status: "False", reason: "ForSomeReason" });
  const condProgressing2 = (): DeploymentCondition => ({ type: "Progressing", status: "True", reason: "BecauseItIs" });
  const condAvailable = (): DeploymentCondition => ({ type: "Available", status: "True", reason: "AwesomeController" });
  const status = (): DeploymentStatus => ({ conditions: [condProgressing(), condAvailable()] });

  it.each([
    ["condition exists", "Available", true],
    ["condition does not exist", "ReplicaFailure", false],
  ])("get: %s", (_n, type, exists) => {
    expect(getDeploymentCondition(status(), type) !== undefined).toBe(exists);
  });

  it.each([
    ["set for the first time", {}, condAvailable(), { conditions: [condAvailable()] }],
    ["simple set", { conditions: [condProgressing()] }, condAvailable(), status()],
    ["overwrite", { conditions: [condProgressing()] }, condProgressing2(), { conditions: [condProgressing2()] }],
  ] as Array<[string, DeploymentStatus, DeploymentCondition, DeploymentStatus]>)("set: %s", (_n, st, cond, expected) => {
    setDeploymentCondition(st, cond);
    expect(st).toEqual(expected);
  });

  it("set keeps lastTransitionTime when only the reason changes, and is a no-op for the same status and reason", () => {
    const st: DeploymentStatus = { conditions: [{ type: "Progressing", status: "True", reason: "A", lastTransitionTime: "2020-01-01T00:00:00Z", lastUpdateTime: "2020-01-01T00:00:00Z" }] };
    setDeploymentCondition(st, { type: "Progressing", status: "True", reason: "A", lastTransitionTime: "2030-01-01T00:00:00Z", lastUpdateTime: "2030-01-01T00:00:00Z" });
    expect(st.conditions![0].lastUpdateTime).toBe("2020-01-01T00:00:00Z");
    setDeploymentCondition(st, { type: "Progressing", status: "True", reason: "B", lastTransitionTime: "2030-01-01T00:00:00Z", lastUpdateTime: "2030-01-01T00:00:00Z" });
    expect(st.conditions![0]).toMatchObject({ reason: "B", lastTransitionTime: "2020-01-01T00:00:00Z", lastUpdateTime: "2030-01-01T00:00:00Z" });
  });

  it.each([
    ["remove from empty status", {}, "Progressing", {}],
    ["simple remove", { conditions: [condProgressing()] }, "Progressing", {}],
    ["doesn't remove anything", status(), "ReplicaFailure", status()],
  ] as Array<[string, DeploymentStatus, string, DeploymentStatus]>)("remove: %s", (_n, st, type, expected) => {
    removeDeploymentCondition(st, type);
    expect(st).toEqual(expected);
  });
});

describe("deploymentComplete (TestDeploymentComplete)", () => {
  const deployment = (desired: number, current: number, updated: number, available: number, mu: number, ms: number): Deployment => ({
    spec: {
      replicas: desired,
      selector: {},
      template: {},
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: mu, maxSurge: ms } },
    },
    status: { replicas: current, updatedReplicas: updated, availableReplicas: available },
  });
  it.each([
    ["not complete: min but not all pods become available", deployment(5, 5, 5, 4, 1, 0), false],
    ["not complete: min availability is not honored", deployment(5, 5, 5, 3, 1, 0), false],
    ["complete", deployment(5, 5, 5, 5, 0, 0), true],
    ["not complete: all pods are available but not updated", deployment(5, 5, 4, 5, 0, 0), false],
    ["not complete: still running old pods", deployment(1, 2, 1, 1, 0, 1), false],
    ["not complete: one replica deployment never comes up", deployment(1, 1, 1, 0, 1, 1), false],
  ])("%s", (_n, d, expected) => {
    expect(deploymentComplete(d, d.status!)).toBe(expected);
  });
  it("not complete: the status has not observed the current generation", () => {
    const d = deployment(1, 1, 1, 1, 0, 1);
    (d as { metadata?: object }).metadata = { generation: 2 };
    expect(deploymentComplete(d, { ...d.status, observedGeneration: 1 })).toBe(false);
    expect(deploymentComplete(d, { ...d.status, observedGeneration: 2 })).toBe(true);
  });
});

describe("deploymentProgressing (TestDeploymentProgressing)", () => {
  const st = (current: number, updated: number, ready: number, available: number): DeploymentStatus => ({
    replicas: current,
    updatedReplicas: updated,
    readyReplicas: ready,
    availableReplicas: available,
  });
  const deployment = (s: DeploymentStatus): Deployment => ({ status: s });
  it.each([
    ["progressing: updated pods", st(10, 4, 4, 4), st(10, 6, 4, 4), true],
    ["not progressing", st(10, 4, 4, 4), st(10, 4, 4, 4), false],
    ["progressing: old pods removed", st(10, 4, 6, 6), st(8, 4, 6, 6), true],
    ["not progressing: less new pods", st(10, 7, 3, 3), st(10, 6, 3, 3), false],
    ["progressing: less overall but more new pods", st(10, 4, 7, 7), st(8, 8, 5, 5), true],
    ["progressing: more ready pods", st(10, 10, 9, 8), st(10, 10, 10, 8), true],
    ["progressing: more available pods", st(10, 10, 10, 9), st(10, 10, 10, 10), true],
  ])("%s", (_n, old, next, expected) => {
    expect(deploymentProgressing(deployment(old), next)).toBe(expected);
  });
});

describe("deploymentTimedOut (TestDeploymentTimedOut)", () => {
  const timeFn = (min: number, sec: number) => Date.UTC(2016, 0, 1, 0, min, sec);
  const deployment = (reason: string, pds: number | undefined, from: number): Deployment => ({
    spec: { progressDeadlineSeconds: pds, selector: {}, template: {} },
    status: { conditions: [{ type: "Progressing", status: "True", reason, lastUpdateTime: at(from) }] },
  });
  it.each([
    ["no progressDeadlineSeconds specified - no timeout", deployment("", undefined, timeFn(1, 9)), timeFn(1, 20), false],
    ["infinite progressDeadlineSeconds specified - no timeout", deployment("", 2 ** 31 - 1, timeFn(1, 9)), timeFn(1, 20), false],
    ["progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:09 => 11s", deployment("", 10, timeFn(1, 9)), timeFn(1, 20), true],
    ["progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:11 => 9s", deployment("", 10, timeFn(1, 11)), timeFn(1, 20), false],
    ["previous status was a complete deployment", deployment(NEW_RS_AVAILABLE_REASON, 10, timeFn(0, 0)), timeFn(1, 20), false],
    ["already timed out", deployment("ProgressDeadlineExceeded", 10, timeFn(1, 19)), timeFn(1, 20), true],
    // Strictly after the deadline only.
    ["exactly at the deadline - no timeout", deployment("", 10, timeFn(1, 10)), timeFn(1, 20), false],
    ["one millisecond after the deadline - timeout", deployment("", 10, timeFn(1, 10)), timeFn(1, 20) + 1, true],
    ["one millisecond before the deadline - no timeout", deployment("", 10, timeFn(1, 10)), timeFn(1, 20) - 1, false],
  ])("%s", (_n, d, now, expected) => {
    expect(deploymentTimedOut(d, d.status!, now)).toBe(expected);
  });
});

describe("maxUnavailable, minAvailable, maxSurge (TestMaxUnavailable, TestMinAvailable)", () => {
  const deployment = (replicas: number, mu: IntOrString, type = "RollingUpdate"): Deployment => ({
    spec: {
      replicas,
      selector: {},
      template: {},
      strategy: type === "RollingUpdate" ? { type, rollingUpdate: { maxSurge: 1, maxUnavailable: mu } } : { type },
    },
  });
  it.each([
    ["maxUnavailable less than replicas", deployment(10, 5), 5],
    ["maxUnavailable equal replicas", deployment(10, 10), 10],
    ["maxUnavailable greater than replicas", deployment(5, 10), 5],
    ["maxUnavailable with replicas is 0", deployment(0, 10), 0],
    ["maxUnavailable with Recreate deployment strategy", deployment(10, 1, "Recreate"), 0],
    ["maxUnavailable less than replicas with percents", deployment(10, "50%"), 5],
    ["maxUnavailable equal replicas with percents", deployment(10, "100%"), 10],
    ["maxUnavailable greater than replicas with percents", deployment(5, "100%"), 5],
    ["maxUnavailable that is not a percentage resolves to 0 (caught by validation upstream)", deployment(5, "x"), 0],
  ])("%s", (_n, d, expected) => {
    expect(maxUnavailable(d)).toBe(expected);
  });
  it.each([
    ["replicas greater than maxUnavailable", deployment(10, 1), 9],
    ["replicas equal maxUnavailable", deployment(10, 10), 0],
    ["replicas less than maxUnavailable", deployment(5, 10), 0],
    ["replicas is 0", deployment(0, 10), 0],
    ["minAvailable with Recreate deployment strategy", deployment(10, 1, "Recreate"), 0],
  ])("minAvailable: %s", (_n, d, expected) => {
    expect(minAvailable(d)).toBe(expected);
  });
  it("maxSurge rounds up, and is 0 for Recreate", () => {
    const d = deployment(10, 0);
    d.spec!.strategy!.rollingUpdate!.maxSurge = "25%";
    expect(maxSurge(d)).toBe(3);
    expect(maxSurge(deployment(10, 1, "Recreate"))).toBe(0);
  });
});

describe("annotations (TestAnnotationUtils, TestReplicasAnnotationsNeedUpdate)", () => {
  it("setNewReplicaSetAnnotations raises the revision step by step", () => {
    const d = generateDeployment("nginx");
    const r = generateRS(d);
    d.metadata!.annotations![REVISION_ANNOTATION] = "1";
    for (let i = 0; i < 20; i++) {
      const next = String(i + 1);
      setNewReplicaSetAnnotations(d, r, next, true, 2000);
      expect(r.metadata!.annotations![REVISION_ANNOTATION]).toBe(next);
    }
  });

  it("setReplicasAnnotations sets desired and max; isSaturated reads them", () => {
    const d = generateDeployment("nginx");
    let r = generateRS(d);
    expect(setReplicasAnnotations(r, 10, 11)).toBe(true);
    expect(r.metadata!.annotations![DESIRED_REPLICAS_ANNOTATION]).toBe("10");
    expect(r.metadata!.annotations![MAX_REPLICAS_ANNOTATION]).toBe("11");
    expect(setReplicasAnnotations(r, 10, 11)).toBe(false);
    r.metadata!.annotations![DESIRED_REPLICAS_ANNOTATION] = "1";
    r = withRSStatus(r, { availableReplicas: 1 });
    r.spec!.replicas = 1;
    expect(isSaturated(d, r)).toBe(true);
    expect(isSaturated(d, withRSStatus(r, { availableReplicas: 0 }))).toBe(false);
    expect(isSaturated(d, undefined)).toBe(false);
  });

  it.each([
    ["test Annotations nil", undefined, true],
    ["test desiredReplicas update", { [DESIRED_REPLICAS_ANNOTATION]: "8", [MAX_REPLICAS_ANNOTATION]: "20" }, true],
    ["test maxReplicas update", { [DESIRED_REPLICAS_ANNOTATION]: "10", [MAX_REPLICAS_ANNOTATION]: "16" }, true],
    ["test needn't update", { [DESIRED_REPLICAS_ANNOTATION]: "10", [MAX_REPLICAS_ANNOTATION]: "20" }, false],
  ])("replicasAnnotationsNeedUpdate: %s", (_n, annotations, expected) => {
    const r: ReplicaSet = { metadata: { name: "hello", namespace: "test", annotations }, spec: { selector: { matchLabels: { foo: "bar" } } } };
    expect(replicasAnnotationsNeedUpdate(r, 10, 20)).toBe(expected);
  });

  it("copies the Deployment's annotations except the skipped ones, and sets replica annotations on creation", () => {
    const d = generateDeployment("nginx");
    d.spec!.replicas = 4;
    d.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    d.metadata!.annotations = {
      "kubernetes.io/change-cause": "kubectl set image",
      "kubectl.kubernetes.io/last-applied-configuration": "{}",
      [REVISION_ANNOTATION]: "9",
      "deprecated.deployment.rollback.to": "3",
    };
    const r = generateRS(d);
    expect(setNewReplicaSetAnnotations(d, r, "2", false, 2000)).toBe(true);
    expect(r.metadata!.annotations).toEqual({
      "kubernetes.io/change-cause": "kubectl set image",
      [REVISION_ANNOTATION]: "2",
      [DESIRED_REPLICAS_ANNOTATION]: "4",
      [MAX_REPLICAS_ANNOTATION]: "5",
    });
  });

  it("records the previous revision in revision-history when a ReplicaSet is reused (rollback)", () => {
    const d = generateDeployment("nginx");
    const r = generateRS(d);
    r.metadata!.annotations = { [REVISION_ANNOTATION]: "1" };
    setNewReplicaSetAnnotations(d, r, "3", true, 2000);
    expect(r.metadata!.annotations).toMatchObject({ [REVISION_ANNOTATION]: "3", [REVISION_HISTORY_ANNOTATION]: "1" });
    setNewReplicaSetAnnotations(d, r, "5", true, 2000);
    expect(r.metadata!.annotations).toMatchObject({ [REVISION_ANNOTATION]: "5", [REVISION_HISTORY_ANNOTATION]: "1,3" });
    // A lower revision never replaces a higher one.
    expect(setNewReplicaSetAnnotations(d, r, "4", true, 2000)).toBe(false);
    expect(r.metadata!.annotations![REVISION_ANNOTATION]).toBe("5");
  });

  it("keeps revision-history within the length limit by dropping the oldest entries", () => {
    const d = generateDeployment("nginx");
    const r = generateRS(d);
    r.metadata!.annotations = { [REVISION_ANNOTATION]: "14", [REVISION_HISTORY_ANNOTATION]: "10,11,12,13" };
    setNewReplicaSetAnnotations(d, r, "15", true, 11);
    expect(r.metadata!.annotations![REVISION_HISTORY_ANNOTATION]).toBe("11,12,13,14");
    setNewReplicaSetAnnotations(d, r, "16", true, 8);
    expect(r.metadata!.annotations![REVISION_HISTORY_ANNOTATION]).toBe("13,14,15");
    expect(r.metadata!.annotations![REVISION_ANNOTATION]).toBe("16");
  });

  it("leaves a ReplicaSet whose revision is not a number alone", () => {
    const d = generateDeployment("nginx");
    const r = generateRS(d);
    r.metadata!.annotations = { [REVISION_ANNOTATION]: "abc" };
    expect(setNewReplicaSetAnnotations(d, r, "3", true, 2000)).toBe(false);
    expect(r.metadata!.annotations![REVISION_ANNOTATION]).toBe("abc");
  });

  it("setDeploymentAnnotationsTo takes the ReplicaSet's annotations but keeps the Deployment's skipped ones", () => {
    const d = generateDeployment("nginx");
    d.metadata!.annotations = { [REVISION_ANNOTATION]: "5", "kubernetes.io/change-cause": "edit", other: "x" };
    const r = generateRS(d);
    r.metadata!.annotations = { [REVISION_ANNOTATION]: "1", "kubernetes.io/change-cause": "create", [DESIRED_REPLICAS_ANNOTATION]: "3" };
    setDeploymentAnnotationsTo(d, r);
    expect(d.metadata!.annotations).toEqual({ [REVISION_ANNOTATION]: "5", "kubernetes.io/change-cause": "create" });
  });
});

describe("revisions", () => {
  const withRev = (rev: string | undefined): ReplicaSet => ({ metadata: { name: `rs-${rev}`, annotations: rev === undefined ? {} : { [REVISION_ANNOTATION]: rev } } });
  it("revision parses the annotation; absent is 0; garbage throws", () => {
    expect(revision(withRev("7"))).toBe(7);
    expect(revision(withRev(undefined))).toBe(0);
    expect(() => revision(withRev("x"))).toThrow();
  });
  it.each([
    [["1", "2", "3"], 3, 2],
    [["3", "1", "2"], 3, 2],
    [["1"], 1, 0],
    [["1", "x", "4", undefined], 4, 1],
    [["2", "2"], 2, 2],
  ] as Array<[Array<string | undefined>, number, number]>)("maxRevision/lastRevision of %j", (revs, max, last) => {
    const list = revs.map(withRev);
    expect(maxRevision(list)).toBe(max);
    expect(lastRevision(list)).toBe(last);
  });
});

describe("proportions (getReplicaSetFraction, getReplicaSetProportion)", () => {
  const d = (replicas: number, surge: number, statusReplicas = 0): Deployment => ({
    spec: { replicas, selector: {}, template: {}, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: surge, maxUnavailable: 0 } } },
    status: { replicas: statusReplicas },
  });
  const sized = (replicas: number, max?: number): ReplicaSet => ({
    metadata: { name: "r", annotations: max === undefined ? {} : { [MAX_REPLICAS_ANNOTATION]: String(max) } },
    spec: { replicas, selector: {} },
  });
  it.each([
    ["scaling to zero takes the whole size", sized(5, 10), d(0, 0), -5],
    ["doubling from the annotation", sized(3, 5), d(10, 0), 3],
    ["with surge", sized(6, 12), d(20, 2), 5],
    ["rounds half away from zero", sized(1, 2), d(3, 0), 1],
    ["no annotation: falls back to status.replicas", sized(2), d(8, 0, 4), 2],
    ["no annotation and no status: no estimate", sized(2), d(8, 0, 0), 0],
    // 1.36: a max-replicas annotation of 0 is as good as none (no division by zero).
    ["annotation 0: falls back to status.replicas", sized(2, 0), d(8, 0, 4), 2],
    ["annotation 0 and no status: no estimate", sized(2, 0), d(8, 0, 0), 0],
  ])("fraction: %s", (_n, r, dep, expected) => {
    expect(getReplicaSetFraction(r, dep)).toBe(expected);
  });
  it.each([
    ["undefined ReplicaSet", undefined, 5, 0, 0],
    ["empty ReplicaSet", sized(0, 5), 5, 0, 0],
    ["nothing to add", sized(3, 5), 0, 0, 0],
    ["everything already added", sized(3, 5), 5, 5, 0],
    ["bounded by what is left when scaling up", sized(3, 5), 5, 4, 1],
    ["the fraction when it fits", sized(3, 5), 5, 0, 3],
    ["bounded by what is left when scaling down", sized(3, 5), -1, 0, -1],
  ] as Array<[string, ReplicaSet | undefined, number, number, number]>)("proportion: %s", (_n, r, toAdd, added, expected) => {
    expect(getReplicaSetProportion(r, toAdd < 0 ? d(3, 0) : d(10, 0), toAdd, added)).toBe(expected);
  });
});

describe("findActiveOrLatest", () => {
  const mk = (name: string, replicas: number, ts: number): ReplicaSet => ({ metadata: { name, uid: name, creationTimestamp: at(ts) }, spec: { replicas, selector: {} } });
  const t = Date.UTC(2026, 0, 1);
  it("returns the only active one, the newest when none is active, nothing when several are", () => {
    const a = mk("a", 0, t);
    const b = mk("b", 2, t + 1000);
    const c = mk("c", 0, t + 2000);
    expect(findActiveOrLatest(undefined, [a, b, c])).toBe(b);
    expect(findActiveOrLatest(undefined, [a, c])).toBe(c);
    expect(findActiveOrLatest(mk("n", 0, t + 5000), [a, c])?.metadata?.name).toBe("n");
    expect(findActiveOrLatest(mk("n", 1, t + 5000), [b])).toBeUndefined();
    expect(findActiveOrLatest(undefined, [])).toBeUndefined();
  });
});

describe("getDeploymentsForReplicaSet", () => {
  it("matches non-empty selectors in the ReplicaSet's namespace", () => {
    const d1 = generateDeployment("a");
    const d2 = generateDeployment("b");
    d2.spec!.selector = { matchLabels: { name: "a" } };
    const d3 = generateDeployment("c");
    d3.spec!.selector = {};
    const d4 = generateDeployment("d");
    d4.metadata!.namespace = "other";
    d4.spec!.selector = { matchLabels: { name: "a" } };
    const r = generateRS(d1);
    expect(getDeploymentsForReplicaSet([d1, d2, d3, d4], r).map((d) => d.metadata!.name)).toEqual(["a", "b"]);
    expect(getDeploymentsForReplicaSet([d1], { ...r, metadata: { ...r.metadata, labels: {} } })).toEqual([]);
  });
});

describe("progress deadline and history limit predicates", () => {
  it.each([
    [undefined, false],
    [600, true],
    [2 ** 31 - 1, false],
  ])("hasProgressDeadline(%s) = %s; hasRevisionHistoryLimit alike", (v, expected) => {
    const d: Deployment = { spec: { progressDeadlineSeconds: v, revisionHistoryLimit: v, selector: {}, template: {} } };
    expect(hasProgressDeadline(d)).toBe(expected);
    expect(hasRevisionHistoryLimit(d)).toBe(expected);
  });
  it("revisionHistoryLimit 0 is a limit", () => {
    expect(hasRevisionHistoryLimit({ spec: { revisionHistoryLimit: 0, selector: {}, template: {} } })).toBe(true);
  });
});

describe("computeHash (hash_test)", () => {
  const template = (): PodTemplateSpec => generateDeployment("nginx").spec!.template;
  it("is stable, insensitive to key order, and sensitive to content and collision count", () => {
    const t = template();
    const h = computeHash(t);
    expect(computeHash(deepCopy(t))).toBe(h);
    const reordered: PodTemplateSpec = { spec: t.spec, metadata: t.metadata };
    expect(computeHash(reordered)).toBe(h);
    const changed = deepCopy(t);
    changed.spec!.containers[0].image = "nginx:2";
    expect(computeHash(changed)).not.toBe(h);
    expect(computeHash(t, 1)).not.toBe(h);
    expect(computeHash(t, 1)).not.toBe(computeHash(t, 2));
    expect(computeHash(t, undefined)).toBe(computeHash(t, null));
  });
  it("uses only SafeEncodeString's alphabet for decimal digits", () => {
    expect(safeEncodeString("0123456789")).toBe("456789bcdf");
    for (let i = 0; i < 50; i++) {
      const t = template();
      t.metadata!.labels!.i = String(i);
      expect(computeHash(t)).toMatch(/^[456789bcdf]{1,10}$/);
    }
  });
  it("has a known value, so names stay stable across releases", () => {
    // FNV-1a 32 of the bytes of "{}" is 1415952421; its digits through the safe alphabet:
    expect(fnvOf("{}")).toBe(1415952421);
    expect(computeHash({})).toBe("5859f96865");
  });
});

function fnvOf(s: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
