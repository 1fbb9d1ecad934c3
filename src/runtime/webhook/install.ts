/**
 * Installs the webhook configurations of a WebhookServer on a cluster — what kubebuilder's
 * config/webhook manifests plus cert-manager's CA injection do in a real deployment, and what
 * envtest does for tests: one MutatingWebhookConfiguration and one ValidatingWebhookConfiguration
 * with a webhook per registered handler (rules from the handler's kind and resource, the
 * server's caBundle), and, for the CRDs named, `spec.conversion` switched to the server's
 * /convert. By default the configurations point at the server's own address
 * (`https://127.0.0.1:<port><path>`, envtest's rewrite); `service` points them at a Service
 * instead (with kubeloop, an ExternalName Service reaches a host process).
 *
 * A controller's webhook test is then: start the control plane, start the manager with the
 * server, `await installWebhookConfigurations(client, server)`, apply an object, see it
 * defaulted or refused.
 *
 * Writes are server-side applies (field manager `kubeloop-webhook-installer`, forced), so
 * installing again updates in place.
 */
import { builtin } from "../../client/typed.js";
import type { ResourceClientFactory, ResourceDescriptor } from "../../client/interfaces.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CONVERSION_PATH, type RegisteredAdmissionWebhook, type WebhookServer } from "./server.js";

export const mutatingWebhookConfigurations: ResourceDescriptor = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  resource: "mutatingwebhookconfigurations",
  kind: "MutatingWebhookConfiguration",
  namespaced: false,
};
export const validatingWebhookConfigurations: ResourceDescriptor = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  resource: "validatingwebhookconfigurations",
  kind: "ValidatingWebhookConfiguration",
  namespaced: false,
};

const FIELD_MANAGER = "kubeloop-webhook-installer";

export interface InstallWebhooksOptions {
  /** Base of the configurations' names: `<name>-mutating` / `<name>-validating` (default "kubeloop-webhooks"). */
  name?: string;
  /** Reach the server through this Service instead of its URL. */
  service?: { namespace: string; name: string; port?: number };
  /** Default: the server's own (generated or ca.crt) CA bundle. */
  caBundle?: string;
  /** CRDs (by name) whose conversion goes to the server's /convert. */
  conversionCRDs?: readonly string[];
  signal?: AbortSignal;
}

export interface InstalledWebhooks {
  mutating?: string;
  validating?: string;
  crds: string[];
}

/** The default webhook name: `m<kind>-<version>.<group>` (core: `<group>` is core.k8s.io). */
export function defaultWebhookName(w: RegisteredAdmissionWebhook): string {
  const t = w.target;
  return `${w.type === "mutating" ? "m" : "v"}${t.kind.toLowerCase()}-${t.version}.${t.group || "core.k8s.io"}`;
}

/** The webhook configuration objects for the server's handlers (without applying them). */
export function webhookConfigurations(server: WebhookServer, opts: InstallWebhooksOptions = {}): { mutating?: KubeObject; validating?: KubeObject } {
  const base = opts.name ?? "kubeloop-webhooks";
  const caBundle = opts.caBundle ?? server.caBundle;
  const clientConfig = (path: string) => {
    const cc: Record<string, unknown> = opts.service
      ? { service: { namespace: opts.service.namespace, name: opts.service.name, path, port: opts.service.port ?? 443 } }
      : { url: `${requireURL(server)}${path}` };
    if (caBundle) cc.caBundle = caBundle;
    return cc;
  };
  const out: { mutating?: KubeObject; validating?: KubeObject } = {};
  for (const type of ["mutating", "validating"] as const) {
    const hooks = server.admissionWebhooks().filter((w) => w.type === type);
    if (hooks.length === 0) continue;
    const desc = type === "mutating" ? mutatingWebhookConfigurations : validatingWebhookConfigurations;
    out[type] = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: desc.kind,
      metadata: { name: `${base}-${type}` },
      webhooks: hooks.map((w) => {
        if (!w.target.resource) throw new Error(`the ${type} webhook for ${w.target.kind} needs target.resource (the plural, e.g. a ResourceDescriptor) to be installed`);
        const o = w.options;
        return {
          name: o.name ?? defaultWebhookName(w),
          admissionReviewVersions: ["v1"],
          clientConfig: clientConfig(w.path),
          rules: [{ operations: o.operations ?? ["CREATE", "UPDATE"], apiGroups: [w.target.group], apiVersions: [w.target.version], resources: [w.target.resource] }],
          sideEffects: o.sideEffects ?? "None",
          failurePolicy: o.failurePolicy ?? "Fail",
          ...(o.matchPolicy ? { matchPolicy: o.matchPolicy } : {}),
          ...(o.timeoutSeconds !== undefined ? { timeoutSeconds: o.timeoutSeconds } : {}),
          ...(type === "mutating" && o.reinvocationPolicy ? { reinvocationPolicy: o.reinvocationPolicy } : {}),
          ...(o.namespaceSelector ? { namespaceSelector: o.namespaceSelector } : {}),
          ...(o.objectSelector ? { objectSelector: o.objectSelector } : {}),
          ...(o.matchConditions ? { matchConditions: o.matchConditions } : {}),
        };
      }),
    };
  }
  return out;
}

function requireURL(server: WebhookServer): string {
  const url = server.url;
  if (!url) throw new Error("the webhook server is not started: start it (or the manager) before installing its configurations");
  return url;
}

/** Applies the configurations (and CRD conversion settings) for `server`'s handlers. */
export async function installWebhookConfigurations(client: ResourceClientFactory, server: WebhookServer, opts: InstallWebhooksOptions = {}): Promise<InstalledWebhooks> {
  const configs = webhookConfigurations(server, opts);
  const result: InstalledWebhooks = { crds: [] };
  for (const type of ["mutating", "validating"] as const) {
    const obj = configs[type];
    if (!obj) continue;
    const desc = type === "mutating" ? mutatingWebhookConfigurations : validatingWebhookConfigurations;
    await client.resource(desc).patch(obj.metadata!.name!, "apply", obj, { fieldManager: FIELD_MANAGER, force: true, signal: opts.signal });
    result[type] = obj.metadata!.name!;
  }
  const caBundle = opts.caBundle ?? server.caBundle;
  for (const name of opts.conversionCRDs ?? []) {
    // A merge patch: the other form of address is removed (null), so exactly one remains.
    const clientConfig: Record<string, unknown> = opts.service
      ? { url: null, service: { namespace: opts.service.namespace, name: opts.service.name, path: CONVERSION_PATH, port: opts.service.port ?? 443 } }
      : { service: null, url: `${requireURL(server)}${CONVERSION_PATH}` };
    if (caBundle) clientConfig.caBundle = caBundle;
    await client
      .resource(builtin.customResourceDefinitions)
      .patch(name, "merge", { spec: { conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig } } } }, { fieldManager: FIELD_MANAGER, signal: opts.signal });
    result.crds.push(name);
  }
  return result;
}
