/**
 * Reinvocation of the mutating chain (k8s.io/apiserver/pkg/admission reinvocation.go): the
 * chain runs every mutating plugin once; when a plugin that supports reinvocation changed the
 * object and asked for it (a mutating webhook with `reinvocationPolicy: IfNeeded` was called
 * before a later change), the whole mutating chain runs once more, with `isReinvoke` set, and
 * plugins decide for themselves what to re-run (built-in plugins are idempotent and simply run
 * again; the webhook plugin re-calls only its IfNeeded webhooks invoked before the change).
 *
 * The context belongs to one request; plugins keep their own per-request state in it under
 * their name (`value`).
 */
import type { AdmissionAttributes, MutatingAdmissionPlugin } from "./interfaces.js";

export class ReinvocationContext {
  /** Set by the chain before the second round. */
  isReinvoke = false;
  /** Set by a plugin: run the mutating chain again. */
  shouldReinvoke = false;
  private readonly values = new Map<string, unknown>();

  /** The plugin's per-request state under `key`, created by `init` on first use. */
  value<T>(key: string, init: () => T): T {
    if (!this.values.has(key)) this.values.set(key, init());
    return this.values.get(key) as T;
  }
}

const contexts = new WeakMap<AdmissionAttributes, ReinvocationContext>();

/** The reinvocation context of a request (created on first use). */
export function reinvocationContext(attributes: AdmissionAttributes): ReinvocationContext {
  let c = contexts.get(attributes);
  if (!c) {
    c = new ReinvocationContext();
    contexts.set(attributes, c);
  }
  return c;
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
