/**
 * The children an Application wants — a Deployment and, with spec.service, a Service — and the
 * comparison that decides whether a live child must be updated.
 *
 * Ownership (what the controller writes, and the only thing it compares):
 * - metadata: its three labels (other labels are left alone) and the controller OwnerReference;
 * - Deployment spec: replicas, paused, strategy (with the apps/v1 defaults filled in on both
 *   sides, so a server-defaulted strategy equals an absent one), the three pod template labels,
 *   and in the container named "app": image, ports (protocol defaulted to TCP), env, resources
 *   (quantities compared by value). Everything the server defaults (imagePullPolicy,
 *   terminationMessagePath, dnsPolicy, ...) or another actor adds (a sidecar, an annotation) is
 *   not ours and never triggers a write;
 * - Deployment spec.selector: set at creation from metadata.name (immutable) and never written
 *   again (the API server forbids changing it anyway);
 * - Service spec: type, selector (exactly the pod template labels) and its single port's port,
 *   targetPort and protocol; the allocated clusterIP and nodePort are the server's and are kept.
 *
 * An update starts from a copy of the live object and overwrites only the owned fields, so a
 * steady state — live children equal to the desired ones in every owned field — makes no write.
 */
import type { Deployment, DeploymentStrategy } from "../../apimachinery/api/apps/v1.js";
import type { Container, ContainerPort, EnvVar, ResourceRequirements, Service, ServicePort } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { newControllerRef } from "../../apimachinery/ownerrefs.js";
import {
  APPLICATION_GVK,
  CONTAINER_NAME,
  LABEL_INSTANCE,
  LABEL_MANAGED_BY,
  LABEL_NAME,
  MANAGED_BY,
  type Application,
  type ApplicationPort,
} from "./types.js";

/** The Deployment's (and Service's) name: spec.deploymentName, else metadata.name. */
export function deploymentNameOf(app: Application): string {
  return app.spec?.deploymentName || app.metadata?.name || "";
}

/** The labels of the pod selector: derived from metadata.name only, so they never change. */
export function selectorLabels(app: Application): Record<string, string> {
  const name = app.metadata?.name ?? "";
  return { [LABEL_NAME]: name, [LABEL_INSTANCE]: name };
}

/** The labels of every child and of the pod template: the selector's plus managed-by. */
export function applicationLabels(app: Application): Record<string, string> {
  return { ...selectorLabels(app), [LABEL_MANAGED_BY]: MANAGED_BY };
}

function desiredReplicas(app: Application): number {
  return app.spec?.replicas ?? 1;
}

function normalizePorts(ports: readonly (ApplicationPort | ContainerPort)[] | undefined): ContainerPort[] {
  return (ports ?? []).map((p) => {
    const out: ContainerPort = { containerPort: p.containerPort, protocol: p.protocol ?? "TCP" };
    if (p.name) out.name = p.name;
    return out;
  });
}

function normalizeEnv(env: readonly EnvVar[] | undefined): EnvVar[] {
  return (env ?? []).map((e) => {
    const out: EnvVar = { name: e.name };
    if (e.value !== undefined && e.value !== "") out.value = e.value;
    if (e.valueFrom !== undefined) out.valueFrom = e.valueFrom;
    return out;
  });
}

/** Requests and limits compared as apimachinery's Semantic does: quantities by amount, empty as absent. */
function resourcesEqual(a: ResourceRequirements | undefined, b: ResourceRequirements | undefined): boolean {
  return semanticEqual({ limits: a?.limits, requests: a?.requests }, { limits: b?.limits, requests: b?.requests });
}

function isEmptyResources(r: ResourceRequirements | undefined): boolean {
  return Object.keys(r?.limits ?? {}).length === 0 && Object.keys(r?.requests ?? {}).length === 0;
}

/** The single container of the pod template, holding only owned fields. */
export function desiredContainer(app: Application): Container {
  const c: Container = { name: CONTAINER_NAME, image: app.spec?.image ?? "" };
  const ports = normalizePorts(app.spec?.ports);
  if (ports.length > 0) c.ports = ports;
  const env = normalizeEnv(app.spec?.env);
  if (env.length > 0) c.env = env;
  if (!isEmptyResources(app.spec?.resources)) {
    const r: ResourceRequirements = {};
    if (Object.keys(app.spec?.resources?.limits ?? {}).length > 0) r.limits = { ...app.spec!.resources!.limits };
    if (Object.keys(app.spec?.resources?.requests ?? {}).length > 0) r.requests = { ...app.spec!.resources!.requests };
    c.resources = r;
  }
  return c;
}

/** apps/v1 strategy defaults: RollingUpdate with 25% surge and 25% unavailable. */
export function defaultedStrategy(s: DeploymentStrategy | undefined): DeploymentStrategy {
  const type = s?.type || "RollingUpdate";
  if (type !== "RollingUpdate") return { type };
  return {
    type,
    rollingUpdate: { maxSurge: s?.rollingUpdate?.maxSurge ?? "25%", maxUnavailable: s?.rollingUpdate?.maxUnavailable ?? "25%" },
  };
}

/** The Deployment an Application wants (sample-controller's newDeployment). */
export function newDeployment(app: Application): Deployment {
  const labels = applicationLabels(app);
  const d: Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: deploymentNameOf(app),
      namespace: app.metadata?.namespace,
      labels: { ...labels },
      ownerReferences: [newControllerRef(app, APPLICATION_GVK)],
    },
    spec: {
      replicas: desiredReplicas(app),
      selector: { matchLabels: selectorLabels(app) },
      strategy: defaultedStrategy(app.spec?.strategy),
      template: {
        metadata: { labels: { ...labels } },
        spec: { containers: [desiredContainer(app)] },
      },
    },
  };
  if (app.spec?.paused) d.spec!.paused = true;
  return d;
}

function hasLabels(have: Record<string, string> | undefined, want: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => have?.[k] === v);
}

function containerMatches(live: Container | undefined, want: Container): boolean {
  if (!live) return false;
  return (
    live.image === want.image &&
    semanticEqual(normalizePorts(live.ports), normalizePorts(want.ports)) &&
    semanticEqual(normalizeEnv(live.env), normalizeEnv(want.env)) &&
    resourcesEqual(live.resources, want.resources)
  );
}

/**
 * The owned fields of `live` that differ from what `app` wants ([] in steady state). Used to
 * decide on an update and to log why one happened.
 */
export function deploymentDiff(app: Application, live: Deployment): string[] {
  const want = newDeployment(app);
  const diffs: string[] = [];
  if (!hasLabels(live.metadata?.labels, want.metadata!.labels!)) diffs.push("metadata.labels");
  if ((live.spec?.replicas ?? 1) !== want.spec!.replicas) diffs.push("spec.replicas");
  if ((live.spec?.paused ?? false) !== (want.spec!.paused ?? false)) diffs.push("spec.paused");
  if (!semanticEqual(defaultedStrategy(live.spec?.strategy), want.spec!.strategy)) diffs.push("spec.strategy");
  if (!hasLabels(live.spec?.template?.metadata?.labels, want.spec!.template.metadata!.labels!)) diffs.push("spec.template.metadata.labels");
  const liveContainer = live.spec?.template?.spec?.containers?.find((c) => c.name === CONTAINER_NAME);
  if (!containerMatches(liveContainer, want.spec!.template.spec!.containers[0])) diffs.push(`spec.template.spec.containers[${CONTAINER_NAME}]`);
  return diffs;
}

/** `live` with every owned field set to the desired value; everything else kept. */
export function mergeDeployment(app: Application, live: Deployment): Deployment {
  const want = newDeployment(app);
  const next = deepCopy(live);
  next.metadata = { ...next.metadata, labels: { ...next.metadata?.labels, ...want.metadata!.labels } };
  const spec = (next.spec ??= { selector: deepCopy(want.spec!.selector), template: {} });
  spec.replicas = want.spec!.replicas;
  if (want.spec!.paused) spec.paused = true;
  else delete spec.paused;
  spec.strategy = want.spec!.strategy;
  const template = (spec.template ??= {});
  template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...want.spec!.template.metadata!.labels } };
  const podSpec = (template.spec ??= { containers: [] });
  const wantC = want.spec!.template.spec!.containers[0];
  const idx = podSpec.containers.findIndex((c) => c.name === CONTAINER_NAME);
  if (idx < 0) {
    podSpec.containers = [wantC, ...podSpec.containers];
  } else {
    const c = { ...podSpec.containers[idx] };
    c.image = wantC.image;
    for (const field of ["ports", "env", "resources"] as const) {
      if (wantC[field] === undefined) {
        // Not wanted: remove it, unless it is already empty (e.g. the server's `resources: {}`).
        const empty = field === "resources" ? isEmptyResources(c.resources) : (c[field]?.length ?? 0) === 0;
        if (!empty) delete c[field];
      } else {
        (c as Record<string, unknown>)[field] = wantC[field];
      }
    }
    podSpec.containers = podSpec.containers.map((x, i) => (i === idx ? c : x));
  }
  return next;
}

// --- Service -----------------------------------------------------------------------------------

function desiredServicePort(app: Application): ServicePort {
  const svc = app.spec!.service!;
  return { port: svc.port, targetPort: svc.targetPort ?? svc.port, protocol: "TCP" };
}

/** The Service an Application wants, or undefined without spec.service. */
export function newService(app: Application): Service | undefined {
  if (!app.spec?.service) return undefined;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: deploymentNameOf(app),
      namespace: app.metadata?.namespace,
      labels: applicationLabels(app),
      ownerReferences: [newControllerRef(app, APPLICATION_GVK)],
    },
    spec: {
      type: app.spec.service.type ?? "ClusterIP",
      selector: applicationLabels(app),
      ports: [desiredServicePort(app)],
    },
  };
}

/** The owned fields of the live Service that differ from what `app` wants. */
export function serviceDiff(app: Application, live: Service): string[] {
  const want = newService(app);
  if (!want) return [];
  const diffs: string[] = [];
  if (!hasLabels(live.metadata?.labels, want.metadata!.labels!)) diffs.push("metadata.labels");
  if ((live.spec?.type ?? "ClusterIP") !== want.spec!.type) diffs.push("spec.type");
  if (!semanticEqual(live.spec?.selector ?? {}, want.spec!.selector)) diffs.push("spec.selector");
  const lp = live.spec?.ports ?? [];
  const wp = want.spec!.ports![0];
  if (lp.length !== 1 || lp[0].port !== wp.port || (lp[0].targetPort ?? lp[0].port) !== wp.targetPort || (lp[0].protocol ?? "TCP") !== wp.protocol) {
    diffs.push("spec.ports");
  }
  return diffs;
}

/** The live Service with the owned fields set; clusterIP and (while still meaningful) nodePort kept. */
export function mergeService(app: Application, live: Service): Service {
  const want = newService(app);
  if (!want) return deepCopy(live);
  const next = deepCopy(live);
  next.metadata = { ...next.metadata, labels: { ...next.metadata?.labels, ...want.metadata!.labels } };
  const spec = (next.spec ??= {});
  spec.type = want.spec!.type;
  spec.selector = { ...want.spec!.selector };
  const wp = want.spec!.ports![0];
  const old = (spec.ports ?? []).find((p) => p.port === wp.port) ?? spec.ports?.[0];
  const port: ServicePort = { ...(old ?? {}), ...wp };
  if (spec.type === "ClusterIP") delete port.nodePort;
  spec.ports = [port];
  return next;
}
