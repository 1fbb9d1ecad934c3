/**
 * The admission plugins that read stored objects on every write (NamespaceLifecycle's namespace,
 * ResourceQuota's quotas, the two policy plugins' bindings) read them, once started, from caches
 * kept in step with storage as each write commits. These tests pin down what that must not
 * change: an object stored an instant before a write — with nothing awaited in between but the
 * store's own write — is seen by that write, exactly as a storage read would see it; and a
 * request with nothing to look at finishes synchronously (returns no promise).
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { objectKey } from "../rest/keys.js";
import { ResourceRegistry } from "../server/resources.js";
import { MemoryStorage } from "../storage/memory.js";
import { newAttributes } from "./attributes.js";
import type { AdmissionPluginContext, AnyAdmissionPlugin } from "./chain.js";
import type { AdmissionOperation } from "./interfaces.js";
import { namespaceLifecyclePlugin } from "./plugins/namespacelifecycle.js";
import { resourceQuotaPlugin } from "./plugins/resourcequota.js";
import { mutatingAdmissionPolicyPlugin } from "./policy/mutating.js";
import { validatingAdmissionPolicyPlugin } from "./policy/validating.js";

function context(): AdmissionPluginContext & { storage: MemoryStorage } {
  return { storage: new MemoryStorage(), registry: () => new ResourceRegistry(), clock: new FakeClock() };
}

const signal = new AbortController().signal;

function cmCreate(namespace: string, name: string, op: AdmissionOperation = "CREATE") {
  return newAttributes({
    operation: op,
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    namespace,
    name,
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { a: "b" } },
  });
}

async function refusal(run: () => Promise<void> | void): Promise<StatusError | undefined> {
  try {
    await run();
    return undefined;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
}

/** Every case runs against a plugin started (cached reads) and one never started (storage reads): the answers must agree. */
const modes = [
  { mode: "started", start: true },
  { mode: "not started", start: false },
] as const;

async function started<P extends AnyAdmissionPlugin>(p: P, start: boolean): Promise<P> {
  if (start) await p.start?.();
  return p;
}

describe.each(modes)("NamespaceLifecycle ($mode)", ({ start }) => {
  it("sees a namespace created, marked terminating and deleted an instant before each write", async () => {
    const ctx = context();
    const p = await started(namespaceLifecyclePlugin(ctx), start);
    const key = objectKey("", "namespaces", undefined, "team");
    expect((await refusal(() => p.admit!(cmCreate("team", "a"), signal)))?.code).toBe(404);
    await ctx.storage.create(key, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" }, status: { phase: "Active" } });
    expect(await refusal(() => p.admit!(cmCreate("team", "b"), signal))).toBeUndefined();
    await ctx.storage.update(key, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" }, status: { phase: "Terminating" } });
    const err = await refusal(() => p.admit!(cmCreate("team", "c"), signal));
    expect(err?.code).toBe(403);
    expect(err?.status.details?.causes).toEqual([{ reason: "NamespaceTerminating", message: "namespace team is being terminated", field: "metadata.namespace" }]);
    // Updates in a terminating namespace are allowed.
    expect(await refusal(() => p.admit!(cmCreate("team", "c", "UPDATE"), signal))).toBeUndefined();
    await ctx.storage.delete(key);
    expect((await refusal(() => p.admit!(cmCreate("team", "d"), signal)))?.code).toBe(404);
    await p.stop?.();
  });
});

describe("NamespaceLifecycle (started)", () => {
  it("answers a write into an existing namespace synchronously, and reads storage again once stopped", async () => {
    const ctx = context();
    await ctx.storage.create(objectKey("", "namespaces", undefined, "team"), { metadata: { name: "team" } });
    const p = namespaceLifecyclePlugin(ctx);
    await p.start!();
    expect(p.admit!(cmCreate("team", "a"), signal)).toBeUndefined();
    await p.stop!();
    const pending = p.admit!(cmCreate("team", "a"), signal);
    expect(pending).toBeInstanceOf(Promise);
    await pending;
  });
});

describe.each(modes)("ResourceQuota ($mode)", ({ start }) => {
  it("charges a write made an instant after the namespace's first quota is created", async () => {
    const ctx = context();
    const p = await started(resourceQuotaPlugin(ctx), start);
    expect(await refusal(() => p.validate!(cmCreate("team", "free"), signal))).toBeUndefined();
    const key = objectKey("", "resourcequotas", "team", "q");
    await ctx.storage.create(key, { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q", namespace: "team" }, spec: { hard: { configmaps: "1" } } });
    expect(await refusal(() => p.validate!(cmCreate("team", "one"), signal))).toBeUndefined();
    expect((await ctx.storage.get(key))?.object.status).toEqual({ hard: { configmaps: "1" }, used: { configmaps: "1" } });
    // Another namespace is not charged.
    expect(await refusal(() => p.validate!(cmCreate("other", "x"), signal))).toBeUndefined();
    // The quota is full (status.used says 1 of 1): the next create is refused.
    const err = await refusal(() => p.validate!(cmCreate("team", "two"), signal));
    expect(err?.message).toBe('configmaps "two" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1');
    // Once the quota is gone, nothing is charged or refused.
    await ctx.storage.delete(key);
    expect(await refusal(() => p.validate!(cmCreate("team", "three"), signal))).toBeUndefined();
    await p.stop?.();
  });
});

describe("ResourceQuota (started)", () => {
  it("answers a write into a namespace without quotas synchronously", async () => {
    const ctx = context();
    await ctx.storage.create(objectKey("", "resourcequotas", "other", "q"), { metadata: { name: "q", namespace: "other" }, spec: { hard: { pods: "1" } } });
    const p = resourceQuotaPlugin(ctx);
    await p.start!();
    expect(p.validate!(cmCreate("team", "a"), signal)).toBeUndefined();
    await p.stop!();
  });
});

const group = "admissionregistration.k8s.io";
const cmRules = { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] };

describe.each(modes)("ValidatingAdmissionPolicy ($mode)", ({ start }) => {
  it("applies a binding stored an instant before the write, and none once it is deleted", async () => {
    const ctx = context();
    const p = await started(validatingAdmissionPolicyPlugin(ctx), start);
    await ctx.storage.create(objectKey(group, "validatingadmissionpolicies", undefined, "no-b"), {
      apiVersion: `${group}/v1`,
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "no-b", generation: 1 },
      spec: { matchConstraints: cmRules, validations: [{ expression: "object.metadata.name != 'b'", message: "not b" }] },
    });
    // A policy without a binding applies to nothing.
    expect(await refusal(() => p.validate!(cmCreate("team", "b"), signal))).toBeUndefined();
    const bkey = objectKey(group, "validatingadmissionpolicybindings", undefined, "no-b-binding");
    await ctx.storage.create(bkey, { apiVersion: `${group}/v1`, kind: "ValidatingAdmissionPolicyBinding", metadata: { name: "no-b-binding" }, spec: { policyName: "no-b", validationActions: ["Deny"] } });
    const err = await refusal(() => p.validate!(cmCreate("team", "b"), signal));
    expect(err?.message).toBe("configmaps \"b\" is forbidden: ValidatingAdmissionPolicy 'no-b' with binding 'no-b-binding' denied request: not b");
    await ctx.storage.delete(bkey);
    expect(await refusal(() => p.validate!(cmCreate("team", "b"), signal))).toBeUndefined();
    await p.stop?.();
  });
});

describe.each(modes)("MutatingAdmissionPolicy ($mode)", ({ start }) => {
  it("applies a binding stored an instant before the write", async () => {
    const ctx = context();
    const p = await started(mutatingAdmissionPolicyPlugin(ctx), start);
    const a0 = cmCreate("team", "x");
    expect(await refusal(() => p.admit!(a0, signal))).toBeUndefined();
    expect(a0.object?.metadata?.labels).toBeUndefined();
    await ctx.storage.create(objectKey(group, "mutatingadmissionpolicies", undefined, "label"), {
      apiVersion: `${group}/v1`,
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "label", generation: 1 },
      spec: {
        matchConstraints: cmRules,
        mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: `[JSONPatch{op: "add", path: "/metadata/labels", value: {"seen": "yes"}}]` } }],
      },
    });
    await ctx.storage.create(objectKey(group, "mutatingadmissionpolicybindings", undefined, "label-b"), {
      apiVersion: `${group}/v1`,
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: "label-b" },
      spec: { policyName: "label" },
    });
    const a = cmCreate("team", "y");
    expect(await refusal(() => p.admit!(a, signal))).toBeUndefined();
    expect(a.object?.metadata?.labels).toEqual({ seen: "yes" });
    await p.stop?.();
  });
});

describe("policy plugins (started)", () => {
  it("answer a write without bindings synchronously", async () => {
    const ctx = context();
    const v = validatingAdmissionPolicyPlugin(ctx);
    const m = mutatingAdmissionPolicyPlugin(ctx);
    await v.start!();
    await m.start!();
    expect(v.validate!(cmCreate("team", "a"), signal)).toBeUndefined();
    expect(m.admit!(cmCreate("team", "a"), signal)).toBeUndefined();
    await v.stop!();
    await m.stop!();
  });
});
