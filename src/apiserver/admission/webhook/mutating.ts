/**
 * MutatingAdmissionWebhook (k8s.io/apiserver/pkg/admission/plugin/webhook/mutating): the
 * mutating webhooks that apply to a request are called one after another, in order; each sees
 * the object as the previous ones left it, in the version its rule matched. A JSONPatch answer
 * is applied to that object, the version's defaults re-applied, and the result handed on; after
 * the last webhook the object is converted back to the request's version.
 *
 * Reinvocation (reinvocationPolicy IfNeeded): a webhook that changed the object asks the chain
 * for a second round; in it only IfNeeded webhooks already invoked before the change are
 * called again (all of them when another plugin changed the object since the last webhook
 * ran), and a webhook skipped in the first round is not called for the first time.
 *
 * Audit annotations, as upstream: `mutation.webhook.admission.k8s.io/round_R_index_I` (whether
 * the webhook changed the object), `patch.webhook.admission.k8s.io/round_R_index_I` (the patch),
 * `failed-open.mutation.webhook.admission.k8s.io/round_R_index_I` (failurePolicy Ignore took a
 * failure), and the webhook's own as `<webhook name>/<key>`.
 */
import { StatusError } from "../../../apimachinery/errors.js";
import { semanticEqual, deepCopy } from "../../../apimachinery/deepcopy.js";
import { applyJsonPatch, isPatchError } from "../../../apimachinery/patch/index.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import type { AdmissionAttributes, AdmissionOperation, MutatingAdmissionPlugin } from "../interfaces.js";
import { reinvocationContext, reinvocationValue } from "../reinvocation.js";
import {
  callHook,
  CallingWebhookError,
  failedClosed,
  recordResponse,
  rejection,
  requestTimedOut,
  shouldCallHook,
  versionedObjects,
  type DispatchDeps,
  type VersionedObjects,
} from "./dispatch.js";
import type { VerifiedResponse } from "./review.js";
import { isExemptAdmissionConfigurationResource } from "./rules.js";
import type { WebhookAccessor, WebhookSource } from "./source.js";

export const MUTATING_PLUGIN_NAME = "MutatingAdmissionWebhook";

/** The webhook plugin's reinvocation state of one request. */
interface WebhookReinvokeState {
  lastOutput: KubeObject | undefined;
  previouslyInvoked: Set<string>;
  reinvoke: Set<string>;
}

function requireReinvokingPreviouslyInvoked(s: WebhookReinvokeState): void {
  for (const uid of s.previouslyInvoked) s.reinvoke.add(uid);
  s.previouslyInvoked = new Set();
}

/** Go's json.Marshal of a decoded jsonpatch.Patch: each operation's keys sorted. */
function sortedPatch(ops: unknown): unknown {
  if (!Array.isArray(ops)) return ops;
  return ops.map((op) => {
    if (typeof op !== "object" || op === null) return op;
    const o = op as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  });
}

export class MutatingWebhookPlugin implements MutatingAdmissionPlugin {
  readonly name = MUTATING_PLUGIN_NAME;

  constructor(
    private readonly source: WebhookSource,
    private readonly deps: DispatchDeps,
  ) {}

  handles(_operation: AdmissionOperation): boolean {
    return true;
  }

  /** Done synchronously when no webhook is configured and the cache is current (the common case). */
  admit(a: AdmissionAttributes, signal: AbortSignal): Promise<void> | void {
    if (isExemptAdmissionConfigurationResource(a)) return;
    if (!this.deps.cache.current()) return this.deps.cache.synced().then(() => this.admitWith(a, this.source.webhooks(), signal));
    const hooks = this.source.webhooks();
    if (hooks.length === 0) return;
    return this.admitWith(a, hooks, signal);
  }

  private async admitWith(a: AdmissionAttributes, hooks: readonly WebhookAccessor[], signal: AbortSignal): Promise<void> {
    if (hooks.length === 0) return;
    const rctx = reinvocationContext(a);
    const state = reinvocationValue<WebhookReinvokeState>(rctx, MUTATING_PLUGIN_NAME, () => ({ lastOutput: undefined, previouslyInvoked: new Set(), reinvoke: new Set() }));
    if (rctx.isReinvoke && !semanticEqual(state.lastOutput, a.object)) requireReinvokingPreviouslyInvoked(state);
    try {
      await this.dispatch(a, hooks, state, rctx.isReinvoke, () => (rctx.shouldReinvoke = true), signal);
    } finally {
      state.lastOutput = a.object === undefined ? undefined : deepCopy(a.object);
    }
  }

  private async dispatch(a: AdmissionAttributes, hooks: readonly WebhookAccessor[], state: WebhookReinvokeState, isReinvoke: boolean, askReinvoke: () => void, signal: AbortSignal): Promise<void> {
    let current: VersionedObjects | undefined;
    const versioned = async (kind: VersionedObjects["kind"]) => (current = await versionedObjects(a, current, kind, this.deps.objects, signal));
    const round = isReinvoke ? 1 : 0;
    for (let i = 0; i < hooks.length; i++) {
      const h = hooks[i];
      const inv = await shouldCallHook(h, a, this.deps, versioned);
      if (!inv) continue;
      if (isReinvoke && !state.reinvoke.has(h.uid)) continue;
      const v = await versioned(inv.kind);
      let changed = false;
      let failure: unknown;
      try {
        changed = await this.callOne(h, inv, v, a, round, i, signal);
      } catch (err) {
        failure = err;
      }
      if (changed) {
        requireReinvokingPreviouslyInvoked(state);
        askReinvoke();
      }
      if (h.reinvocationPolicy === "IfNeeded") state.previouslyInvoked.add(h.uid);
      if (failure === undefined) continue;
      if (failure instanceof CallingWebhookError) {
        if (h.failurePolicy === "Ignore") {
          a.auditAnnotations.set(`failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${i}`, h.name);
          if (signal.aborted) throw requestTimedOut();
          continue;
        }
        throw failedClosed(failure);
      }
      throw failure;
    }
    if (current?.dirty && current.object) {
      a.object = await this.deps.objects.convert(current.object, a.kind, signal);
    }
  }

  /** Calls one webhook and applies its patch to `v`; whether the object changed. */
  private async callOne(h: WebhookAccessor, inv: Parameters<typeof callHook>[1], v: VersionedObjects, a: AdmissionAttributes, round: number, index: number, signal: AbortSignal): Promise<boolean> {
    let changed = false;
    const annotate = () =>
      a.auditAnnotations.set(`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`, JSON.stringify({ configuration: h.configurationName, webhook: h.name, mutated: changed }));
    try {
      const r: VerifiedResponse = await callHook(h, inv, v, a, this.deps.client, signal);
      recordResponse(h, a, r);
      if (!r.allowed) throw rejection(h.name, r.result);
      if (!r.patch) return false;
      let ops: unknown;
      try {
        ops = JSON.parse(r.patch);
        if (!Array.isArray(ops)) throw new Error(`json: cannot unmarshal ${typeof ops === "object" ? "object" : typeof ops} into Go value of type jsonpatch.Patch`);
      } catch (err) {
        throw new CallingWebhookError(h.name, `received undecodable patch in webhook response: ${(err as Error).message}`, StatusError.serviceUnavailable("error decoding patch in webhook response"));
      }
      if (ops.length === 0) return false;
      if (!v.object) throw StatusError.internalError(new Error(`admission webhook ${JSON.stringify(h.name)} attempted to modify the object, which is not supported for this operation`));
      if (r.patchType !== "JSONPatch") throw new CallingWebhookError(h.name, `unsupported patch type ${JSON.stringify(r.patchType)}`, rejection(h.name, r.result));
      let patched: unknown;
      try {
        patched = applyJsonPatch(v.object, ops);
      } catch (err) {
        throw StatusError.internalError(isPatchError(err) ? new Error(err.message) : err);
      }
      if (typeof patched !== "object" || patched === null || Array.isArray(patched)) throw StatusError.internalError(new Error("the patched object is not a JSON object"));
      const next = patched as KubeObject;
      if (next.apiVersion !== v.object.apiVersion || next.kind !== v.object.kind) {
        throw StatusError.internalError(new Error(`admission webhook ${JSON.stringify(h.name)} changed the object's apiVersion/kind to ${String(next.apiVersion)}/${String(next.kind)}`));
      }
      changed = !semanticEqual(v.object, next);
      a.auditAnnotations.set(
        `patch.webhook.admission.k8s.io/round_${round}_index_${index}`,
        JSON.stringify({ configuration: h.configurationName, webhook: h.name, patch: sortedPatch(ops), patchType: "JSONPatch" }),
      );
      this.deps.objects.default(next, v.kind);
      v.object = next;
      v.dirty = true;
      return changed;
    } finally {
      annotate();
    }
  }
}

