/**
 * CRD conversion webhooks (apiextensions-apiserver pkg/apiserver/conversion webhook_converter):
 * custom resources of a CRD with `spec.conversion.strategy: Webhook` change version through a
 * ConversionReview sent to `spec.conversion.webhook.clientConfig`, in the first of
 * `conversionReviewVersions` the server speaks (v1, v1beta1).
 *
 * Objects already in the desired version are not sent. The answer is checked as upstream does:
 * v1 must be apiextensions.k8s.io/v1 ConversionReview with the request's uid; the result must be
 * Success (else its message is the error); one converted object per object sent, each in the
 * desired version with the same kind, name, namespace and uid. The converted object keeps the
 * original's metadata except labels and annotations, which the webhook may change (validated).
 *
 * Every failure is `conversion webhook for <group/version, Kind=kind> failed: <why>` (or
 * `... returned invalid ...`), answered by the API server as a 500 with that message.
 * Calls time out after 30 s, as upstream's webhook client does.
 */
import { randomUUID } from "node:crypto";
import { StatusError } from "../../apimachinery/errors.js";
import { aggregateMessage } from "../../apimachinery/fielderrors.js";
import { gvkOf, gvkString } from "../../apimachinery/gvk.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { validateAnnotations, validateLabels } from "../registry/meta.js";
import { WebhookConfigError, WebhookRequestError, type WebhookClient, type WebhookClientConfig } from "../webhook/client.js";
import { isObject } from "./schema.js";

export const CONVERSION_TIMEOUT_MS = 30_000;

/** What a served CRD with Webhook conversion needs to convert. */
export interface WebhookConversionConfig {
  crdName: string;
  clientConfig: WebhookClientConfig;
  conversionReviewVersions: readonly string[];
}

/** The conversion config of a CRD spec, when its strategy is Webhook. */
export function webhookConversionOf(crdName: string, spec: Record<string, unknown>): WebhookConversionConfig | undefined {
  const conv = isObject(spec.conversion) ? spec.conversion : undefined;
  if (!conv || conv.strategy !== "Webhook") return undefined;
  const webhook = isObject(conv.webhook) ? conv.webhook : {};
  const cc = isObject(webhook.clientConfig) ? webhook.clientConfig : {};
  const clientConfig: WebhookClientConfig = {};
  if (typeof cc.url === "string") clientConfig.url = cc.url;
  if (isObject(cc.service)) {
    const s = cc.service;
    clientConfig.service = { namespace: String(s.namespace ?? ""), name: String(s.name ?? ""), port: typeof s.port === "number" ? s.port : 443 };
    if (typeof s.path === "string") clientConfig.service.path = s.path;
  }
  if (typeof cc.caBundle === "string") clientConfig.caBundle = cc.caBundle;
  const versions = Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions.filter((v): v is string => typeof v === "string") : [];
  return { crdName, clientConfig, conversionReviewVersions: versions };
}

/** A conversion failure: the API server answers it as a 500 carrying this message. */
export class ConversionError extends StatusError {
  constructor(message: string) {
    super({ message, reason: "", code: 500 });
    this.name = "ConversionError";
  }
}

type Rec = Record<string, unknown>;

/** validateConvertedObject + restoreObjectMeta; returns the object to use or an error text. */
function adoptConverted(original: KubeObject, converted: unknown): KubeObject | string {
  if (!isObject(converted)) return "must be an object";
  const out = converted as KubeObject;
  const om = original.metadata ?? {};
  const cm: Rec = isObject(out.metadata) ? (out.metadata as Rec) : {};
  if (original.kind !== out.kind) return `must have the same kind: ${original.kind ?? ""} != ${String(out.kind ?? "")}`;
  if ((om.name ?? "") !== (cm.name ?? "")) return `must have the same name: ${om.name ?? ""} != ${String(cm.name ?? "")}`;
  if ((om.namespace ?? "") !== (cm.namespace ?? "")) return `must have the same namespace: ${om.namespace ?? ""} != ${String(cm.namespace ?? "")}`;
  if ((om.uid ?? "") !== (cm.uid ?? "")) return `must have the same UID: ${om.uid ?? ""} != ${String(cm.uid ?? "")}`;
  if (!isObject(out.metadata)) return "missing metadata in converted object";
  const meta: Rec = deepCopy(om) as Rec;
  for (const fld of ["labels", "annotations"] as const) {
    const v = cm[fld];
    if (v === undefined || v === null) {
      delete meta[fld];
      continue;
    }
    if (!isObject(v)) return `invalid metadata.${fld} of type ${Array.isArray(v) ? "[]interface {}" : typeof v} in converted object`;
    for (const [k, x] of Object.entries(v)) if (typeof x !== "string") return `metadata.${fld}[${k}] must be a string, but is ${typeof x} in converted object`;
    const map = v as Record<string, string>;
    const errs = fld === "labels" ? validateLabels(map, "metadata.labels") : validateAnnotations(map, "metadata.annotation");
    if (errs.length) return aggregateMessage(errs);
    meta[fld] = { ...map };
  }
  return { ...out, metadata: meta };
}

export class WebhookConverter {
  constructor(
    private readonly config: WebhookConversionConfig,
    private readonly client: WebhookClient,
  ) {}

  /** `objects` in `apiVersion` (objects already there are returned as they are). */
  async convert(objects: readonly KubeObject[], apiVersion: string, signal?: AbortSignal): Promise<KubeObject[]> {
    const pending = objects.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== apiVersion);
    const out = [...objects];
    if (pending.length === 0) return out;
    const gvk = gvkString(gvkOf(pending[0].o));
    const failed = (why: string) => new ConversionError(`conversion webhook for ${gvk} failed: ${why}`);
    const version = this.config.conversionReviewVersions.find((v) => v === "v1" || v === "v1beta1");
    if (!version) throw new ConversionError("no supported conversion review versions");
    const uid = randomUUID();
    const review = { kind: "ConversionReview", apiVersion: `apiextensions.k8s.io/${version}`, request: { uid, desiredAPIVersion: apiVersion, objects: pending.map((p) => p.o) } };
    let answer: unknown;
    try {
      answer = await this.client.post(this.config.clientConfig, review, { signal, timeoutMs: CONVERSION_TIMEOUT_MS });
    } catch (err) {
      if (err instanceof WebhookRequestError || err instanceof WebhookConfigError) throw failed(err.message);
      throw err;
    }
    const converted = this.responseObjects(answer, version, uid, failed);
    if (converted.length !== pending.length) throw new ConversionError(`conversion webhook for ${gvk} returned ${converted.length} objects, expected ${pending.length}`);
    const single = objects.length === 1;
    pending.forEach(({ o, i }, n) => {
      const c = converted[n];
      const invalid = (why: string) =>
        new ConversionError(single ? `conversion webhook for ${gvk} returned invalid object: ${why}` : `conversion webhook for ${gvk} returned invalid converted object at index ${n}: ${why}`);
      const cv = isObject(c) ? c : {};
      if (cv.apiVersion !== apiVersion) throw invalid(`invalid groupVersion (expected ${apiVersion}, received ${String(cv.apiVersion ?? "")})`);
      if (cv.kind !== o.kind) throw invalid(`invalid kind (expected ${o.kind ?? ""}, received ${String(cv.kind ?? "")})`);
      const adopted = adoptConverted(o, c);
      if (typeof adopted === "string") throw invalid(adopted);
      out[i] = adopted;
    });
    return out;
  }

  private responseObjects(answer: unknown, version: string, uid: string, failed: (why: string) => ConversionError): unknown[] {
    if (!isObject(answer)) throw failed("unrecognized response type");
    if (typeof answer.kind !== "string" || answer.kind === "") throw failed(`Object 'Kind' is missing in '${JSON.stringify(answer)}'`);
    if (version === "v1" && (answer.apiVersion !== "apiextensions.k8s.io/v1" || answer.kind !== "ConversionReview")) {
      throw failed(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${String(answer.apiVersion ?? "")}, Kind=${answer.kind}`);
    }
    const response = isObject(answer.response) ? answer.response : undefined;
    if (!response) throw failed("no response provided");
    if (version === "v1" && response.uid !== uid) throw failed(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof response.uid === "string" ? response.uid : "")}`);
    const result = isObject(response.result) ? response.result : {};
    if (result.status !== "Success") {
      if (typeof result.message === "string" && result.message !== "") throw failed(result.message);
      throw failed(`response.result.status was '${String(result.status ?? "")}', not 'Success'`);
    }
    return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  }
}
