/**
 * TEST-ONLY: a small admission chain attached to a running ApiServer, until the real chain is
 * wired into the store (another branch does that). It wraps every ResourceStore's write hooks —
 * including custom resources' stores as the CRD controller adds them — so that creates and
 * updates go through the given mutating plugins (with reinvocation) and then the validating
 * plugins, with the request's user, dry run flag and warnings.
 *
 * Differences from the real chain, acceptable for the webhook tests that use it: it runs from the
 * store's beforeCreate/beforeUpdate hooks, i.e. after the strategy's defaulting, preparation AND
 * validation, so what a mutating webhook changes is not re-validated by the strategy (the real
 * chain runs the mutating plugins before the strategy's validation, the validating plugins
 * after it); DELETE and CONNECT are not admitted; the plugins get an AbortSignal of their own.
 */
import type { KubeObject } from "../../src/apimachinery/types.js";
import type { ApiServer } from "../../src/apiserver/apiserver.js";
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from "../../src/apiserver/admission/interfaces.js";
import { admitWithReinvocation } from "../../src/apiserver/admission/reinvocation.js";
import type { ResourceHooks, WriteContext } from "../../src/apiserver/rest/context.js";
import type { ResourceStore } from "../../src/apiserver/rest/store.js";

type WithDeps = { deps: { hooks?: ResourceHooks } };

async function admit(store: ResourceStore, chain: AdmissionChain, operation: AdmissionOperation, obj: KubeObject, old: KubeObject | undefined, ctx: WriteContext): Promise<void> {
  const n = store.strategy.names;
  const sub = ctx.subresource ?? "";
  const a: AdmissionAttributes = {
    operation,
    kind: { group: n.group, version: n.version, kind: n.kind },
    resource: { group: n.group, version: n.version, resource: n.resource },
    subresource: sub,
    namespace: obj.metadata?.namespace ?? "",
    name: obj.metadata?.name ?? "",
    object: obj,
    oldObject: old,
    options: { apiVersion: "meta.k8s.io/v1", kind: operation === "CREATE" ? "CreateOptions" : "UpdateOptions", ...(ctx.fieldManager ? { fieldManager: ctx.fieldManager } : {}), ...(ctx.dryRun ? { dryRun: ["All"] } : {}) },
    dryRun: ctx.dryRun,
    userInfo: ctx.user ?? { username: "", groups: [] },
    warnings: ctx.warnings,
    auditAnnotations: new Map(),
  };
  const signal = new AbortController().signal;
  await admitWithReinvocation(chain.mutating, a, signal);
  if (a.object && a.object !== obj) {
    for (const k of Object.keys(obj)) delete obj[k];
    Object.assign(obj, a.object);
  }
  for (const p of chain.validating) if (p.handles(operation)) await p.validate({ ...a, object: obj }, signal);
}

function wrap(store: ResourceStore, chain: AdmissionChain, done: WeakSet<ResourceStore>): void {
  if (done.has(store)) return;
  done.add(store);
  const deps = (store as unknown as WithDeps).deps;
  const inner = deps.hooks;
  deps.hooks = {
    ...inner,
    beforeCreate: async (obj, ctx) => {
      const undo = await inner?.beforeCreate?.(obj, ctx);
      try {
        await admit(store, chain, "CREATE", obj, undefined, ctx);
      } catch (err) {
        undo?.();
        throw err;
      }
      return undo;
    },
    beforeUpdate: async (obj, old, ctx) => {
      const undo = await inner?.beforeUpdate?.(obj, old, ctx);
      try {
        await admit(store, chain, "UPDATE", obj, old, ctx);
      } catch (err) {
        undo?.();
        throw err;
      }
      return undo;
    },
  };
}

/**
 * Attaches `chain` to every store of `server`, now and as stores come; returns the detacher.
 * Does nothing when the server's own admission chain already runs both webhook plugins (once
 * the chain is wired into the store with them), so the tests then exercise the real chain.
 */
export function installTestAdmission(server: ApiServer, chain: AdmissionChain): () => void {
  const own = (server as unknown as { admission?: { names?: readonly string[] } }).admission?.names ?? [];
  if (own.includes("MutatingAdmissionWebhook") && own.includes("ValidatingAdmissionWebhook")) return () => {};
  const done = new WeakSet<ResourceStore>();
  const all = () => {
    for (const s of server.registry.all()) wrap(s, chain, done);
  };
  all();
  return server.registry.onChange(all);
}
