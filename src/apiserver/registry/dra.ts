/**
 * resource.k8s.io/v1 (Dynamic Resource Allocation): DeviceClasses, ResourceClaims (+status),
 * ResourceClaimTemplates and ResourceSlices, with upstream's defaults (resource/v1/defaults.go:
 * allocationMode ExactCount and count 1 for exact requests and subrequests) and the validation
 * users hit (pkg/apis/resource/validation): request names, exactly one of `exactly` /
 * `firstAvailable`, device class names, allocation modes and counts, selectors (a CEL selector
 * each, at most 10 KiB — not compiled here), constraints and configs that name existing
 * requests, opaque driver parameters (a JSON object ≤ 10 KiB), list sizes; claim and template
 * specs are immutable; slices need a driver, a pool (name, generation, resourceSliceCount) and
 * exactly one of nodeName / nodeSelector / allNodes / perDeviceNodeSelection, with unique
 * devices whose attributes hold exactly one value. Allocation results in claim status are
 * checked for request names, drivers, pools and devices, and stay immutable once set.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isCIdentifier, isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy, resourceNames } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateAnnotations, validateImmutableField, validateLabelName, validateLabels } from "./meta.js";
import { child, index, key } from "./path.js";
import { tolerationsOf } from "./runtimeclasses.js";
import { validateTolerations } from "./podvalidation.js";
import { validateCSIDriverName } from "./storage.js";
import { bool, fieldsOf, has, list, num, objAt, rec, records, str, stringMap, strings, text, type Obj } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

export const resourceGroup = "resource.k8s.io";

const DeviceRequestsMaxSize = 32;
const DeviceConstraintsMaxSize = 32;
const DeviceConfigMaxSize = 32;
const DeviceSelectorsMaxSize = 32;
const FirstAvailableDeviceRequestMaxSize = 8;
const CELSelectorExpressionMaxLength = 10 * 1024;
const OpaqueParametersMaxLength = 10 * 1024;
const ResourceClaimReservedForMaxSize = 256;
const AllocationResultsMaxSize = 32;
const ResourceSliceMaxDevices = 128;
const ResourceSliceMaxDevicesWithTaintsOrConsumesCounters = 64;
const ResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
const ResourceSliceMaxCounterSets = 8;
const DeviceMaxDomainLength = 63;
const DeviceMaxIDLength = 32;
const DeviceAttributeMaxValueLength = 64;
const DeviceTaintsMaxLength = 16;
const PoolNameMaxLength = 253;

const names = (kind: string, resource: string, namespaced: boolean) => resourceNames(resourceGroup, "v1", kind, { resource, namespaced });

const specOf = (o: KubeObject): Obj => rec(fieldsOf(o).spec) ?? {};

// ---- helpers -------------------------------------------------------------------------------

/** validateSlice: each item, then TooMany past `max`. */
function eachItem(items: Obj[], max: number, field: string, validate: (item: Obj, p: string) => FieldError[]): FieldError[] {
  const errs: FieldError[] = [];
  items.forEach((it, i) => errs.push(...validate(it, index(field, i))));
  if (max >= 0 && items.length > max) errs.push(fieldErrors.tooMany(field, items.length, max));
  return errs;
}

/** validateSet: validateSlice plus Duplicate for a repeated key. */
function eachUnique(items: Obj[], max: number, field: string, keyOf: (item: Obj) => string, validate: (item: Obj, p: string) => FieldError[]): FieldError[] {
  const errs = eachItem(items, max, field, validate);
  const seen = new Set<string>();
  items.forEach((it, i) => {
    const k = keyOf(it);
    if (seen.has(k)) errs.push(fieldErrors.duplicate(index(field, i), k));
    seen.add(k);
  });
  return errs;
}

function dnsLabel(v: string, field: string): FieldError[] {
  return isDNS1123Label(v).map((m) => fieldErrors.invalid(field, v, m));
}

function dnsSubdomain(v: string, field: string): FieldError[] {
  return isDNS1123Subdomain(v).map((m) => fieldErrors.invalid(field, v, m));
}

function validatePoolName(name: string, field: string): FieldError[] {
  if (name === "") return [fieldErrors.required(field, "")];
  const errs: FieldError[] = [];
  if (name.length > PoolNameMaxLength) errs.push(fieldErrors.tooLong(field, "", PoolNameMaxLength));
  for (const part of name.split("/")) errs.push(...dnsSubdomain(part, field));
  return errs;
}

function validateCIdentifierPart(id: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (id.length > DeviceMaxIDLength) errs.push(fieldErrors.tooLong(field, id, DeviceMaxIDLength));
  for (const m of isCIdentifier(id)) errs.push(fieldErrors.invalid(field, id, m));
  return errs;
}

/** A device attribute or capacity name: a C identifier, optionally prefixed by a domain and "/". */
function validateQualifiedName(name: string, field: string): FieldError[] {
  if (name === "") return [fieldErrors.required(field, "name required")];
  const parts = name.split("/");
  if (parts.length === 1) return validateCIdentifierPart(parts[0], field);
  if (parts.length === 2) {
    const errs: FieldError[] = [];
    if (parts[0].length === 0) errs.push(fieldErrors.required(field, "the domain must not be empty"));
    else {
      if (parts[0].length > DeviceMaxDomainLength) errs.push(fieldErrors.tooLong(field, parts[0], DeviceMaxDomainLength));
      errs.push(...dnsSubdomain(parts[0], field));
    }
    if (parts[1].length === 0) errs.push(fieldErrors.required(field, "the name must not be empty"));
    else errs.push(...validateCIdentifierPart(parts[1], field));
    return errs;
  }
  return [fieldErrors.invalid(field, name, "must be either a C identifier or a domain followed by a slash and a C identifier")];
}

function validateFullyQualifiedName(name: string, field: string): FieldError[] {
  const errs = validateQualifiedName(name, field);
  if (name !== "" && !name.includes("/")) errs.push(fieldErrors.invalid(field, name, "must include a domain"));
  return errs;
}

/** validateRawExtension: present, ≤ max on create, a JSON object. */
function validateParameters(v: unknown, field: string, stored: boolean): FieldError[] {
  if (v === undefined || v === null) return [fieldErrors.required(field, "")];
  if (!stored && JSON.stringify(v).length > OpaqueParametersMaxLength) return [fieldErrors.tooLong(field, "", OpaqueParametersMaxLength)];
  if (!rec(v)) return [fieldErrors.invalid(field, "<value omitted>", "must be a valid JSON object")];
  return [];
}

function validateDeviceConfiguration(config: Obj, field: string, stored: boolean): FieldError[] {
  const opaque = rec(config.opaque);
  if (!opaque) return [fieldErrors.required(child(field, "opaque"), "")];
  return [
    ...validateCSIDriverName(text(opaque.driver), child(field, "opaque", "driver")),
    ...validateParameters(opaque.parameters, child(field, "opaque", "parameters"), stored),
  ];
}

function validateSelectors(v: unknown, field: string): FieldError[] {
  return eachItem(records(v), DeviceSelectorsMaxSize, field, (sel, p) => {
    const cel = rec(sel.cel);
    if (!cel) return [fieldErrors.required(child(p, "cel"), "")];
    const expr = text(cel.expression);
    if (expr.length > CELSelectorExpressionMaxLength) return [fieldErrors.tooLong(child(p, "cel", "expression"), "", CELSelectorExpressionMaxLength)];
    if (expr.trim() === "") return [fieldErrors.required(child(p, "cel", "expression"), "")];
    return [];
  });
}

/** ValidateNodeSelector (core): at least one term, each requirement well formed. */
function validateNodeSelector(v: unknown, field: string): FieldError[] {
  const ns = rec(v) ?? {};
  const terms = records(ns.nodeSelectorTerms);
  if (terms.length === 0) return [fieldErrors.required(child(field, "nodeSelectorTerms"), "must have at least one node selector term")];
  const errs: FieldError[] = [];
  terms.forEach((t, i) => {
    const tp = index(child(field, "nodeSelectorTerms"), i);
    for (const kind of ["matchExpressions", "matchFields"]) {
      records(t[kind]).forEach((req, j) => {
        const p = index(child(tp, kind), j);
        const values = strings(req.values);
        switch (req.operator) {
          case "In":
          case "NotIn":
            if (values.length === 0) errs.push(fieldErrors.required(child(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
            break;
          case "Exists":
          case "DoesNotExist":
            if (values.length > 0) errs.push(fieldErrors.forbidden(child(p, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
            break;
          case "Gt":
          case "Lt":
            if (values.length !== 1) errs.push(fieldErrors.required(child(p, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
            break;
          default:
            errs.push(fieldErrors.invalid(child(p, "operator"), req.operator ?? "", "not a valid selector operator"));
        }
        if (kind === "matchExpressions") errs.push(...validateLabelName(text(req.key), child(p, "key")));
      });
    }
  });
  return errs;
}

// ---- DeviceClass ---------------------------------------------------------------------------

function validateDeviceClassSpec(spec: Obj, oldSpec: Obj | undefined): FieldError[] {
  const errs = validateSelectors(spec.selectors, "spec.selectors");
  const stored = oldSpec !== undefined && semanticEqual(spec.config, oldSpec.config);
  errs.push(...eachItem(records(spec.config), DeviceConfigMaxSize, "spec.config", (c, p) => validateDeviceConfiguration(c, p, stored)));
  const ern = str(spec.extendedResourceName);
  if (ern !== undefined && !isExtendedResourceName(ern)) errs.push(fieldErrors.invalid("spec.extendedResourceName", ern, "must be a valid extended resource name"));
  return errs;
}

/** IsExtendedResourceName: a qualified name with a domain outside kubernetes.io, not "requests."-prefixed. */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes("/") || name.startsWith("requests.")) return false;
  const domain = name.split("/")[0];
  if (domain === "kubernetes.io" || domain.endsWith(".kubernetes.io")) return false;
  return validateLabelName(`requests.${name}`, "x").length === 0;
}

export const deviceClassStrategy: ResourceStrategy = defineStrategy({
  names: names("DeviceClass", "deviceclasses", false),
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  validateCreate: (obj) => validateDeviceClassSpec(specOf(obj), undefined),
  validateUpdate: (obj, old) => validateDeviceClassSpec(specOf(obj), specOf(old)),
});

// ---- ResourceClaim -------------------------------------------------------------------------

export function defaultDeviceRequest(exact: Obj): void {
  if (!has(exact, "allocationMode") || exact.allocationMode === "") exact.allocationMode = "ExactCount";
  if (exact.allocationMode === "ExactCount" && !num(exact.count)) exact.count = 1;
}

/** SetDefaults for the device requests of a claim spec. */
export function defaultClaimSpec(spec: Obj): void {
  for (const r of records(rec(spec.devices)?.requests)) {
    const exact = rec(r.exactly);
    if (exact) defaultDeviceRequest(exact);
    for (const sub of records(r.firstAvailable)) defaultDeviceRequest(sub);
  }
}

/** Request names of a claim: name → subrequest names (undefined without firstAvailable). */
function requestNamesOf(devices: Obj): Map<string, Set<string> | undefined> {
  const out = new Map<string, Set<string> | undefined>();
  for (const r of records(devices.requests)) {
    const subs = records(r.firstAvailable);
    out.set(text(r.name), subs.length ? new Set(subs.map((s) => text(s.name))) : undefined);
  }
  return out;
}

function validateRequestNameRef(name: string, field: string, known: Map<string, Set<string> | undefined>): FieldError[] {
  const bad = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";
  const segments = name.split("/");
  if (segments.length > 2) return [fieldErrors.invalid(field, name, bad)];
  const errs: FieldError[] = [];
  for (const s of segments) errs.push(...dnsLabel(s, field));
  const found = known.has(segments[0]) && (segments.length === 1 || (known.get(segments[0])?.has(segments[1]) ?? false));
  if (!found) errs.push(fieldErrors.invalid(field, name, bad));
  return errs;
}

function validateAllocationMode(req: Obj, field: string): FieldError[] {
  const mode = req.allocationMode;
  const count = num(req.count) ?? 0;
  if (mode === "All") return count !== 0 ? [fieldErrors.invalid(child(field, "count"), count, "must not be specified when allocationMode is 'All'")] : [];
  if (mode === "ExactCount") return count <= 0 ? [fieldErrors.invalid(child(field, "count"), count, "must be greater than zero")] : [];
  return [fieldErrors.notSupported(child(field, "allocationMode"), mode ?? "", ["All", "ExactCount"])];
}

function validateDeviceClassRef(req: Obj, field: string): FieldError[] {
  const name = text(req.deviceClassName);
  if (name === "") return [fieldErrors.required(child(field, "deviceClassName"), "")];
  return dnsSubdomain(name, child(field, "deviceClassName"));
}

function validateExactRequest(req: Obj, field: string): FieldError[] {
  return [
    ...validateDeviceClassRef(req, field),
    ...validateSelectors(req.selectors, child(field, "selectors")),
    ...validateAllocationMode(req, field),
    ...validateTolerations(tolerationsOf(req.tolerations), child(field, "tolerations")),
  ];
}

function validateDeviceRequest(r: Obj, field: string): FieldError[] {
  const errs = dnsLabel(text(r.name), child(field, "name"));
  const firstAvailable = records(r.firstAvailable);
  const exactly = rec(r.exactly);
  const n = (firstAvailable.length > 0 ? 1 : 0) + (exactly ? 1 : 0);
  if (n === 0) errs.push(fieldErrors.required(field, "exactly one of `exactly` or `firstAvailable` is required"));
  else if (n > 1) errs.push(fieldErrors.invalid(field, null, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"));
  else if (exactly) errs.push(...validateExactRequest(exactly, child(field, "exactly")));
  else {
    errs.push(
      ...eachUnique(firstAvailable, FirstAvailableDeviceRequestMaxSize, child(field, "firstAvailable"), (s) => text(s.name), (s, p) => [
        ...dnsLabel(text(s.name), child(p, "name")),
        ...validateExactRequest(s, p),
      ]),
    );
  }
  return errs;
}

/** validateDeviceClaim at `field` (spec.devices of a claim, spec.spec.devices of a template). */
function validateDeviceClaim(devices: Obj, field: string, stored: boolean): FieldError[] {
  const known = requestNamesOf(devices);
  const errs = eachUnique(records(devices.requests), DeviceRequestsMaxSize, child(field, "requests"), (r) => text(r.name), validateDeviceRequest);
  const refs = (c: Obj, p: string) => {
    const e: FieldError[] = [];
    const names = strings(c.requests);
    const seen = new Set<string>();
    names.forEach((n, i) => {
      e.push(...validateRequestNameRef(n, index(child(p, "requests"), i), known));
      if (seen.has(n)) e.push(fieldErrors.duplicate(index(child(p, "requests"), i), n));
      seen.add(n);
    });
    if (names.length > DeviceRequestsMaxSize) e.push(fieldErrors.tooMany(child(p, "requests"), names.length, DeviceRequestsMaxSize));
    return e;
  };
  errs.push(
    ...eachItem(records(devices.constraints), DeviceConstraintsMaxSize, child(field, "constraints"), (c, p) => {
      const e = refs(c, p);
      const match = str(c.matchAttribute);
      const distinct = str(c.distinctAttribute);
      if (match !== undefined) e.push(...validateFullyQualifiedName(match, child(p, "matchAttribute")));
      else if (distinct !== undefined) e.push(...validateFullyQualifiedName(distinct, child(p, "distinctAttribute")));
      else e.push(fieldErrors.required(p, 'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'));
      return e;
    }),
  );
  errs.push(...eachItem(records(devices.config), DeviceConfigMaxSize, child(field, "config"), (c, p) => [...refs(c, p), ...validateDeviceConfiguration(c, p, stored)]));
  return errs;
}

function validateAllocation(allocation: Obj, known: Map<string, Set<string> | undefined>, field: string): FieldError[] {
  const devices = rec(allocation.devices) ?? {};
  const errs = eachItem(records(devices.results), AllocationResultsMaxSize, child(field, "devices", "results"), (r, p) => [
    ...validateRequestNameRef(text(r.request), child(p, "request"), known),
    ...validateCSIDriverName(text(r.driver), child(p, "driver")),
    ...validatePoolName(text(r.pool), child(p, "pool")),
    ...dnsLabel(text(r.device), child(p, "device")),
  ]);
  errs.push(
    ...eachItem(records(devices.config), 2 * DeviceConfigMaxSize, child(field, "devices", "config"), (c, p) => {
      const e: FieldError[] = [];
      const source = text(c.source);
      if (source === "") e.push(fieldErrors.required(child(p, "source"), ""));
      else if (source !== "FromClaim" && source !== "FromClass") e.push(fieldErrors.notSupported(child(p, "source"), source, ["FromClaim", "FromClass"]));
      strings(c.requests).forEach((n, i) => e.push(...validateRequestNameRef(n, index(child(p, "requests"), i), known)));
      e.push(...validateDeviceConfiguration(c, p, false));
      return e;
    }),
  );
  if (has(allocation, "nodeSelector")) errs.push(...validateNodeSelector(allocation.nodeSelector, child(field, "nodeSelector")));
  return errs;
}

function validateClaimStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const status = rec(fieldsOf(obj).status) ?? {};
  const oldStatus = rec(fieldsOf(old).status) ?? {};
  const known = requestNamesOf(rec(specOf(obj).devices) ?? {});
  const errs = eachUnique(records(status.reservedFor), ResourceClaimReservedForMaxSize, "status.reservedFor", (r) => text(r.uid), (r, p) => {
    const e: FieldError[] = [];
    if (text(r.resource) === "") e.push(fieldErrors.required(child(p, "resource"), ""));
    if (text(r.name) === "") e.push(fieldErrors.required(child(p, "name"), ""));
    if (text(r.uid) === "") e.push(fieldErrors.required(child(p, "uid"), ""));
    return e;
  });
  const allocation = rec(status.allocation);
  const oldAllocation = rec(oldStatus.allocation);
  if (records(status.reservedFor).length > 0) {
    if (!allocation) errs.push(fieldErrors.forbidden("status.reservedFor", "may not be specified when `allocated` is not set"));
    else if (obj.metadata?.deletionTimestamp) {
      const before = new Set(records(oldStatus.reservedFor).map((r) => JSON.stringify(r)));
      if (records(status.reservedFor).some((r) => !before.has(JSON.stringify(r)))) {
        errs.push(fieldErrors.forbidden("status.reservedFor", "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"));
      }
    }
  }
  if (oldAllocation && allocation) errs.push(...validateImmutableField(allocation, oldAllocation, "status.allocation"));
  else if (allocation) errs.push(...validateAllocation(allocation, known, "status.allocation"));
  return errs;
}

export const resourceClaimStrategy: ResourceStrategy = defineStrategy({
  names: names("ResourceClaim", "resourceclaims", true),
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  defaults: (obj) => defaultClaimSpec(objAt(fieldsOf(obj), "spec")),
  validateCreate: (obj) => validateDeviceClaim(rec(specOf(obj).devices) ?? {}, "spec.devices", false),
  // The spec is immutable: updates check only that.
  validateUpdate: (obj, old) => validateImmutableField(fieldsOf(obj).spec, fieldsOf(old).spec, "spec"),
  validateStatus: validateClaimStatus,
});

// ---- ResourceClaimTemplate -----------------------------------------------------------------

export const resourceClaimTemplateStrategy: ResourceStrategy = defineStrategy({
  names: names("ResourceClaimTemplate", "resourceclaimtemplates", true),
  nameFn: nameIsDNSSubdomain,
  defaults: (obj) => defaultClaimSpec(objAt(objAt(fieldsOf(obj), "spec"), "spec")),
  validateCreate(obj) {
    const spec = specOf(obj);
    const meta = rec(spec.metadata) ?? {};
    return [
      ...validateLabels(stringMap(meta.labels), "spec.metadata.labels"),
      ...validateAnnotations(stringMap(meta.annotations), "spec.metadata.annotations"),
      ...validateDeviceClaim(rec(rec(spec.spec)?.devices) ?? {}, "spec.spec.devices", false),
    ];
  },
  validateUpdate: (obj, old) => validateImmutableField(fieldsOf(obj).spec, fieldsOf(old).spec, "spec"),
});

// ---- ResourceSlice -------------------------------------------------------------------------

function validateAttribute(a: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  if (has(a, "bool")) n++;
  if (has(a, "int")) n++;
  if (has(a, "string")) {
    n++;
    if (text(a.string).length > DeviceAttributeMaxValueLength) errs.push(fieldErrors.tooLong(child(field, "string"), "", DeviceAttributeMaxValueLength));
  }
  if (has(a, "version")) {
    n++;
    const v = text(a.version);
    if (!/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$/.test(v)) {
      errs.push(fieldErrors.invalid(child(field, "version"), v, "must be a string compatible with semver.org spec 2.0.0"));
    }
    if (v.length > DeviceAttributeMaxValueLength) errs.push(fieldErrors.tooLong(child(field, "version"), "", DeviceAttributeMaxValueLength));
  }
  if (n === 0) errs.push(fieldErrors.invalid(field, "", "exactly one value must be specified"));
  else if (n > 1) errs.push(fieldErrors.invalid(field, a, "exactly one value must be specified"));
  return errs;
}

function validateDevice(d: Obj, field: string, perDevice: boolean): FieldError[] {
  const errs = dnsLabel(text(d.name), child(field, "name"));
  const attrs = rec(d.attributes) ?? {};
  const capacity = rec(d.capacity) ?? {};
  const total = Object.keys(attrs).length + Object.keys(capacity).length;
  if (total > ResourceSliceMaxAttributesAndCapacitiesPerDevice) {
    errs.push(fieldErrors.invalid(field, total, `the total number of attributes and capacities must not exceed ${ResourceSliceMaxAttributesAndCapacitiesPerDevice}`));
  }
  for (const [k, v] of Object.entries(attrs)) {
    errs.push(...validateQualifiedName(k, child(field, "attributes")));
    errs.push(...validateAttribute(rec(v) ?? {}, key(child(field, "attributes"), k)));
  }
  const multi = bool(d.allowMultipleAllocations) === true;
  for (const [k, v] of Object.entries(capacity)) {
    errs.push(...validateQualifiedName(k, child(field, "capacity")));
    if (!multi && has(rec(v), "requestPolicy")) errs.push(fieldErrors.forbidden(child(key(child(field, "capacity"), k), "requestPolicy"), "allowMultipleAllocations must be true"));
  }
  if (records(d.taints).length > DeviceTaintsMaxLength) errs.push(fieldErrors.tooMany(child(field, "taints"), records(d.taints).length, DeviceTaintsMaxLength));
  const selection = has(d, "nodeName") || has(d, "nodeSelector") || has(d, "allNodes");
  if (perDevice) {
    const set: string[] = [];
    const nodeName = str(d.nodeName);
    if (nodeName !== undefined) {
      if (nodeName.length) {
        set.push("`nodeName`");
        errs.push(...dnsSubdomain(nodeName, child(field, "nodeName")));
      } else errs.push(fieldErrors.invalid(child(field, "nodeName"), nodeName, "must not be empty"));
    }
    if (has(d, "nodeSelector")) {
      set.push("`nodeSelector`");
      errs.push(...validateNodeSelector(d.nodeSelector, child(field, "nodeSelector")));
    }
    if (has(d, "allNodes")) {
      if (d.allNodes === true) set.push("`allNodes`");
      else errs.push(fieldErrors.invalid(child(field, "allNodes"), d.allNodes, "must be either unset or set to true"));
    }
    const why = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec";
    if (set.length === 0) errs.push(fieldErrors.required(field, why));
    else if (set.length > 1) errs.push(fieldErrors.invalid(field, `{${set.join(", ")}}`, why));
  } else if (selection) {
    errs.push(fieldErrors.invalid(field, null, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"));
  }
  return errs;
}

export function validateResourceSliceSpec(spec: Obj, oldSpec: Obj | undefined): FieldError[] {
  const errs = validateCSIDriverName(text(spec.driver), "spec.driver");
  const pool = rec(spec.pool) ?? {};
  errs.push(...validatePoolName(text(pool.name), "spec.pool.name"));
  const count = num(pool.resourceSliceCount) ?? 0;
  if (count <= 0) errs.push(fieldErrors.invalid("spec.pool.resourceSliceCount", count, "must be greater than zero"));
  const gen = num(pool.generation) ?? 0;
  if (gen < 0) errs.push(fieldErrors.invalid("spec.pool.generation", gen, "must be greater than or equal to zero"));
  if (oldSpec) {
    errs.push(...validateImmutableField(rec(spec.pool)?.name, rec(oldSpec.pool)?.name, "spec.pool.name"));
    errs.push(...validateImmutableField(spec.driver, oldSpec.driver, "spec.driver"));
    errs.push(...validateImmutableField(spec.nodeName, oldSpec.nodeName, "spec.nodeName"));
  }
  const set: string[] = [];
  const nodeName = str(spec.nodeName);
  if (nodeName !== undefined) {
    if (nodeName !== "") {
      set.push("`nodeName`");
      errs.push(...dnsSubdomain(nodeName, "spec.nodeName"));
    } else errs.push(fieldErrors.invalid("spec.nodeName", nodeName, "must be either unset or set to a non-empty string"));
  }
  if (has(spec, "nodeSelector")) {
    set.push("`nodeSelector`");
    errs.push(...validateNodeSelector(spec.nodeSelector, "spec.nodeSelector"));
    const terms = list(rec(spec.nodeSelector)?.nodeSelectorTerms);
    if (terms.length !== 1) errs.push(fieldErrors.invalid("spec.nodeSelector.nodeSelectorTerms", terms, "must have exactly one node selector term"));
  }
  for (const f of ["allNodes", "perDeviceNodeSelection"] as const) {
    if (!has(spec, f)) continue;
    if (spec[f] === true) set.push(`\`${f}\``);
    else errs.push(fieldErrors.invalid(`spec.${f}`, spec[f], "must be either unset or set to true"));
  }
  const why = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";
  if (set.length === 0) errs.push(fieldErrors.required("spec", why));
  else if (set.length > 1) errs.push(fieldErrors.invalid("spec", `{${set.join(", ")}}`, `${why}, but multiple fields are set`));
  if (has(spec, "sharedCounters") && has(spec, "devices")) errs.push(fieldErrors.invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed"));
  const devices = records(spec.devices);
  const advanced = devices.some((d) => records(d.taints).length > 0 || records(d.consumesCounters).length > 0);
  const perDevice = spec.perDeviceNodeSelection === true;
  errs.push(...eachUnique(devices, advanced ? ResourceSliceMaxDevicesWithTaintsOrConsumesCounters : ResourceSliceMaxDevices, "spec.devices", (d) => text(d.name), (d, p) => validateDevice(d, p, perDevice)));
  errs.push(
    ...eachUnique(records(spec.sharedCounters), ResourceSliceMaxCounterSets, "spec.sharedCounters", (c) => text(c.name), (c, p) => {
      const e: FieldError[] = [];
      const name = text(c.name);
      if (name === "") e.push(fieldErrors.required(child(p, "name"), ""));
      else e.push(...dnsLabel(name, child(p, "name")));
      if (Object.keys(rec(c.counters) ?? {}).length === 0) e.push(fieldErrors.required(child(p, "counters"), ""));
      return e;
    }),
  );
  return errs;
}

export const resourceSliceStrategy: ResourceStrategy = defineStrategy({
  names: names("ResourceSlice", "resourceslices", false),
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  validateCreate: (obj) => validateResourceSliceSpec(specOf(obj), undefined),
  validateUpdate: (obj, old) => validateResourceSliceSpec(specOf(obj), specOf(old)),
  fields(obj) {
    const spec = specOf(obj);
    return { "spec.nodeName": text(spec.nodeName), "spec.driver": text(spec.driver) };
  },
});
