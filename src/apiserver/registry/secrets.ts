/**
 * core/v1 Secrets: `type` defaults to Opaque; `stringData` is merged into `data` (base64) and
 * dropped, as the v1 conversion does before anything else sees the object; data keys are config
 * keys, total size ≤ 1 MiB, type-specific required keys (service-account-token, dockercfg,
 * dockerconfigjson, basic-auth, ssh-auth, tls); `type` is immutable, and `immutable: true`
 * freezes the data. Selectable field: type.
 */
import type { Secret } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isConfigMapKey, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { base64DecodedLength, maxSecretSize } from "./configmaps.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateImmutableField } from "./meta.js";
import { key } from "./path.js";
import type { ResourceStrategy } from "./strategy.js";

type MutableSecret = { -readonly [K in keyof Secret]: Secret[K] };
const asSecret = (o: KubeObject) => o as unknown as MutableSecret;

export function defaultSecret(obj: KubeObject): void {
  const s = asSecret(obj);
  s.type ||= "Opaque";
}

/** Folds stringData into data (base64-encoded), as Convert_v1_Secret_To_core_Secret does. */
export function mergeStringData(obj: KubeObject): void {
  const s = asSecret(obj);
  if (!s.stringData) return;
  const data: Record<string, string> = { ...(s.data ?? {}) };
  for (const [k, v] of Object.entries(s.stringData)) data[k] = Buffer.from(String(v), "utf8").toString("base64");
  s.data = data;
  delete s.stringData;
}

function decoded(s: MutableSecret, k: string): Buffer | undefined {
  const v = s.data?.[k];
  return v === undefined ? undefined : Buffer.from(String(v), "base64");
}

export function validateSecretData(obj: KubeObject): FieldError[] {
  const s = asSecret(obj);
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(s.data ?? {})) {
    for (const msg of isConfigMapKey(k)) errs.push(fieldErrors.invalid(key("data", k), k, msg));
    total += base64DecodedLength(String(v));
  }
  if (total > maxSecretSize) errs.push(fieldErrors.tooLong("data", "", maxSecretSize));
  const has = (k: string) => s.data !== undefined && k in s.data;
  const jsonKey = (k: string) => {
    const b = decoded(s, k);
    if (b === undefined) {
      errs.push(fieldErrors.required(key("data", k), ""));
      return;
    }
    try {
      const parsed: unknown = JSON.parse(b.toString("utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("json: cannot unmarshal into map");
    } catch (e) {
      errs.push(fieldErrors.invalid(key("data", k), "<secret contents redacted>", (e as Error).message));
    }
  };
  switch (s.type ?? "") {
    case "kubernetes.io/service-account-token":
      if (!s.metadata?.annotations?.["kubernetes.io/service-account.name"]) {
        errs.push(fieldErrors.required(key("metadata.annotations", "kubernetes.io/service-account.name"), ""));
      }
      break;
    case "kubernetes.io/dockercfg":
      jsonKey(".dockercfg");
      break;
    case "kubernetes.io/dockerconfigjson":
      jsonKey(".dockerconfigjson");
      break;
    case "kubernetes.io/basic-auth":
      if (!has("username") && !has("password")) {
        errs.push(fieldErrors.required(key("data", "username"), ""));
        errs.push(fieldErrors.required(key("data", "password"), ""));
      }
      break;
    case "kubernetes.io/ssh-auth":
      if ((decoded(s, "ssh-privatekey")?.length ?? 0) === 0) errs.push(fieldErrors.required(key("data", "ssh-privatekey"), ""));
      break;
    case "kubernetes.io/tls":
      if (!has("tls.crt")) errs.push(fieldErrors.required(key("data", "tls.crt"), ""));
      if (!has("tls.key")) errs.push(fieldErrors.required(key("data", "tls.key"), ""));
      break;
  }
  return errs;
}

export function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = asSecret(obj);
  const o = asSecret(old);
  const errs = validateImmutableField(n.type ?? "", o.type ?? "", "type");
  if (o.immutable) {
    const msg = "field is immutable when `immutable` is set";
    if (!n.immutable) errs.push(fieldErrors.forbidden("immutable", msg));
    if (!semanticEqual(n.data, o.data)) errs.push(fieldErrors.forbidden("data", msg));
  }
  return errs;
}

export const secretStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Secret",
    resource: "secrets",
    singular: "secret",
    listKind: "SecretList",
    shortNames: [],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultSecret,
  prepareForCreate: mergeStringData,
  prepareForUpdate: (obj) => mergeStringData(obj),
  validateSpec: validateSecretData,
  updateChecksFirst: true,
  validateUpdate: validateSecretUpdate,
  fields: (obj) => ({ type: asSecret(obj).type ?? "" }),
});
