/**
 * Admission webhooks: MutatingAdmissionWebhook and ValidatingAdmissionWebhook, built on the
 * server's webhook machinery (apiserver/webhook) and the kinds' object interfaces.
 *
 * In the chain (upstream's order): mutating — built-in plugins, MutatingAdmissionPolicy,
 * `mutating` (IfNeeded webhooks are reinvoked through the chain's `attributes.reinvocation`);
 * validating — built-in plugins, ValidatingAdmissionPolicy, `validating`, ResourceQuota last.
 *
 * `webhookAdmissionRegistrations` gives them as named registrations (`{ name, create() }`) for a
 * chain that builds its plugins from registrations, e.g. in ApiServer's constructor:
 *   admissionPlugins: [...defaults, ...webhookAdmissionRegistrations({ webhooks: this.webhooks, objects: this.objectInterfaces })]
 * The webhook machinery (its cache and client) is started and stopped by the ApiServer itself.
 */
import type { Webhooks } from "../../webhook/index.js";
import type { ObjectInterfaces } from "../objects.js";
import { MUTATING_PLUGIN_NAME, MutatingWebhookPlugin } from "./mutating.js";
import { WebhookSource } from "./source.js";
import { VALIDATING_PLUGIN_NAME, ValidatingWebhookPlugin } from "./validating.js";

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

/** A plugin registration by upstream's plugin name, creating the plugin on demand (once). */
export interface WebhookAdmissionRegistration<P> {
  readonly name: string;
  create(): P;
}

/** MutatingAdmissionWebhook and ValidatingAdmissionWebhook as registrations sharing one dispatcher setup. */
export function webhookAdmissionRegistrations(deps: WebhookAdmissionDeps): [WebhookAdmissionRegistration<MutatingWebhookPlugin>, WebhookAdmissionRegistration<ValidatingWebhookPlugin>] {
  let plugins: ReturnType<typeof webhookAdmissionPlugins> | undefined;
  const get = () => (plugins ??= webhookAdmissionPlugins(deps));
  return [
    { name: MUTATING_PLUGIN_NAME, create: () => get().mutating },
    { name: VALIDATING_PLUGIN_NAME, create: () => get().validating },
  ];
}
