/**
 * Pod spec and pod template validation: the essential rules of pkg/apis/core/validation's
 * ValidatePodSpec / ValidatePodTemplateSpec / ValidatePodUpdate, with upstream's field paths and
 * messages. Covered: containers (name, image, ports, env, volume mounts, pull policy, termination
 * message policy, resources, probes' numbers, restartPolicy on regular containers), init
 * containers, ephemeral containers in templates, volumes (name, exactly one source), restart and
 * DNS policies, terminationGracePeriodSeconds, activeDeadlineSeconds, nodeSelector, node and
 * service account names, hostname/subdomain, tolerations, imagePullSecrets, host-network ports.
 * Not covered: security contexts in depth, affinity, topology spread, DNS config details,
 * resource claims, volume source internals, OS-specific rules.
 */
import type {
  Container,
  ContainerPort,
  EnvVar,
  PodSpec,
  PodTemplateSpec,
  Probe,
  Toleration,
  Volume,
} from "../../apimachinery/api/core/v1.js";
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import {
  inclusiveRangeError,
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
  nameIsDNSSubdomain,
} from "../../apimachinery/validation.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateAnnotations, validateLabelName, validateLabels, validateNonnegative } from "./meta.js";
import { child, index, key } from "./path.js";
import { volumeSources } from "./poddefaults.js";
import { quantityNanos } from "../../apimachinery/quantity.js";

const maxInt32 = 2147483647;

/** Sorted as upstream's sets.List: used in "supported values" lists. */
export const supportedPortProtocols = ["SCTP", "TCP", "UDP"];

/** ValidateDNS1123Label with a field path. */
export function validateDNS1123Label(value: string, field: string): FieldError[] {
  return isDNS1123Label(value).map((msg) => fieldErrors.invalid(field, value, msg));
}

export interface PodValidationOptions {
  /** The spec belongs to a Pod (not a template in another resource). */
  resourceIsPod: boolean;
}

function validateContainerPorts(ports: ContainerPort[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const p = index(field, i);
    if (port.name) {
      const msgs = isValidPortName(port.name);
      if (msgs.length > 0) for (const msg of msgs) errs.push(fieldErrors.invalid(child(p, "name"), port.name, msg));
      else if (names.has(port.name)) errs.push(fieldErrors.duplicate(child(p, "name"), port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(fieldErrors.required(child(p, "containerPort"), ""));
    else for (const msg of isValidPortNum(port.containerPort)) errs.push(fieldErrors.invalid(child(p, "containerPort"), port.containerPort, msg));
    if (port.hostPort) {
      for (const msg of isValidPortNum(port.hostPort)) errs.push(fieldErrors.invalid(child(p, "hostPort"), port.hostPort, msg));
    }
    if (!port.protocol) errs.push(fieldErrors.required(child(p, "protocol"), ""));
    else if (!supportedPortProtocols.includes(port.protocol)) {
      errs.push(fieldErrors.notSupported(child(p, "protocol"), port.protocol, supportedPortProtocols));
    }
  });
  return errs;
}

const relaxedEnvVarNameMsg = "a valid environment variable name must consist only of printable ASCII characters other than '='";

function validateEnv(env: EnvVar[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  (env ?? []).forEach((ev, i) => {
    const p = index(field, i);
    if (!ev.name) errs.push(fieldErrors.required(child(p, "name"), ""));
    else if ([...ev.name].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) > 0x7e || ch === "=")) {
      errs.push(fieldErrors.invalid(child(p, "name"), ev.name, relaxedEnvVarNameMsg));
    }
    if (ev.valueFrom) {
      const vf = ev.valueFrom as Record<string, unknown>;
      const n = ["fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"].filter((k) => vf[k] != null).length;
      const vp = child(p, "valueFrom");
      if (n === 0) errs.push(fieldErrors.invalid(vp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
      else if (n > 1) errs.push(fieldErrors.invalid(vp, "", "may not have more than one field specified at a time"));
      else if (ev.value) errs.push(fieldErrors.invalid(vp, "", "may not be specified when `value` is not empty"));
      if (ev.valueFrom.configMapKeyRef && !ev.valueFrom.configMapKeyRef.key) {
        errs.push(fieldErrors.required(child(vp, "configMapKeyRef", "key"), ""));
      }
      if (ev.valueFrom.secretKeyRef && !ev.valueFrom.secretKeyRef.key) {
        errs.push(fieldErrors.required(child(vp, "secretKeyRef", "key"), ""));
      }
      if (ev.valueFrom.fieldRef && !ev.valueFrom.fieldRef.fieldPath) {
        errs.push(fieldErrors.required(child(vp, "fieldRef", "fieldPath"), ""));
      }
    }
  });
  return errs;
}

function validateVolumeMounts(c: Container, volumes: Set<string>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const p = index(field, i);
    if (!m.name) errs.push(fieldErrors.required(child(p, "name"), ""));
    else if (!volumes.has(m.name)) errs.push(fieldErrors.notFound(child(p, "name"), m.name));
    if (!m.mountPath) errs.push(fieldErrors.required(child(p, "mountPath"), ""));
    else if (paths.has(m.mountPath)) errs.push(fieldErrors.invalid(child(p, "mountPath"), m.mountPath, "must be unique"));
    else paths.add(m.mountPath);
  });
  return errs;
}

const pullPolicies = ["Always", "IfNotPresent", "Never"];

function validateResources(c: Container, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const limits = c.resources?.limits ?? {};
  const requests = c.resources?.requests ?? {};
  for (const [kind, values] of [
    ["limits", limits],
    ["requests", requests],
  ] as const) {
    for (const [name, q] of Object.entries(values)) {
      const p = key(child(field, kind), name);
      const v = quantityNanos(String(q));
      if (v === undefined) errs.push(fieldErrors.invalid(p, String(q), "must be a valid resource quantity"));
      else if (v < 0n) errs.push(fieldErrors.invalid(p, String(q), "must be greater than or equal to 0"));
    }
  }
  for (const [name, q] of Object.entries(requests)) {
    const lim = limits[name];
    if (lim === undefined) continue;
    const r = quantityNanos(String(q));
    const l = quantityNanos(String(lim));
    if (r !== undefined && l !== undefined && r > l) {
      errs.push(fieldErrors.invalid(child(field, "requests"), String(q), `must be less than or equal to ${name} limit of ${String(lim)}`));
    }
  }
  return errs;
}

function validateProbe(probe: Probe | undefined, field: string): FieldError[] {
  if (!probe) return [];
  const errs: FieldError[] = [];
  errs.push(...validateNonnegative(probe.initialDelaySeconds, child(field, "initialDelaySeconds")));
  errs.push(...validateNonnegative(probe.timeoutSeconds, child(field, "timeoutSeconds")));
  errs.push(...validateNonnegative(probe.periodSeconds, child(field, "periodSeconds")));
  errs.push(...validateNonnegative(probe.successThreshold, child(field, "successThreshold")));
  errs.push(...validateNonnegative(probe.failureThreshold, child(field, "failureThreshold")));
  const handlers = ["exec", "httpGet", "tcpSocket", "grpc"].filter((k) => (probe as Record<string, unknown>)[k] != null);
  if (handlers.length === 0) errs.push(fieldErrors.required(field, "must specify a handler type"));
  else if (handlers.length > 1) errs.push(fieldErrors.forbidden(child(field, handlers[1]), "may not specify more than 1 handler type"));
  return errs;
}

function validateContainerCommon(c: Container, volumes: Set<string>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(fieldErrors.required(child(field, "name"), ""));
  else errs.push(...validateDNS1123Label(c.name, child(field, "name")));
  if (!c.image) errs.push(fieldErrors.required(child(field, "image"), ""));
  const tmp = c.terminationMessagePolicy;
  if (!tmp) errs.push(fieldErrors.required(child(field, "terminationMessagePolicy"), ""));
  else if (tmp !== "File" && tmp !== "FallbackToLogsOnError") {
    errs.push(fieldErrors.notSupported(child(field, "terminationMessagePolicy"), tmp, ["File", "FallbackToLogsOnError"]));
  }
  errs.push(...validateContainerPorts(c.ports, child(field, "ports")));
  errs.push(...validateEnv(c.env, child(field, "env")));
  errs.push(...validateVolumeMounts(c, volumes, child(field, "volumeMounts")));
  if (!c.imagePullPolicy) errs.push(fieldErrors.required(child(field, "imagePullPolicy"), ""));
  else if (!pullPolicies.includes(c.imagePullPolicy)) {
    errs.push(fieldErrors.notSupported(child(field, "imagePullPolicy"), c.imagePullPolicy, pullPolicies));
  }
  errs.push(...validateResources(c, child(field, "resources")));
  return errs;
}

function validateContainers(containers: Container[] | undefined, volumes: Set<string>, field: string): FieldError[] {
  if (!containers || containers.length === 0) return [fieldErrors.required(field, "")];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = index(field, i);
    errs.push(...validateContainerCommon(c, volumes, p));
    if (names.has(c.name)) errs.push(fieldErrors.duplicate(child(p, "name"), c.name));
    else names.add(c.name);
    errs.push(...validateProbe(c.livenessProbe, child(p, "livenessProbe")));
    errs.push(...validateProbe(c.readinessProbe, child(p, "readinessProbe")));
    errs.push(...validateProbe(c.startupProbe, child(p, "startupProbe")));
    if (c.restartPolicy != null) errs.push(fieldErrors.forbidden(child(p, "restartPolicy"), "may not be set for non-init containers"));
  });
  errs.push(...checkHostPortConflicts(containers, field));
  return errs;
}

function checkHostPortConflicts(containers: Container[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    (c.ports ?? []).forEach((port, pi) => {
      if (!port.hostPort) return;
      const k = `${port.hostIP ?? ""}/${port.hostPort}/${port.protocol ?? ""}`;
      if (seen.has(k)) errs.push(fieldErrors.duplicate(child(index(child(index(field, ci), "ports"), pi), "hostPort"), k));
      seen.add(k);
    });
  });
  return errs;
}

function validateInitContainers(init: Container[] | undefined, regular: Container[] | undefined, volumes: Set<string>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set((regular ?? []).map((c) => c.name));
  (init ?? []).forEach((c, i) => {
    const p = index(field, i);
    errs.push(...validateContainerCommon(c, volumes, p));
    let restartAlways = false;
    if (c.restartPolicy != null) {
      if (c.restartPolicy !== "Always") errs.push(fieldErrors.notSupported(child(p, "restartPolicy"), c.restartPolicy, ["Always"]));
      restartAlways = c.restartPolicy === "Always";
    }
    if (names.has(c.name)) errs.push(fieldErrors.duplicate(child(p, "name"), c.name));
    else if (c.name) names.add(c.name);
    errs.push(...checkHostPortConflicts([c], field));
    if (restartAlways) {
      errs.push(...validateProbe(c.livenessProbe, child(p, "livenessProbe")));
      errs.push(...validateProbe(c.readinessProbe, child(p, "readinessProbe")));
      errs.push(...validateProbe(c.startupProbe, child(p, "startupProbe")));
    } else {
      const msg = "may not be set for init containers without restartPolicy=Always";
      if (c.lifecycle) errs.push(fieldErrors.forbidden(child(p, "lifecycle"), msg));
      if (c.livenessProbe) errs.push(fieldErrors.forbidden(child(p, "livenessProbe"), msg));
      if (c.readinessProbe) errs.push(fieldErrors.forbidden(child(p, "readinessProbe"), msg));
      if (c.startupProbe) errs.push(fieldErrors.forbidden(child(p, "startupProbe"), msg));
    }
  });
  return errs;
}

function validateVolumes(volumes: Volume[] | undefined, field: string): { names: Set<string>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (volumes ?? []).forEach((v, i) => {
    const p = index(field, i);
    const el: FieldError[] = [];
    const rec = v as unknown as Record<string, unknown>;
    const sources = volumeSources.filter((k) => rec[k] !== undefined && rec[k] !== null);
    if (sources.length === 0) el.push(fieldErrors.required(p, "must specify a volume type"));
    for (const extra of sources.slice(1)) el.push(fieldErrors.forbidden(child(p, extra), "may not specify more than 1 volume type"));
    if (!v.name) el.push(fieldErrors.required(child(p, "name"), ""));
    else el.push(...validateDNS1123Label(v.name, child(p, "name")));
    if (names.has(v.name)) el.push(fieldErrors.duplicate(child(p, "name"), v.name));
    if (el.length === 0) names.add(v.name);
    else errs.push(...el);
  });
  return { names, errs };
}

/** ValidateTolerations. */
export function validateTolerations(tolerations: Toleration[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  (tolerations ?? []).forEach((t, i) => {
    const p = index(field, i);
    if (t.key) errs.push(...validateLabelName(t.key, child(p, "key")));
    if (!t.key && t.operator !== "Exists") {
      errs.push(
        fieldErrors.invalid(child(p, "operator"), t.operator ?? "", 'operator must be Exists when `key` is empty, which means "match all values and all keys"'),
      );
    }
    if (t.tolerationSeconds != null && t.effect !== "NoExecute") {
      errs.push(fieldErrors.invalid(child(p, "effect"), t.effect ?? "", "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (t.operator ?? "") {
      case "Equal":
      case "": {
        const msgs = isValidLabelValue(t.value ?? "");
        if (msgs.length > 0) errs.push(fieldErrors.invalid(child(p, "operator"), t.value ?? "", msgs.join(";")));
        break;
      }
      case "Exists":
        if (t.value) errs.push(fieldErrors.invalid(child(p, "operator"), t.value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(fieldErrors.notSupported(child(p, "operator"), t.operator, ["Equal", "Exists"]));
    }
    if (t.effect && !["NoSchedule", "PreferNoSchedule", "NoExecute"].includes(t.effect)) {
      errs.push(fieldErrors.notSupported(child(p, "effect"), t.effect, ["NoSchedule", "PreferNoSchedule", "NoExecute"]));
    }
  });
  return errs;
}

const restartPolicies = ["Always", "OnFailure", "Never"];
const dnsPolicies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];

/** ValidatePodSpec (the covered subset; see the module comment). */
export function validatePodSpec(spec: PodSpec | undefined, field: string, opts: PodValidationOptions): FieldError[] {
  const s: PodSpec = spec ?? { containers: [] };
  const errs: FieldError[] = [];
  if (s.terminationGracePeriodSeconds == null) errs.push(fieldErrors.required(child(field, "terminationGracePeriodSeconds"), ""));
  const { names: volumes, errs: verrs } = validateVolumes(s.volumes, child(field, "volumes"));
  errs.push(...verrs);
  errs.push(...validateContainers(s.containers, volumes, child(field, "containers")));
  errs.push(...validateInitContainers(s.initContainers, s.containers, volumes, child(field, "initContainers")));
  if (s.hostNetwork) {
    (s.containers ?? []).forEach((c, ci) => {
      (c.ports ?? []).forEach((port, pi) => {
        const hp = port.hostPort ?? 0;
        if ((opts.resourceIsPod || hp !== 0) && hp !== port.containerPort) {
          errs.push(
            fieldErrors.invalid(
              child(index(child(index(child(field, "containers"), ci), "ports"), pi), "hostPort"),
              hp,
              "must match `containerPort` when `hostNetwork` is true",
            ),
          );
        }
      });
    });
  }
  if (!s.restartPolicy) errs.push(fieldErrors.required(child(field, "restartPolicy"), ""));
  else if (!restartPolicies.includes(s.restartPolicy)) errs.push(fieldErrors.notSupported(child(field, "restartPolicy"), s.restartPolicy, restartPolicies));
  if (!s.dnsPolicy) errs.push(fieldErrors.required(child(field, "dnsPolicy"), ""));
  else if (!dnsPolicies.includes(s.dnsPolicy)) errs.push(fieldErrors.notSupported(child(field, "dnsPolicy"), s.dnsPolicy, dnsPolicies));
  if (s.dnsPolicy === "None" && !s.dnsConfig) {
    errs.push(fieldErrors.required(child(field, "dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None"));
  }
  errs.push(...validateLabels(s.nodeSelector, child(field, "nodeSelector")));
  (s.imagePullSecrets ?? []).forEach((ref, i) => {
    const extra = Object.keys(ref).filter((k) => k !== "name");
    if (extra.length > 0) errs.push(fieldErrors.invalid(index(child(field, "imagePullSecrets"), i), ref, "only name may be set"));
  });
  if (s.serviceAccountName) {
    for (const msg of nameIsDNSSubdomain(s.serviceAccountName, false)) {
      errs.push(fieldErrors.invalid(child(field, "serviceAccountName"), s.serviceAccountName, msg));
    }
  }
  if (s.nodeName) {
    for (const msg of nameIsDNSSubdomain(s.nodeName, false)) errs.push(fieldErrors.invalid(child(field, "nodeName"), s.nodeName, msg));
  }
  if (s.activeDeadlineSeconds != null && (s.activeDeadlineSeconds < 1 || s.activeDeadlineSeconds > maxInt32)) {
    errs.push(fieldErrors.invalid(child(field, "activeDeadlineSeconds"), s.activeDeadlineSeconds, inclusiveRangeError(1, maxInt32)));
  }
  if (s.hostname) errs.push(...validateDNS1123Label(s.hostname, child(field, "hostname")));
  if (s.subdomain) errs.push(...validateDNS1123Label(s.subdomain, child(field, "subdomain")));
  errs.push(...validateTolerations(s.tolerations, child(field, "tolerations")));
  (s.readinessGates ?? []).forEach((g, i) => {
    for (const msg of isQualifiedName(g.conditionType)) {
      errs.push(fieldErrors.invalid(child(index(child(field, "readinessGates"), i), "conditionType"), g.conditionType, msg));
    }
  });
  if (s.priorityClassName) {
    for (const msg of nameIsDNSSubdomain(s.priorityClassName, false)) {
      errs.push(fieldErrors.invalid(child(field, "priorityClassName"), s.priorityClassName, msg));
    }
  }
  if (s.preemptionPolicy != null && s.preemptionPolicy !== "PreemptLowerPriority" && s.preemptionPolicy !== "Never") {
    errs.push(fieldErrors.notSupported(child(field, "preemptionPolicy"), s.preemptionPolicy, ["PreemptLowerPriority", "Never"]));
  }
  return errs;
}

/** ValidatePodTemplateSpec: template labels and annotations, the spec, no ephemeral containers. */
export function validatePodTemplateSpec(t: PodTemplateSpec | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const meta: ObjectMeta = t?.metadata ?? {};
  errs.push(...validateLabels(meta.labels, child(field, "labels")));
  errs.push(...validateAnnotations(meta.annotations, child(field, "annotations")));
  errs.push(...validatePodSpec(t?.spec, child(field, "spec"), { resourceIsPod: false }));
  if ((t?.spec?.ephemeralContainers ?? []).length > 0) {
    errs.push(fieldErrors.forbidden(child(field, "spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"));
  }
  return errs;
}

/** Pod-only checks (validateContainersOnlyForPod): no leading or trailing whitespace in images. */
export function validateContainersOnlyForPod(containers: Container[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  (containers ?? []).forEach((c, i) => {
    if (c.image && c.image.trim() !== c.image) {
      errs.push(fieldErrors.invalid(child(index(field, i), "image"), c.image, "must not have leading or trailing whitespace"));
    }
  });
  return errs;
}

/** The spec fields a pod update may change, as upstream lists them in its Forbidden message. */
export const updatablePodSpecFields = [
  "`spec.containers[*].image`",
  "`spec.initContainers[*].image`",
  "`spec.activeDeadlineSeconds`",
  "`spec.tolerations` (only additions to existing tolerations)",
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
];

function validateContainerUpdates(n: Container[] | undefined, o: Container[] | undefined, field: string): { errs: FieldError[]; stop: boolean } {
  const nc = n ?? [];
  const oc = o ?? [];
  if (nc.length !== oc.length) return { errs: [fieldErrors.forbidden(field, "pod updates may not add or remove containers")], stop: true };
  const errs: FieldError[] = [];
  nc.forEach((c, i) => {
    if (!c.image) errs.push(fieldErrors.required(child(index(field, i), "image"), ""));
    if (c.image && c.image.trim() !== c.image) {
      errs.push(fieldErrors.invalid(child(index(field, i), "image"), c.image, "must not have leading or trailing whitespace"));
    }
  });
  return { errs, stop: false };
}

function validateOnlyAddedTolerations(n: Toleration[] | undefined, o: Toleration[] | undefined, field: string): FieldError[] {
  for (const old of o ?? []) {
    const found = (n ?? []).some((t) => semanticEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [fieldErrors.forbidden(field, "existing toleration can not be modified except its tolerationSeconds")];
  }
  return validateTolerations(n, field);
}

/** A short line diff of two JSON values, standing in for upstream's cmp.Diff output. */
export function jsonDiff(oldV: unknown, newV: unknown, path = ""): string[] {
  if (semanticEqual(oldV, newV)) return [];
  const isObj = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(oldV) && isObj(newV)) {
    const o = oldV as Record<string, unknown>;
    const n = newV as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])];
    return keys.flatMap((k) => jsonDiff(o[k], n[k], path === "" ? k : `${path}.${k}`));
  }
  if (Array.isArray(oldV) && Array.isArray(newV) && oldV.length === newV.length) {
    return oldV.flatMap((x, i) => jsonDiff(x, newV[i], `${path}[${i}]`));
  }
  const out: string[] = [];
  if (oldV !== undefined) out.push(`- ${path}: ${JSON.stringify(oldV)}`);
  if (newV !== undefined) out.push(`+ ${path}: ${JSON.stringify(newV)}`);
  return out;
}

/**
 * The spec part of ValidatePodUpdate: container counts, images, activeDeadlineSeconds rules,
 * toleration additions, and everything else immutable ("pod updates may not change fields other
 * than …" followed by a diff of the offending fields).
 */
export function validatePodSpecUpdate(newSpec: PodSpec, oldSpec: PodSpec): FieldError[] {
  const errs: FieldError[] = [];
  let r = validateContainerUpdates(newSpec.containers, oldSpec.containers, "spec.containers");
  errs.push(...r.errs);
  if (r.stop) return errs;
  r = validateContainerUpdates(newSpec.initContainers, oldSpec.initContainers, "spec.initContainers");
  errs.push(...r.errs);
  if (r.stop) return errs;
  if (newSpec.activeDeadlineSeconds != null) {
    const v = newSpec.activeDeadlineSeconds;
    if (v < 0 || v > maxInt32) {
      errs.push(fieldErrors.invalid("spec.activeDeadlineSeconds", v, inclusiveRangeError(0, maxInt32)));
      return errs;
    }
    if (oldSpec.activeDeadlineSeconds != null && oldSpec.activeDeadlineSeconds < v) {
      errs.push(fieldErrors.invalid("spec.activeDeadlineSeconds", v, "must be less than or equal to previous value"));
      return errs;
    }
  } else if (oldSpec.activeDeadlineSeconds != null) {
    errs.push(fieldErrors.invalid("spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value"));
  }
  errs.push(...validateOnlyAddedTolerations(newSpec.tolerations, oldSpec.tolerations, "spec.tolerations"));
  if (semanticEqual(newSpec, oldSpec)) return errs;
  const munged: PodSpec = JSON.parse(JSON.stringify(newSpec)) as PodSpec;
  (munged.containers ?? []).forEach((c, i) => (c.image = oldSpec.containers[i].image));
  (munged.initContainers ?? []).forEach((c, i) => (c.image = (oldSpec.initContainers ?? [])[i].image));
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.tolerations = oldSpec.tolerations;
  munged.schedulingGates = oldSpec.schedulingGates;
  if ((oldSpec.terminationGracePeriodSeconds ?? 0) < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  }
  if (!semanticEqual(munged, oldSpec)) {
    const diff = jsonDiff(oldSpec, munged, "").join("\n");
    errs.push(fieldErrors.forbidden("spec", `pod updates may not change fields other than ${updatablePodSpecFields.join(",")}\n${diff}`));
  }
  return errs;
}

/** QoS classes (GetPodQOS / ComputePodQOS) over cpu and memory of regular and init containers. */
export function computePodQOS(spec: PodSpec | undefined): "Guaranteed" | "Burstable" | "BestEffort" {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const qosResources = ["cpu", "memory"];
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
    for (const name of qosResources) {
      const rq = c.resources?.requests?.[name];
      const v = rq === undefined ? undefined : quantityNanos(String(rq));
      if (v !== undefined && v !== 0n) requests.set(name, (requests.get(name) ?? 0n) + v);
    }
    let found = 0;
    for (const name of qosResources) {
      const lq = c.resources?.limits?.[name];
      const v = lq === undefined ? undefined : quantityNanos(String(lq));
      if (v !== undefined && v !== 0n) {
        found++;
        limits.set(name, (limits.get(name) ?? 0n) + v);
      }
    }
    if (found !== qosResources.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  if (guaranteed && requests.size === limits.size) return "Guaranteed";
  return "Burstable";
}

