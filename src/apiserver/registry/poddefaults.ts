/**
 * Pod defaulting, as pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec (for pods and for pod
 * templates in Deployments and ReplicaSets), SetDefaults_Pod (pods only), containers, ports,
 * probes, volumes and env field references. Also fills `resources: {}`, which Go always
 * serializes for containers, so that stored objects look as kube-apiserver's do.
 */
import type { Container, EnvVar, PodSpec, PodTemplateSpec, Probe, Volume } from "../../apimachinery/api/core/v1.js";

/** Always for ":latest" or untagged images, IfNotPresent otherwise (digests count as tagged). */
export function defaultImagePullPolicy(image: string | undefined): string {
  const img = image ?? "";
  if (img.includes("@")) return "IfNotPresent";
  // The tag is what follows the last ':' after the last '/' (a ':' before it is a registry port).
  const lastSlash = img.lastIndexOf("/");
  const colon = img.indexOf(":", lastSlash + 1);
  if (colon < 0) return "Always";
  return img.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent";
}

function defaultProbe(p: Probe | undefined): void {
  if (!p) return;
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  if (p.httpGet) {
    p.httpGet.path ||= "/";
    p.httpGet.scheme ||= "HTTP";
  }
}

function defaultEnv(env: EnvVar[] | undefined): void {
  for (const e of env ?? []) {
    const fr = e.valueFrom?.fieldRef;
    if (fr && !fr.apiVersion) fr.apiVersion = "v1";
  }
}

/** SetDefaults_Container and friends. */
export function defaultContainer(c: Container): void {
  c.imagePullPolicy ||= defaultImagePullPolicy(c.image);
  c.terminationMessagePath ||= "/dev/termination-log";
  c.terminationMessagePolicy ||= "File";
  c.resources ??= {};
  for (const p of c.ports ?? []) p.protocol ||= "TCP";
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  for (const h of [c.lifecycle?.postStart, c.lifecycle?.preStop]) {
    if (h?.httpGet) {
      h.httpGet.path ||= "/";
      h.httpGet.scheme ||= "HTTP";
    }
  }
  defaultEnv(c.env);
}

const volumeSourceKeys = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
  "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
  "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
  "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
] as const;

/** The volume source keys a Volume may carry (exactly one must be set). */
export const volumeSources: readonly string[] = volumeSourceKeys;

function defaultVolume(v: Volume): void {
  const rec = v as unknown as Record<string, unknown>;
  if (!volumeSourceKeys.some((k) => rec[k] !== undefined && rec[k] !== null)) v.emptyDir = {};
  if (v.secret) v.secret.defaultMode ??= 420;
  if (v.configMap) v.configMap.defaultMode ??= 420;
  if (v.downwardAPI) {
    v.downwardAPI.defaultMode ??= 420;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef && !item.fieldRef.apiVersion) item.fieldRef.apiVersion = "v1";
  }
  if (v.projected) {
    v.projected.defaultMode ??= 420;
    for (const s of v.projected.sources ?? []) {
      if (s.serviceAccountToken) s.serviceAccountToken.expirationSeconds ??= 3600;
      for (const item of s.downwardAPI?.items ?? []) if (item.fieldRef && !item.fieldRef.apiVersion) item.fieldRef.apiVersion = "v1";
    }
  }
  if (v.hostPath) v.hostPath.type ??= "";
  if (v.iscsi) {
    v.iscsi.iscsiInterface ||= "default";
  }
}

function defaultHostNetworkPorts(containers: Container[] | undefined): void {
  for (const c of containers ?? []) for (const p of c.ports ?? []) if (!p.hostPort) p.hostPort = p.containerPort;
}

/** SetDefaults_PodSpec (shared by pods and pod templates). */
export function defaultPodSpec(spec: PodSpec): void {
  spec.dnsPolicy ||= "ClusterFirst";
  spec.restartPolicy ||= "Always";
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= "default-scheduler";
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c as Container);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}

/** SetDefaults_Pod: requests default to limits, enableServiceLinks true, host-network ports. */
export function defaultPodOnlySpec(spec: PodSpec): void {
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const limits = c.resources?.limits;
    if (limits && Object.keys(limits).length > 0) {
      c.resources ??= {};
      c.resources.requests ??= {};
      for (const [k, v] of Object.entries(limits)) if (!(k in c.resources.requests)) c.resources.requests[k] = v;
    }
  }
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork) {
    defaultHostNetworkPorts(spec.containers);
    defaultHostNetworkPorts(spec.initContainers);
  }
}

/** Defaults for a pod template (Deployment/ReplicaSet spec.template). */
export function defaultPodTemplateSpec(t: PodTemplateSpec | undefined): void {
  if (!t) return;
  t.spec ??= { containers: [] };
  defaultPodSpec(t.spec);
}
