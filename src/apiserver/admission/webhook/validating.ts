/**
 * ValidatingAdmissionWebhook (k8s.io/apiserver/pkg/admission/plugin/webhook/validating): every
 * validating webhook that applies to the request is called at once, each with the object in
 * the version its rule matched; the request is refused when any webhook refuses it or (with
 * failurePolicy Fail) cannot be called. When several fail, the first in webhook order is the
 * answer (upstream returns the first to arrive; kubeloop picks deterministically).
 * A failure ignored under failurePolicy Ignore is recorded as the audit annotation
 * `failed-open.validating.webhook.admission.k8s.io/round_0_index_I`.
 */
import type { GroupVersionKind } from "../../../apimachinery/gvk.js";
import { gvkString } from "../../../apimachinery/gvk.js";
import type { AdmissionAttributes, AdmissionOperation, ValidatingAdmissionPlugin } from "../interfaces.js";
import type { Invocation } from "../request.js";
import { callHook, CallingWebhookError, failedClosed, recordResponse, rejection, requestTimedOut, shouldCallHook, versionedObjects, type DispatchDeps, type VersionedObjects } from "./dispatch.js";
import { isExemptAdmissionConfigurationResource } from "./rules.js";
import type { WebhookAccessor, WebhookSource } from "./source.js";

export const VALIDATING_PLUGIN_NAME = "ValidatingAdmissionWebhook";

export class ValidatingWebhookPlugin implements ValidatingAdmissionPlugin {
  readonly name = VALIDATING_PLUGIN_NAME;

  constructor(
    private readonly source: WebhookSource,
    private readonly deps: DispatchDeps,
  ) {}

  handles(_operation: AdmissionOperation): boolean {
    return true;
  }

  /** Done synchronously when no webhook is configured and the cache is current (the common case). */
  validate(a: AdmissionAttributes, signal: AbortSignal): Promise<void> | void {
    if (isExemptAdmissionConfigurationResource(a)) return;
    if (!this.deps.cache.current()) return this.deps.cache.synced().then(() => this.validateWith(a, this.source.webhooks(), signal));
    const hooks = this.source.webhooks();
    if (hooks.length === 0) return;
    return this.validateWith(a, hooks, signal);
  }

  private async validateWith(a: AdmissionAttributes, hooks: readonly WebhookAccessor[], signal: AbortSignal): Promise<void> {
    if (hooks.length === 0) return;
    const byKind = new Map<string, Promise<VersionedObjects>>();
    const versioned = (kind: GroupVersionKind) => {
      const k = gvkString(kind);
      let p = byKind.get(k);
      if (!p) {
        p = versionedObjects(a, undefined, kind, this.deps.objects, signal);
        byKind.set(k, p);
      }
      return p;
    };
    const relevant: { h: WebhookAccessor; inv: Invocation; index: number }[] = [];
    for (let i = 0; i < hooks.length; i++) {
      const inv = await shouldCallHook(hooks[i], a, this.deps, versioned);
      if (inv) relevant.push({ h: hooks[i], inv, index: i });
    }
    if (relevant.length === 0) return;
    if (signal.aborted) throw requestTimedOut();
    const outcomes = await Promise.all(
      relevant.map(async ({ h, inv, index }) => {
        try {
          const r = await callHook(h, inv, await versioned(inv.kind), a, this.deps.client, signal);
          recordResponse(h, a, r);
          return r.allowed ? undefined : rejection(h.name, r.result);
        } catch (err) {
          if (err instanceof CallingWebhookError) {
            if (h.failurePolicy === "Ignore") {
              a.auditAnnotations.set(`failed-open.validating.webhook.admission.k8s.io/round_0_index_${index}`, h.name);
              return undefined;
            }
            return failedClosed(err);
          }
          return err;
        }
      }),
    );
    const first = outcomes.find((o) => o !== undefined);
    if (first !== undefined) throw first;
  }
}
