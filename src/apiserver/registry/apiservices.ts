/**
 * apiregistration.k8s.io/v1 APIServices (+status), as kube-aggregator serves them
 * (pkg/apis/apiregistration/validation, pkg/registry/apiservice/strategy.go):
 * - the name must be `<version>.<group>` ("v1." for the core group);
 * - groupPriorityMinimum in (0, 20000], versionPriority in (0, 1000];
 * - a Local APIService (no spec.service) may not have a caBundle or insecureSkipTLSVerify and is
 *   Available at once; a service reference needs a namespace, a name and a valid port (default
 *   443), and not both insecureSkipTLSVerify and a caBundle;
 * - updates need metadata.resourceVersion (no unconditional updates); /status keeps the spec,
 *   labels, annotations, finalizers and owner references.
 * The registration of the Local APIServices of every served group/version and the availability
 * of service-backed ones live in core/apiservices.ts.
 */
import type { Clock } from "../../apimachinery/clock.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from "../../apimachinery/validation.js";
import type { ResourceHooks } from "../rest/context.js";
import { formatTime } from "../rest/metadata.js";
import { defineStrategy, metaOf } from "./define.js";
import { bool, fieldsOf, has, num, rec, records, str, text, type Obj } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

export const apiregistrationGroup = "apiregistration.k8s.io";

const spec = (o: KubeObject): Obj => rec(fieldsOf(o).spec) ?? {};

/** The condition a Local APIService gets (NewLocalAvailableAPIServiceCondition). */
export function localAvailableCondition(now: string): Obj {
  return { type: "Available", status: "True", lastTransitionTime: now, reason: "Local", message: "Local APIServices are always available" };
}

export function defaultAPIService(obj: KubeObject): void {
  const service = rec(spec(obj).service);
  if (service && !has(service, "port")) service.port = 443;
}

/** content.IsPathSegmentName. */
function pathSegmentErrors(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

export function validateAPIService(obj: KubeObject): FieldError[] {
  const s = spec(obj);
  const group = text(s.group);
  const version = text(s.version);
  const required = `${version}.${group}`;
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? "";
  if (name !== "") {
    const segment = pathSegmentErrors(name);
    const msgs = segment.length ? segment : name !== required ? [`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`] : [];
    for (const m of msgs) errs.push(fieldErrors.invalid("metadata.name", name, m));
  }
  if (group.length === 0 && version !== "v1") errs.push(fieldErrors.required("spec.group", "only v1 may have an empty group and it better be legacy kube"));
  if (group.length > 0) for (const m of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid("spec.group", group, m));
  for (const m of isDNS1035Label(version)) errs.push(fieldErrors.invalid("spec.version", version, m));
  const gpm = num(s.groupPriorityMinimum) ?? 0;
  if (gpm <= 0 || gpm > 20000) errs.push(fieldErrors.invalid("spec.groupPriorityMinimum", gpm, "must be positive and less than 20000"));
  const vp = num(s.versionPriority) ?? 0;
  if (vp <= 0 || vp > 1000) errs.push(fieldErrors.invalid("spec.versionPriority", vp, "must be positive and less than 1000"));
  const caBundle = str(s.caBundle) ?? "";
  const caBytes = Buffer.from(caBundle, "base64").length;
  const insecure = bool(s.insecureSkipTLSVerify) ?? false;
  const service = rec(s.service);
  if (!service) {
    if (caBytes !== 0) errs.push(fieldErrors.invalid("spec.caBundle", `${caBytes} bytes`, "local APIServices may not have a caBundle"));
    if (insecure) errs.push(fieldErrors.invalid("spec.insecureSkipTLSVerify", insecure, "local APIServices may not have insecureSkipTLSVerify"));
    return errs;
  }
  if (text(service.namespace) === "") errs.push(fieldErrors.required("spec.service.namespace", ""));
  if (text(service.name) === "") errs.push(fieldErrors.required("spec.service.name", ""));
  const port = num(service.port) ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(fieldErrors.invalid("spec.service.port", port, `port is not valid: ${portErrs.join(", ")}`));
  if (insecure && caBytes > 0) errs.push(fieldErrors.invalid("spec.insecureSkipTLSVerify", insecure, "may not be true if caBundle is present"));
  return errs;
}

function validateAPIServiceStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  records(rec(fieldsOf(obj).status)?.conditions).forEach((c, i) => {
    if (!["True", "False", "Unknown"].includes(String(c.status))) {
      errs.push(fieldErrors.notSupported(`status.conditions[${i}].status`, c.status ?? "", ["True", "False", "Unknown"]));
    }
  });
  return errs;
}

export const apiServiceStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: apiregistrationGroup,
    version: "v1",
    kind: "APIService",
    resource: "apiservices",
    singular: "apiservice",
    listKind: "APIServiceList",
    shortNames: [],
    categories: ["api-extensions"],
    namespaced: false,
  },
  subresources: { status: true },
  // The name rule is part of validateAPIService (it needs the spec).
  nameFn: () => [],
  allowUnconditionalUpdate: false,
  defaults: defaultAPIService,
  validateSpec: validateAPIService,
  prepareForStatusUpdate(obj, old) {
    const meta = metaOf(obj);
    const oldMeta = old.metadata ?? {};
    for (const k of ["labels", "annotations", "finalizers", "ownerReferences"] as const) {
      if (oldMeta[k] === undefined) delete meta[k];
      else (meta as Record<string, unknown>)[k] = structuredClone(oldMeta[k]);
    }
  },
  validateStatus: validateAPIServiceStatus,
});

/** Marks a new Local APIService Available (the strategy's PrepareForCreate, with the server's clock). */
export function apiServiceHooks(clock: Clock): ResourceHooks {
  return {
    beforeCreate(obj) {
      if (rec(spec(obj).service)) return;
      fieldsOf(obj).status = { conditions: [localAvailableCondition(formatTime(clock.now()))] };
    },
  };
}
