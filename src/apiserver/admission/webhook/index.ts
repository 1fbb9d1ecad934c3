/**
 * Admission webhooks: MutatingAdmissionWebhook and ValidatingAdmissionWebhook, built on the
 * server's webhook machinery (apiserver/webhook) and the kinds' object interfaces.
 *
 * In the chain (upstream's order): mutating — built-in plugins, MutatingAdmissionPolicy,
 * `mutating` (run through admitWithReinvocation, so IfNeeded webhooks are reinvoked);
 * validating — built-in plugins, ValidatingAdmissionPolicy, `validating`, ResourceQuota last.
 */
import type { Webhooks } from "../../webhook/index.js";
import type { ObjectInterfaces } from "../objects.js";
import { MutatingWebhookPlugin } from "./mutating.js";
import { WebhookSource } from "./source.js";
import { ValidatingWebhookPlugin } from "./validating.js";

export { MutatingWebhookPlugin, MUTATING_PLUGIN_NAME } from "./mutating.js";
export { ValidatingWebhookPlugin, VALIDATING_PLUGIN_NAME } from "./validating.js";
export { CallingWebhookError, rejection } from "./dispatch.js";
export { WebhookSource, accessorsOf, type WebhookAccessor, type WebhookFlavor, type WebhookRule } from "./source.js";

export interface WebhookAdmissionDeps {
  webhooks: Webhooks;
  objects: ObjectInterfaces;
}

export function webhookAdmissionPlugins(deps: WebhookAdmissionDeps): { mutating: MutatingWebhookPlugin; validating: ValidatingWebhookPlugin } {
  const dispatch = { cache: deps.webhooks.cache, client: deps.webhooks.client, objects: deps.objects };
  return {
    mutating: new MutatingWebhookPlugin(new WebhookSource(deps.webhooks.cache, "mutating"), dispatch),
    validating: new ValidatingWebhookPlugin(new WebhookSource(deps.webhooks.cache, "validating"), dispatch),
  };
}
