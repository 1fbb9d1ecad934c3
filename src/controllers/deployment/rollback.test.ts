/**
 * Rollbacks: the deprecated server-side path (rollback.go, TestReentrantRollback's neighbours) and
 * kubectl's client-side `rollout undo`, which copies an old ReplicaSet's template into the
 * Deployment and leaves the rest to the controller.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { describe, expect, it } from "vitest";
import type { WritableObjectMeta } from "../../apimachinery/types.js";
import { builtin } from "../../client/typed.js";
import { DeploymentFixture, newDeployment, newReplicaSet } from "./fixture.js";
import {
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
  getRollbackTo,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  setRollbackTo,
} from "./index.js";

const key = (d: Deployment) => `${d.metadata!.namespace}/${d.metadata!.name}`;

/** A Deployment at revision 2 with ReplicaSets for revisions 1 (image v1) and 2 (image v2). */
function history(annotations: Record<string, string>) {
  const d = newDeployment("foo", 2, undefined, 1, 0, { foo: "bar" });
  d.spec!.template.spec!.containers[0].image = "foo/bar:v2";
  d.metadata!.annotations = { [REVISION_ANNOTATION]: "2", ...annotations };
  const v1 = newReplicaSet(d, "foo-v1", 0);
  v1.spec!.template!.spec!.containers[0].image = "foo/bar:v1";
  v1.spec!.template!.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "h1";
  v1.metadata!.annotations = { [REVISION_ANNOTATION]: "1", "kubernetes.io/change-cause": "create" };
  (v1.metadata as WritableObjectMeta).creationTimestamp = "2026-01-01T00:00:00Z";
  const v2 = newReplicaSet(d, "foo-v2", 2);
  v2.spec!.template!.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "h2";
  v2.metadata!.annotations = { [REVISION_ANNOTATION]: "2", "kubernetes.io/change-cause": "edit" };
  (v2.metadata as WritableObjectMeta).creationTimestamp = "2026-01-01T00:01:00Z";
  const f = new DeploymentFixture();
  f.dLister.push(d);
  f.rsLister.push(v1, v2);
  f.objects.push(d, v1, v2);
  return { f, d, v1, v2 };
}

describe("getRollbackTo / setRollbackTo", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    ["3", { revision: 3 }],
    ["0", { revision: 0 }],
    ["x", undefined],
  ])("annotation %j → %j", (v, expected) => {
    const d = newDeployment("foo", 1);
    if (v !== undefined) d.metadata!.annotations![DEPRECATED_ROLLBACK_TO_ANNOTATION] = v;
    expect(getRollbackTo(d)).toEqual(expected);
  });
  it("sets and clears", () => {
    const d = newDeployment("foo", 1);
    setRollbackTo(d, { revision: 4 });
    expect(d.metadata!.annotations![DEPRECATED_ROLLBACK_TO_ANNOTATION]).toBe("4");
    setRollbackTo(d, undefined);
    expect(d.metadata!.annotations![DEPRECATED_ROLLBACK_TO_ANNOTATION]).toBeUndefined();
  });
});

describe("deprecated rollback annotation", () => {
  it("rolls back to a named revision, taking its template and annotations", async () => {
    const { f, d } = history({ [DEPRECATED_ROLLBACK_TO_ANNOTATION]: "1", "kubernetes.io/change-cause": "edit" });
    f.expectUpdateDeploymentAction(d);
    await f.run(key(d));
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    expect(stored.spec!.template.spec!.containers[0].image).toBe("foo/bar:v1");
    expect(stored.spec!.template.metadata!.labels).toEqual({ foo: "bar" }); // no pod-template-hash
    expect(stored.metadata!.annotations).toEqual({ [REVISION_ANNOTATION]: "2", "kubernetes.io/change-cause": "create" });
    expect(f.recorder.events).toEqual(['Normal DeploymentRollback Rolled back deployment "foo" to revision 1']);
  });

  it("gives up on a revision that does not exist, clearing the request", async () => {
    const { f, d } = history({ [DEPRECATED_ROLLBACK_TO_ANNOTATION]: "7" });
    f.expectUpdateDeploymentAction(d);
    await f.run(key(d));
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    expect(stored.metadata!.annotations![DEPRECATED_ROLLBACK_TO_ANNOTATION]).toBeUndefined();
    expect(stored.spec!.template.spec!.containers[0].image).toBe("foo/bar:v2");
    expect(f.recorder.events).toEqual(["Warning DeploymentRollbackRevisionNotFound Unable to find the revision to rollback to."]);
  });

  it("warns when the revision has the current template", async () => {
    const { f, d } = history({ [DEPRECATED_ROLLBACK_TO_ANNOTATION]: "2" });
    f.expectUpdateDeploymentAction(d);
    await f.run(key(d));
    expect(f.recorder.events).toEqual(['Warning DeploymentRollbackTemplateUnchanged The rollback revision contains the same template as current deployment "foo"']);
  });

  it("warns when there is no previous revision", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, 1, 0, { foo: "bar" });
    d.metadata!.annotations = { [DEPRECATED_ROLLBACK_TO_ANNOTATION]: "0" };
    f.dLister.push(d);
    f.objects.push(d);
    f.expectCreateRSAction();
    f.expectUpdateDeploymentStatusAction(d);
    f.expectUpdateDeploymentAction(d);
    await f.run(key(d));
    expect(f.recorder.events).toContain("Warning DeploymentRollbackRevisionNotFound Unable to find last revision.");
  });
});

describe("kubectl rollout undo (client-side)", () => {
  it("reuses the old ReplicaSet and renumbers it max+1, keeping its old revision in revision-history", async () => {
    const { f, d, v1 } = history({});
    // What kubectl does: the old ReplicaSet's template (without the hash label) and annotations.
    d.spec!.template = structuredClone(v1.spec!.template!);
    delete d.spec!.template.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
    d.metadata!.annotations = { [REVISION_ANNOTATION]: "2", "kubernetes.io/change-cause": "create" };
    f.dLister = [d];
    f.objects = f.objects.map((o) => (o.kind === "Deployment" ? d : o));
    f.expectUpdateRSAction(v1); // revision 1 → 3 (isScalingEvent's pass)
    f.expectUpdateDeploymentStatusAction(d); // the Deployment's revision follows (rollout's pass)
    f.expectUpdateRSAction(v1); // rolling: the new (old) ReplicaSet is scaled up within maxSurge
    f.expectUpdateDeploymentStatusAction(d);
    await f.run(key(d));
    const updates = f.client.writeActions().filter((a) => a.resource === "replicasets");
    expect(updates.every((a) => a.name === "foo-v1")).toBe(true);
    const stored = f.client.tracker.get(builtin.replicaSets, "default", "foo-v1") as unknown as ReplicaSet;
    expect(stored.metadata!.annotations).toMatchObject({ [REVISION_ANNOTATION]: "3", [REVISION_HISTORY_ANNOTATION]: "1", "kubernetes.io/change-cause": "create" });
    expect(stored.spec!.replicas).toBe(1);
    expect(f.client.actions().some((a) => a.verb === "create")).toBe(false);
  });
});
