/**
 * The webhooks of the stored Mutating/ValidatingWebhookConfigurations, read from the server's
 * watch-fed StorageCache (upstream's configuration managers over shared informers), in
 * upstream's order: configurations sorted by name, webhooks in their configuration's order.
 *
 * Each webhook becomes an accessor with its selectors parsed and its match conditions compiled
 * once; accessors are kept per stored configuration object (objects in the cache are immutable
 * and replaced on change, so identity tells a changed configuration), and the list is rebuilt
 * only when a configuration changed. A webhook's uid is `<configuration>/<webhook>/<n>` (n counts
 * repeats of a name within the configuration), which reinvocation tracks.
 */
import { everything, labelSelectorAsSelector, type Selector } from "../../../apimachinery/labels.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import type { LabelSelector } from "../../../apimachinery/api/meta/v1.js";
import type { StorageCache } from "../../storage/cache.js";
import type { WebhookClientConfig } from "../../webhook/client.js";
import { mutatingWebhookConfigurationsPrefix, validatingWebhookConfigurationsPrefix } from "../../webhook/index.js";
import { MatchConditions } from "./matchconditions.js";

export type WebhookFlavor = "mutating" | "validating";


export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

/** A webhook, ready to match and call. */
export interface WebhookAccessor {
  readonly uid: string;
  readonly flavor: WebhookFlavor;
  readonly configurationName: string;
  readonly name: string;
  readonly clientConfig: WebhookClientConfig;
  readonly rules: readonly WebhookRule[];
  readonly failurePolicy: "Fail" | "Ignore";
  readonly matchPolicy: "Equivalent" | "Exact";
  /** A selector, or the error parsing it (answered as an internal error when the webhook applies). */
  readonly namespaceSelector: Selector | Error;
  readonly objectSelector: Selector | Error;
  readonly sideEffects: string;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  readonly reinvocationPolicy: "Never" | "IfNeeded";
  readonly matchConditions: MatchConditions;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const text = (v: unknown, d = ""): string => (typeof v === "string" ? v : d);

function selector(v: unknown): Selector | Error {
  if (v === undefined || v === null) return everything();
  try {
    return labelSelectorAsSelector(v as LabelSelector);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function clientConfigOf(v: unknown): WebhookClientConfig {
  const cc = rec(v);
  const out: WebhookClientConfig = {};
  if (typeof cc.url === "string") out.url = cc.url;
  if (cc.service !== undefined) {
    const s = rec(cc.service);
    out.service = { namespace: text(s.namespace), name: text(s.name), port: typeof s.port === "number" ? s.port : 443 };
    if (typeof s.path === "string") out.service.path = s.path;
  }
  if (typeof cc.caBundle === "string") out.caBundle = cc.caBundle;
  return out;
}

/** The accessors of one configuration object. */
export function accessorsOf(config: KubeObject, flavor: WebhookFlavor): WebhookAccessor[] {
  const configurationName = config.metadata?.name ?? "";
  const seen = new Map<string, number>();
  const hooks = Array.isArray(config.webhooks) ? config.webhooks : [];
  return hooks.map((raw) => {
    const h = rec(raw);
    const name = text(h.name);
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    const failurePolicy = h.failurePolicy === "Ignore" ? "Ignore" : "Fail";
    return {
      uid: `${configurationName}/${name}/${n}`,
      flavor,
      configurationName,
      name,
      clientConfig: clientConfigOf(h.clientConfig),
      rules: (Array.isArray(h.rules) ? h.rules : []).map((r) => {
        const rr = rec(r);
        return { operations: strings(rr.operations), apiGroups: strings(rr.apiGroups), apiVersions: strings(rr.apiVersions), resources: strings(rr.resources), scope: text(rr.scope, "*") };
      }),
      failurePolicy,
      matchPolicy: h.matchPolicy === "Exact" ? "Exact" : "Equivalent",
      namespaceSelector: selector(h.namespaceSelector),
      objectSelector: selector(h.objectSelector),
      sideEffects: text(h.sideEffects),
      timeoutSeconds: typeof h.timeoutSeconds === "number" ? h.timeoutSeconds : 10,
      admissionReviewVersions: strings(h.admissionReviewVersions),
      reinvocationPolicy: h.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
      matchConditions: new MatchConditions(
        (Array.isArray(h.matchConditions) ? h.matchConditions : []).map((c) => ({ name: text(rec(c).name), expression: text(rec(c).expression) })),
        failurePolicy,
      ),
    } satisfies WebhookAccessor;
  });
}

/** The current webhooks of one flavor. */
export class WebhookSource {
  private readonly perConfig = new WeakMap<KubeObject, WebhookAccessor[]>();
  private built: { version: number; hooks: WebhookAccessor[] } | undefined;
  private readonly prefix: string;

  constructor(
    private readonly cache: StorageCache,
    readonly flavor: WebhookFlavor,
  ) {
    this.prefix = flavor === "mutating" ? mutatingWebhookConfigurationsPrefix : validatingWebhookConfigurationsPrefix;
  }

  webhooks(): readonly WebhookAccessor[] {
    const version = this.cache.version(this.prefix);
    if (this.built?.version === version) return this.built.hooks;
    const configs = this.cache.list(this.prefix).sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1));
    const hooks: WebhookAccessor[] = [];
    for (const c of configs) {
      let acc = this.perConfig.get(c);
      if (!acc) {
        acc = accessorsOf(c, this.flavor);
        this.perConfig.set(c, acc);
      }
      hooks.push(...acc);
    }
    this.built = { version, hooks };
    return hooks;
  }
}
