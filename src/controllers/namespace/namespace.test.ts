/**
 * The namespace controller, restating upstream's tables: status_condition_utils_test.go
 * (TestUpdateConditions, TestProcessContentTotals), namespaced_resources_deleter_test.go
 * (TestFinalizeNamespaceFunc, testSyncNamespaceThatIsTerminating's scenarios,
 * TestRetryOnConflictError, TestSyncNamespaceThatIsActive, TestDeleteEncounters404), and the
 * controller's queueing (namespaceDeletionGracePeriod, the estimate/2 + 1 requeue) on a fake clock.
 */
import { describe, expect, it } from "vitest";
import type { ConfigMap, Namespace, NamespaceCondition, NamespaceStatus, Pod } from "../../apimachinery/api/core/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import type { Action } from "../../testing/fakeclient.js";
import { ControllerFixture, FIXTURE_START_TIME } from "../../testing/fixture.js";
import {
  NamespaceConditionUpdater,
  NamespaceContentRemaining,
  NamespaceDeletionContentFailure,
  NamespaceDeletionDiscoveryFailure,
  NamespaceDeletionGVParsingFailure,
  NamespaceFinalizersRemaining,
  successfulCondition,
  updateConditions,
} from "./conditions.js";
import { NamespaceController, NAMESPACE_DELETION_GRACE_PERIOD_MS } from "./controller.js";
import { NamespacedResourcesDeleter, NamespaceDeletionErrors, ResourcesRemainingError } from "./deleter.js";
import { GroupDiscoveryFailedError, type NamespaceDiscovery, type NamespacedResourceList } from "./discovery.js";

const NOW = FIXTURE_START_TIME;
const ok = (type: string) => successfulCondition(type, NOW);
const allVerbs = ["get", "list", "delete", "deletecollection", "create", "update"];

/** upstream testResources(): pods and services in v1, deployments in apps/v1. */
function testResources(): NamespacedResourceList[] {
  return [
    {
      groupVersion: "v1",
      resources: [
        { name: "pods", namespaced: true, kind: "Pod", verbs: allVerbs },
        { name: "services", namespaced: true, kind: "Service", verbs: allVerbs },
      ],
    },
    { groupVersion: "apps/v1", resources: [{ name: "deployments", namespaced: true, kind: "Deployment", verbs: allVerbs }] },
  ];
}

const discoveryOf =
  (lists: NamespacedResourceList[], error?: unknown): NamespaceDiscovery =>
  async () => ({ lists, error });

function namespace(name: string, o: { deleting?: boolean; finalizers?: string[]; phase?: string; conditions?: NamespaceCondition[] } = {}): Namespace {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, ...(o.deleting === false ? {} : { deletionTimestamp: formatTime(NOW) }) },
    spec: o.finalizers === undefined ? { finalizers: ["kubernetes"] } : o.finalizers.length ? { finalizers: o.finalizers } : {},
    status: { phase: o.phase ?? (o.deleting === false ? "Active" : "Terminating"), ...(o.conditions ? { conditions: o.conditions } : {}) },
  };
}

const cm = (ns: string, name: string, finalizers?: string[]): ConfigMap => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, ...(finalizers ? { finalizers } : {}) },
});

const describeAction = (a: Action) => [a.verb, a.resource, a.subresource ?? "", a.namespace ?? ""].join("-");

describe("updateConditions (TestUpdateConditions)", () => {
  const cases: { name: string; newConditions: NamespaceCondition[]; starting: NamespaceStatus; expected: NamespaceCondition[] }[] = [
    {
      name: "leave unknown",
      newConditions: [],
      starting: { conditions: [{ type: "unknown", status: "True" }] },
      expected: [
        { type: "unknown", status: "True" },
        ok(NamespaceDeletionDiscoveryFailure),
        ok(NamespaceDeletionGVParsingFailure),
        ok(NamespaceDeletionContentFailure),
        ok(NamespaceContentRemaining),
        ok(NamespaceFinalizersRemaining),
      ],
    },
    {
      name: "replace with success",
      newConditions: [],
      starting: { conditions: [{ type: NamespaceDeletionDiscoveryFailure, status: "True" }] },
      expected: [
        ok(NamespaceDeletionDiscoveryFailure),
        ok(NamespaceDeletionGVParsingFailure),
        ok(NamespaceDeletionContentFailure),
        ok(NamespaceContentRemaining),
        ok(NamespaceFinalizersRemaining),
      ],
    },
    {
      name: "leave different order",
      newConditions: [],
      starting: {
        conditions: [
          { type: NamespaceDeletionGVParsingFailure, status: "True" },
          { type: NamespaceDeletionDiscoveryFailure, status: "True" },
        ],
      },
      expected: [
        ok(NamespaceDeletionGVParsingFailure),
        ok(NamespaceDeletionDiscoveryFailure),
        ok(NamespaceDeletionContentFailure),
        ok(NamespaceContentRemaining),
        ok(NamespaceFinalizersRemaining),
      ],
    },
    {
      name: "overwrite with failure",
      newConditions: [{ type: NamespaceDeletionGVParsingFailure, status: "True", reason: "foo", message: "bar" }],
      starting: {
        conditions: [
          { type: NamespaceDeletionGVParsingFailure, status: "False" },
          { type: NamespaceDeletionDiscoveryFailure, status: "True" },
        ],
      },
      expected: [
        { type: NamespaceDeletionGVParsingFailure, status: "True", reason: "foo", message: "bar" },
        ok(NamespaceDeletionDiscoveryFailure),
        ok(NamespaceDeletionContentFailure),
        ok(NamespaceContentRemaining),
        ok(NamespaceFinalizersRemaining),
      ],
    },
    {
      name: "write new failure",
      newConditions: [{ type: NamespaceDeletionGVParsingFailure, status: "True", reason: "foo", message: "bar" }],
      starting: { conditions: [{ type: NamespaceDeletionDiscoveryFailure, status: "True" }] },
      expected: [
        ok(NamespaceDeletionDiscoveryFailure),
        { type: NamespaceDeletionGVParsingFailure, status: "True", reason: "foo", message: "bar" },
        ok(NamespaceDeletionContentFailure),
        ok(NamespaceContentRemaining),
        ok(NamespaceFinalizersRemaining),
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      updateConditions(c.starting, c.newConditions, NOW);
      const strip = (cs: NamespaceCondition[]) => cs.map(({ lastTransitionTime: _t, ...rest }) => rest);
      expect(strip(c.starting.conditions ?? [])).toEqual(strip(c.expected));
    });
  }

  it("keeps lastTransitionTime unless the status changes, and reports whether anything changed", () => {
    const status: NamespaceStatus = { conditions: [{ ...ok(NamespaceContentRemaining), lastTransitionTime: "2020-01-01T00:00:00Z" }] };
    expect(updateConditions(status, [], NOW)).toBe(true);
    expect(status.conditions?.[0].lastTransitionTime).toBe("2020-01-01T00:00:00Z");
    expect(updateConditions(status, [], NOW + 1000)).toBe(false);
    const failing = { type: NamespaceContentRemaining, status: "True", reason: "SomeResourcesRemain", message: "m" };
    expect(updateConditions(status, [failing], NOW + 2000)).toBe(true);
    expect(status.conditions?.[0]).toMatchObject({ ...failing, lastTransitionTime: formatTime(NOW + 2000) });
  });
});

describe("processContentTotals (TestProcessContentTotals)", () => {
  const cases: { name: string; byResource: Record<string, number>; byFinalizer: Record<string, number>; expected: Omit<NamespaceCondition, "lastTransitionTime">[] }[] = [
    { name: "nothing", byResource: {}, byFinalizer: {}, expected: [] },
    {
      name: "just remaining",
      byResource: { "daemonsets.apps.k8s.io": 5, "deployments.apps.k8s.io": 5 },
      byFinalizer: {},
      expected: [
        {
          type: NamespaceContentRemaining,
          status: "True",
          reason: "SomeResourcesRemain",
          message: "Some resources are remaining: daemonsets.apps.k8s.io has 5 resource instances, deployments.apps.k8s.io has 5 resource instances",
        },
      ],
    },
    {
      name: "just finalizers",
      byResource: {},
      byFinalizer: { "service-catalog": 6, kubedb: 5 },
      expected: [
        {
          type: NamespaceFinalizersRemaining,
          status: "True",
          reason: "SomeFinalizersRemain",
          message: "Some content in the namespace has finalizers remaining: kubedb in 5 resource instances, service-catalog in 6 resource instances",
        },
      ],
    },
    {
      name: "both",
      byResource: { "deployments.apps.k8s.io": 5, "daemonsets.apps.k8s.io": 5 },
      byFinalizer: { "service-catalog": 6, kubedb: 5 },
      expected: [
        {
          type: NamespaceContentRemaining,
          status: "True",
          reason: "SomeResourcesRemain",
          message: "Some resources are remaining: daemonsets.apps.k8s.io has 5 resource instances, deployments.apps.k8s.io has 5 resource instances",
        },
        {
          type: NamespaceFinalizersRemaining,
          status: "True",
          reason: "SomeFinalizersRemain",
          message: "Some content in the namespace has finalizers remaining: kubedb in 5 resource instances, service-catalog in 6 resource instances",
        },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const u = new NamespaceConditionUpdater(() => NOW);
      u.processContentTotals({ remainingByResource: new Map(Object.entries(c.byResource)), remainingByFinalizer: new Map(Object.entries(c.byFinalizer)) });
      expect(u.collected().map(({ lastTransitionTime: _t, ...rest }) => rest)).toEqual(c.expected);
    });
  }

  it("gathers content deletion errors into one sorted condition, and names the failing discovery groups", () => {
    const u = new NamespaceConditionUpdater(() => NOW);
    u.processDeleteContentErr(new Error("b failed"));
    u.processDeleteContentErr(new Error("a failed"));
    u.processDiscoverResourcesErr(new GroupDiscoveryFailedError(new Map([["metrics.k8s.io/v1beta1", new Error("503")]])));
    const status: NamespaceStatus = {};
    u.update(status);
    const byType = new Map((status.conditions ?? []).map((c) => [c.type, c]));
    expect(byType.get(NamespaceDeletionContentFailure)).toMatchObject({
      status: "True",
      reason: "ContentDeletionFailed",
      message: "Failed to delete all resource types, 2 remaining: a failed, b failed",
    });
    expect(byType.get(NamespaceDeletionDiscoveryFailure)).toMatchObject({
      status: "True",
      reason: "DiscoveryFailed",
      message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: 503",
    });
  });
});

describe("NamespacedResourcesDeleter", () => {
  it("finalizes with only the kubernetes finalizer taken out (TestFinalizeNamespaceFunc)", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test", { finalizers: ["kubernetes", "other"] }));
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf([]), clock: f.clock });
    await d.delete(f.client, "test");
    const finalize = f.client.actions().filter((a) => a.subresource === "finalize");
    expect(finalize).toHaveLength(1);
    expect(finalize[0]).toMatchObject({ verb: "update", resource: "namespaces", name: "test" });
    expect((finalize[0].object as Namespace).spec?.finalizers).toEqual(["other"]);
    // "other" still holds it: Terminating, not gone.
    expect((await f.client.resource(builtin.namespaces).get("test")).spec?.finalizers).toEqual(["other"]);
  });

  // testSyncNamespaceThatIsTerminating: the kube client's actions (as a set, as upstream), the
  // content actions (delete-collection and list of every resource), the error and the status.
  const perResource = testResources().flatMap((l) => l.resources.map((r) => r.name));
  const contentActions = new Set(perResource.flatMap((r) => [`deletecollection-${r}--test`, `list-${r}--test`]));
  const scenarios: {
    name: string;
    ns: Namespace;
    kubeActions: string[];
    content: Set<string>;
    discoveryError?: Error;
    expectError?: string;
    expectConditions?: string[];
  }[] = [
    {
      name: "pending-finalize",
      ns: namespace("test"),
      kubeActions: ["get-namespaces--", "update-namespaces-status-", "update-namespaces-finalize-"],
      content: contentActions,
    },
    { name: "complete-finalize", ns: namespace("test", { finalizers: [] }), kubeActions: ["get-namespaces--"], content: new Set() },
    {
      name: "groupVersionResourceErr",
      ns: namespace("test", { finalizers: [] }),
      kubeActions: ["get-namespaces--"],
      content: new Set(),
      discoveryError: new Error("test error"),
    },
    {
      name: "groupVersionResourceErr-finalize",
      ns: namespace("test"),
      kubeActions: ["get-namespaces--", "update-namespaces-status-"],
      content: contentActions,
      discoveryError: new Error("test error"),
      expectError: "test error",
      expectConditions: [NamespaceDeletionDiscoveryFailure],
    },
  ];
  for (const s of scenarios) {
    it(`syncs a terminating namespace: ${s.name}`, async () => {
      const f = new ControllerFixture();
      // A namespace without spec finalizers would be gone already; seed it in the cache's form.
      f.seed(builtin.namespaces, s.ns);
      const d = new NamespacedResourcesDeleter({ discovery: discoveryOf(testResources(), s.discoveryError), clock: f.clock });
      const result = d.delete(f.client, "test");
      if (s.expectError) await expect(result).rejects.toThrow(s.expectError);
      else await result;
      // One set, as upstream's two (kube client and metadata client) together: the pods list of the
      // estimate and the pods list of the content pass are the same action here.
      expect(new Set(f.client.actions().map(describeAction))).toEqual(new Set([...s.kubeActions, ...s.content]));
      if (s.expectConditions) {
        const ns = await f.client.resource(builtin.namespaces).get("test");
        expect(ns.status?.phase).toBe("Terminating");
        for (const t of s.expectConditions) expect(ns.status?.conditions?.find((c) => c.type === t)?.status).toBe("True");
      }
    });
  }

  it("sets phase Terminating on a deleted namespace that is not yet (updateNamespaceStatusFunc)", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test", { phase: "Active" }));
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf([]), clock: f.clock });
    await d.delete(f.client, "test");
    const status = f.client.actions().find((a) => a.subresource === "status");
    expect((status?.object as Namespace).status?.phase).toBe("Terminating");
  });

  it("retries on a conflict with the namespace read again (TestRetryOnConflictError)", async () => {
    const f = new ControllerFixture();
    const [ns] = f.seed(builtin.namespaces, namespace("test"));
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf([]), clock: f.clock });
    let tries = 0;
    await d.retryOnConflict(f.client, ns, async (cur) => {
      tries++;
      if (tries <= 1) throw StatusError.conflict(builtin.namespaces, "test", "ERROR");
      return cur;
    });
    expect(tries).toBe(2);
    expect(f.client.actions().map(describeAction)).toEqual(["get-namespaces--"]);
  });

  it("refuses a retry whose namespace changed UID", async () => {
    const f = new ControllerFixture();
    const [ns] = f.seed(builtin.namespaces, namespace("test"));
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf([]), clock: f.clock });
    const stale = { ...ns, metadata: { ...ns.metadata, uid: "another" } };
    await expect(d.retryOnConflict(f.client, stale, async () => Promise.reject(StatusError.conflict(builtin.namespaces, "test", "ERROR")))).rejects.toThrow(
      "namespace uid has changed across retries",
    );
  });

  it("does nothing but read an active namespace (TestSyncNamespaceThatIsActive)", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test", { deleting: false }));
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf(testResources()), clock: f.clock });
    await d.delete(f.client, "test");
    expect(f.client.actions().map(describeAction)).toEqual(["get-namespaces--"]);
  });

  it("falls back to list and delete when deletecollection answers 404, for that namespace only (TestDeleteEncounters404)", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("ns1", { phase: "Active" }), namespace("ns2", { phase: "Active" }));
    const notFoundInNs1 = (a: Action) => (a.namespace === "ns1" ? { handled: true as const, error: StatusError.notFound({ group: "", resource: "" }, "") } : { handled: false as const });
    f.client.prependReactor("deletecollection", "flakes", notFoundInNs1);
    f.client.prependReactor("list", "flakes", notFoundInNs1);
    const flakes = [{ groupVersion: "example.com/v1", resources: [{ name: "flakes", namespaced: true, kind: "Flake", verbs: allVerbs }] }];
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf(flakes), clock: f.clock });
    const flakeActions = () => f.client.actions().filter((a) => a.resource === "flakes").map((a) => a.verb);

    await d.delete(f.client, "ns1");
    expect(flakeActions()).toEqual(["deletecollection", "list", "list"]);
    f.client.clearActions();
    await d.delete(f.client, "ns2");
    expect(flakeActions()).toEqual(["deletecollection", "list"]);
  });

  it("uses list and delete for a resource whose discovery verbs lack deletecollection, and skips one without delete", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test"));
    f.seed(builtin.configMaps, cm("test", "a"), cm("test", "b"));
    const lists = [
      {
        groupVersion: "v1",
        resources: [
          { name: "configmaps", namespaced: true, kind: "ConfigMap", verbs: ["get", "list", "delete"] },
          { name: "bindings", namespaced: true, kind: "Binding", verbs: ["create"] },
        ],
      },
    ];
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf(lists), clock: f.clock });
    await d.delete(f.client, "test");
    const cmActions = f.client.actions().filter((a) => a.resource === "configmaps");
    expect(cmActions.map((a) => `${a.verb}${a.name ? ` ${a.name}` : ""}`)).toEqual(["list", "delete a", "delete b", "list"]);
    expect(cmActions[1].options).toMatchObject({ propagationPolicy: "Background" });
    expect(f.client.actions().some((a) => a.resource === "bindings")).toBe(false);
    // Everything went: the namespace is finalized, and gone.
    await expect(f.client.resource(builtin.namespaces).get("test")).rejects.toThrow(/not found/);
  });

  it("waits for content held by finalizers: ContentRemaining, FinalizersRemaining, estimate 15 s, no finalize", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test"));
    f.seed(builtin.configMaps, cm("test", "held", ["example.com/hold"]), cm("test", "free"));
    const lists = [{ groupVersion: "v1", resources: [{ name: "configmaps", namespaced: true, kind: "ConfigMap", verbs: allVerbs }] }];
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf(lists), clock: f.clock });
    const err = await d.delete(f.client, "test").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourcesRemainingError);
    expect((err as ResourcesRemainingError).estimate).toBe(15);
    expect((err as Error).message).toBe("some content remains in the namespace, estimate 15 seconds before it is removed");
    const ns = await f.client.resource(builtin.namespaces).get("test");
    const byType = new Map((ns.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(byType.get(NamespaceContentRemaining)).toMatchObject({ status: "True", message: "Some resources are remaining: configmaps. has 1 resource instances" });
    expect(byType.get(NamespaceFinalizersRemaining)).toMatchObject({
      status: "True",
      message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    });
    expect(byType.get(NamespaceDeletionContentFailure)).toMatchObject({ status: "False", reason: "ContentDeleted" });
    expect(f.client.actions().some((a) => a.subresource === "finalize")).toBe(false);
    expect(ns.spec?.finalizers).toEqual(["kubernetes"]);
  });

  it("estimates pods' graceful termination until that much time has passed since the namespace's deletion", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test"));
    const pod = (name: string, grace: number, phase = "Running"): Pod => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "test", finalizers: ["example.com/kubelet"] },
      spec: { containers: [{ name: "c" }], terminationGracePeriodSeconds: grace },
      status: { phase },
    });
    f.seed(builtin.pods, pod("slow", 30), pod("done", 300, "Succeeded"));
    const lists = [{ groupVersion: "v1", resources: [{ name: "pods", namespaced: true, kind: "Pod", verbs: allVerbs }] }];
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf(lists), clock: f.clock });
    await expect(d.delete(f.client, "test")).rejects.toMatchObject({ estimate: 30 });
    f.clock.step(30_000);
    // The grace has passed; the finalizers still hold the pods: the default estimate.
    await expect(d.delete(f.client, "test")).rejects.toMatchObject({ estimate: 15 });
  });

  it("reports content that stays without finalizers as a content failure", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test"));
    f.seed(builtin.configMaps, cm("test", "stuck"));
    f.client.prependReactor("deletecollection", "configmaps", () => ({ handled: true, result: { kind: "Status", status: "Success" } }));
    const lists = [{ groupVersion: "v1", resources: [{ name: "configmaps", namespaced: true, kind: "ConfigMap", verbs: allVerbs }] }];
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf(lists), clock: f.clock });
    await expect(d.delete(f.client, "test")).rejects.toThrow("unexpected items still remain in namespace: test for gvr: /v1, Resource=configmaps");
    const ns = await f.client.resource(builtin.namespaces).get("test");
    expect(ns.status?.conditions?.find((c) => c.type === NamespaceDeletionContentFailure)).toMatchObject({
      status: "True",
      reason: "ContentDeletionFailed",
      message: "Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: test for gvr: /v1, Resource=configmaps",
    });
  });

  it("deletes nothing when a group/version does not parse (GroupVersionParsingFailure)", async () => {
    const f = new ControllerFixture();
    f.seed(builtin.namespaces, namespace("test"));
    const d = new NamespacedResourcesDeleter({ discovery: discoveryOf([{ groupVersion: "a/b/c", resources: [] }, ...testResources()]), clock: f.clock });
    const err = await d.delete(f.client, "test").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NamespaceDeletionErrors);
    expect((err as Error).message).toBe("unexpected GroupVersion string: a/b/c");
    expect(f.client.actions().some((a) => a.verb === "deletecollection")).toBe(false);
    const ns = await f.client.resource(builtin.namespaces).get("test");
    expect(ns.status?.conditions?.find((c) => c.type === NamespaceDeletionGVParsingFailure)).toMatchObject({
      status: "True",
      reason: "GroupVersionParsingFailed",
      message: "unexpected GroupVersion string: a/b/c",
    });
  });
});

describe("NamespaceController", () => {
  it("queues only namespaces being deleted, after the 5 s grace period, and requeues at estimate/2 + 1 while content remains", async () => {
    const f = new ControllerFixture();
    const lists = [{ groupVersion: "v1", resources: [{ name: "configmaps", namespaced: true, kind: "ConfigMap", verbs: allVerbs }] }];
    new NamespaceController(f.manager, { discovery: discoveryOf(lists) });
    f.seedAPI(builtin.namespaces, namespace("live", { deleting: false }));
    f.seedAPI(builtin.namespaces, namespace("doomed"));
    f.seedAPI(builtin.configMaps, cm("doomed", "held", ["example.com/hold"]), cm("live", "kept"));
    // When each pass starts (its deletecollection), on the fake clock.
    const passes: number[] = [];
    f.client.prependReactor("deletecollection", "configmaps", (a) => {
      if (a.namespace === "doomed") passes.push(f.clock.now());
      return { handled: false };
    });
    const start = f.clock.now();
    await f.start();
    try {
      await f.settle({ stepMs: 0 });
      expect(passes).toEqual([]);
      // The fake clock moves in 50 ms steps while waiting: a pass comes due within one step.
      const within = (t: number, due: number) => t >= due && t < due + 100;
      await f.eventually(() => passes.length >= 1, { maxSteps: 4000 });
      expect(within(passes[0], start + NAMESPACE_DELETION_GRACE_PERIOD_MS)).toBe(true);
      // Its condition update is an update event: the next pass 5 s later; that one changes nothing,
      // so the one after comes at 15/2 + 1 = 8 s (content held by finalizers).
      await f.eventually(() => passes.length >= 3, { maxSteps: 4000 });
      expect(within(passes[1], passes[0] + NAMESPACE_DELETION_GRACE_PERIOD_MS)).toBe(true);
      expect(within(passes[2], passes[1] + 8_000)).toBe(true);
      expect(f.client.writeActions().some((a) => a.namespace === "live")).toBe(false);

      // The finalizer goes; a later pass finalizes and the namespace is gone.
      const held = await f.client.resource(builtin.configMaps, "doomed").get("held");
      await f.client.resource(builtin.configMaps, "doomed").update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
      await f.eventually(
        async () => {
          try {
            await f.client.resource(builtin.namespaces).get("doomed");
            return false;
          } catch (err) {
            return err instanceof StatusError && err.code === 404;
          }
        },
        { maxSteps: 4000 },
      );
      expect(f.client.actions().filter((a) => a.subresource === "finalize").map((a) => (a.object as Namespace).spec?.finalizers)).toEqual([[]]);
      expect((await f.client.resource(builtin.namespaces).get("live")).status?.phase).toBe("Active");
      expect((await f.client.resource(builtin.configMaps, "live").get("kept")).metadata?.name).toBe("kept");
    } finally {
      await f.stop();
    }
  });

  it("registers under the namespace name with upstream's worker default", async () => {
    const { DEFAULT_WORKERS, BUILTIN_CONTROLLERS } = await import("../registry.js");
    expect(DEFAULT_WORKERS.namespace).toBe(10);
    expect(BUILTIN_CONTROLLERS).toContain("namespace");
  });
});
