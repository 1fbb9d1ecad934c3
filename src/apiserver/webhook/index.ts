/**
 * The API server's webhook machinery, shared by admission webhooks and CRD conversion webhooks:
 * one watch-fed cache of what webhooks need (Services, Endpoints, EndpointSlices to resolve
 * `clientConfig.service`; Namespaces and the webhook configurations for admission's matching),
 * the service resolver over it, and the HTTPS client. Started and stopped with the server.
 */
import type { Clock } from "../../apimachinery/clock.js";
import { resourcePrefix } from "../rest/keys.js";
import { StorageCache } from "../storage/cache.js";
import type { Storage } from "../storage/interface.js";
import { WebhookClient } from "./client.js";
import { endpointSlicesPrefix, endpointsPrefix, ServiceResolver, servicesPrefix } from "./resolver.js";

export { WebhookClient, WebhookConfigError, WebhookRequestError, caBundlePEM, type WebhookClientConfig, type WebhookPostOptions } from "./client.js";
export { ServiceResolver, ServiceResolutionError, type ResolvedEndpoint } from "./resolver.js";

export const namespacesPrefix = resourcePrefix("", "namespaces");
export const mutatingWebhookConfigurationsPrefix = resourcePrefix("admissionregistration.k8s.io", "mutatingwebhookconfigurations");
export const validatingWebhookConfigurationsPrefix = resourcePrefix("admissionregistration.k8s.io", "validatingwebhookconfigurations");

export class Webhooks {
  readonly cache: StorageCache;
  readonly resolver: ServiceResolver;
  readonly client: WebhookClient;

  constructor(storage: Storage, opts: { clock?: Clock } = {}) {
    this.cache = new StorageCache(storage, [
      servicesPrefix,
      endpointsPrefix,
      endpointSlicesPrefix,
      namespacesPrefix,
      mutatingWebhookConfigurationsPrefix,
      validatingWebhookConfigurationsPrefix,
    ]);
    this.resolver = new ServiceResolver(this.cache);
    this.client = new WebhookClient({ resolver: this.resolver, clock: opts.clock });
  }

  start(): Promise<void> {
    return this.cache.start();
  }

  async stop(): Promise<void> {
    this.client.close();
    await this.cache.stop();
  }
}
