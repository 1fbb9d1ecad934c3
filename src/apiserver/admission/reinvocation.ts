/**
 * Reinvocation of the mutating chain (k8s.io/apiserver/pkg/admission reinvocation.go): the
 * chain runs every mutating plugin once; when a plugin that supports reinvocation changed the
 * object and asked for it (a mutating webhook with `reinvocationPolicy: IfNeeded` was called
 * before a later change), the whole mutating chain runs once more, with `isReinvoke` set, and
 * plugins decide for themselves what to re-run (built-in plugins are idempotent and simply run
 * again; the webhook plugin re-calls only its IfNeeded webhooks invoked before the change).
 *
 * The context belongs to one request and is the contract's `attributes.reinvocation`, which the
 * admission chain sets for its mutating pass; plugins keep their own per-request state in its
 * `values` under their name (`reinvocationValue`). For callers that run plugins without such a
 * chain (tests, `admitWithReinvocation`), a context is kept per attributes object instead.
 */
import type { AdmissionAttributes, MutatingAdmissionPlugin, ReinvocationContext } from "./interfaces.js";

const contexts = new WeakMap<AdmissionAttributes, ReinvocationContext>();

/** The reinvocation context of a request: the chain's, else one created on first use. */
export function reinvocationContext(attributes: AdmissionAttributes): ReinvocationContext {
  if (attributes.reinvocation) return attributes.reinvocation;
  let c = contexts.get(attributes);
  if (!c) {
    c = { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    contexts.set(attributes, c);
  }
  return c;
}

/** A plugin's per-request state under `key`, created by `init` on first use. */
export function reinvocationValue<T>(ctx: ReinvocationContext, key: string, init: () => T): T {
  if (!ctx.values.has(key)) ctx.values.set(key, init());
  return ctx.values.get(key) as T;
}

/**
 * Runs the mutating plugins that handle the operation in order, and once more when one asked
 * for reinvocation — what an admission chain does for the mutating phase.
 */
export async function admitWithReinvocation(plugins: readonly MutatingAdmissionPlugin[], attributes: AdmissionAttributes, signal: AbortSignal): Promise<void> {
  const ctx = reinvocationContext(attributes);
  const round = async () => {
    for (const p of plugins) if (p.handles(attributes.operation)) await p.admit(attributes, signal);
  };
  await round();
  if (ctx.shouldReinvoke) {
    ctx.isReinvoke = true;
    await round();
  }
}
