/**
 * ServiceAccount (plugin/pkg/admission/serviceaccount): every pod runs as a ServiceAccount.
 *
 * On pod CREATE (main resource, not mirror pods): spec.serviceAccountName defaults to
 * "default" (the deprecated spec.serviceAccount follows it, as the v1 conversion writes it);
 * the account must exist ("error looking up service account ns/name: serviceaccount "name" not
 * found", 403) — the default account is waited for briefly, since the ServiceAccount loop
 * creates it right after its namespace; unless automounting is off (pod first, then the
 * account), every container and init container (not ephemeral ones) mounts a projected
 * `kube-api-access-xxxxx` volume (bound token of 3607 s, kube-root-ca.crt's ca.crt, the
 * namespace from the downward API) at /var/run/secrets/kubernetes.io/serviceaccount, unless it
 * already mounts something there; imagePullSecrets come from the account when the pod has none.
 */
import type { KubeObject } from "../../../apimachinery/types.js";
import { objectKey } from "../../rest/keys.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { admissionForbidden, isResource } from "../attributes.js";
import type { AdmissionAttributes } from "../interfaces.js";

export const defaultServiceAccountName = "default";
export const serviceAccountVolumePrefix = "kube-api-access-";
export const defaultAPITokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";
/** The bound token lifetime the plugin asks for (WarnOnlyBoundTokenExpirationSeconds: 1 h + 7 s). */
export const tokenExpirationSeconds = 3607;
const mirrorPodAnnotation = "kubernetes.io/config.mirror";

interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
interface Container {
  name?: string;
  volumeMounts?: VolumeMount[];
}
interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: { name?: string }[];
  volumes?: { name: string; [k: string]: unknown }[];
  containers?: Container[];
  initContainers?: Container[];
}
interface ServiceAccountShape {
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: { name?: string }[];
}

/** The projected volume source of the service account token volume (TokenVolumeSource). */
export function tokenVolumeSource(): Record<string, unknown> {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: tokenExpirationSeconds, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
  };
}

const alphanumerics = "bcdfghjklmnpqrstvwxz2456789";
/** utilrand.String(5): the suffix of a generated volume name. */
export function randomSuffix(n = 5): string {
  let out = "";
  for (let i = 0; i < n; i++) out += alphanumerics[Math.floor(Math.random() * alphanumerics.length)];
  return out;
}

/** Adds the token volume and its mounts to `spec` (mountServiceAccountToken). */
export function mountServiceAccountToken(spec: PodSpec, suffix: () => string = randomSuffix): void {
  let volumeName = (spec.volumes ?? []).find((v) => v.name.startsWith(serviceAccountVolumePrefix))?.name;
  const hasVolume = volumeName !== undefined;
  volumeName ??= serviceAccountVolumePrefix + suffix();
  let needsVolume = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === defaultAPITokenMountPath)) continue;
    (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath });
    needsVolume = true;
  }
  if (!hasVolume && needsVolume) (spec.volumes ??= []).push({ name: volumeName, projected: tokenVolumeSource() });
}

export interface ServiceAccountOptions {
  /** Waits between look-ups of a missing default account (default: 100 ms of wall-clock, 10 tries). */
  retryDelay?: () => Promise<void>;
  attempts?: number;
  /** The random suffix of the volume name (tests). */
  suffix?: () => string;
}

export function serviceAccountPlugin(ctx: AdmissionPluginContext, opts: ServiceAccountOptions = {}): AnyAdmissionPlugin {
  const delay = opts.retryDelay ?? (() => new Promise<void>((r) => setTimeout(r, 100)));
  const lookup = async (namespace: string, name: string): Promise<KubeObject | undefined> => {
    const attempts = name === defaultServiceAccountName ? (opts.attempts ?? 10) : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await delay();
      const sa = await ctx.storage.get(objectKey("", "serviceaccounts", namespace, name));
      if (sa) return sa.object;
    }
    return undefined;
  };
  const applies = (a: AdmissionAttributes) => a.operation === "CREATE" && a.subresource === "" && isResource(a, "", "pods") && a.object !== undefined;
  const check = async (a: AdmissionAttributes, pod: KubeObject, spec: PodSpec): Promise<KubeObject | undefined> => {
    const name = spec.serviceAccountName ?? "";
    if (name === "") throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${pod.metadata?.name ?? ""}`);
    const sa = await lookup(a.namespace, name);
    if (!sa) throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`);
    return sa;
  };
  return {
    name: "ServiceAccount",
    handles: (op) => op === "CREATE",
    handlesResource: (r, sub) => r.group === "" && r.resource === "pods" && sub === "",
    async admit(a) {
      if (!applies(a)) return;
      const pod = a.object!;
      if (pod.metadata?.annotations?.[mirrorPodAnnotation] !== undefined) return;
      const spec = ((pod as { spec?: PodSpec }).spec ??= {});
      if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || defaultServiceAccountName;
      spec.serviceAccount = spec.serviceAccountName;
      const sa = (await check(a, pod, spec)) as ServiceAccountShape;
      const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
      if (automount) mountServiceAccountToken(spec, opts.suffix);
      if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length) spec.imagePullSecrets = sa.imagePullSecrets.map((s) => ({ name: s.name }));
    },
    async validate(a) {
      if (!applies(a)) return;
      const pod = a.object!;
      if (pod.metadata?.annotations?.[mirrorPodAnnotation] !== undefined) return;
      await check(a, pod, (pod as { spec?: PodSpec }).spec ?? {});
    },
  };
}

export const serviceAccount: AdmissionPluginRegistration = { name: "ServiceAccount", create: (ctx) => serviceAccountPlugin(ctx) };
