/**
 * Which built-in controllers run, chosen as kube-controller-manager's `--controllers` flag
 * chooses them: a list of names where `*` means every controller that is on by default, `foo`
 * turns on `foo` and `-foo` turns it off; the first entry that names a controller decides, and a
 * controller no entry names runs only when the list has `*`. Every name may be given as
 * kubeloop's registry name (`statefulset`), as kube-controller-manager's (`statefulset-controller`)
 * or as its older alias (`statefulset`, `endpoint`, `podgc`, ...), so a flag copied from a
 * kube-controller-manager manifest selects the same controllers here.
 */
import { BUILTIN_CONTROLLERS, type BuiltinControllerName } from "./registry.js";

/** kube-controller-manager's name and aliases of each ported controller (kubeloop's own have none). */
const UPSTREAM_NAMES: Readonly<Partial<Record<BuiltinControllerName, readonly string[]>>> = Object.freeze({
  deployment: ["deployment-controller"],
  replicaset: ["replicaset-controller"],
  job: ["job-controller"],
  cronjob: ["cronjob-controller"],
  ttlafterfinished: ["ttl-after-finished-controller", "ttl-after-finished"],
  garbagecollector: ["garbage-collector-controller"],
  endpoints: ["endpoints-controller", "endpoint"],
  endpointslice: ["endpointslice-controller"],
  endpointslicemirroring: ["endpointslice-mirroring-controller", "endpointslicemirroring"],
  namespace: ["namespace-controller"],
  disruption: ["disruption-controller"],
  statefulset: ["statefulset-controller"],
  daemonset: ["daemonset-controller"],
  persistentvolume: ["persistentvolume-binder-controller", "persistentvolume-binder"],
  pvcprotection: ["persistentvolumeclaim-protection-controller", "pvc-protection"],
  pvprotection: ["persistentvolume-protection-controller", "pv-protection"],
  serviceaccount: ["serviceaccount-controller"],
  serviceaccounttoken: ["serviceaccount-token-controller", "serviceaccount-token"],
  rootcacertpublisher: ["root-ca-certificate-publisher-controller", "root-ca-cert-publisher"],
  resourcequota: ["resourcequota-controller"],
  podgc: ["pod-garbage-collector-controller"],
  nodelifecycle: ["node-lifecycle-controller"],
  tainteviction: ["taint-eviction-controller"],
  podautoscaler: ["horizontal-pod-autoscaler-controller", "horizontalpodautoscaling"],
});

const byName: ReadonlyMap<string, BuiltinControllerName> = new Map(
  BUILTIN_CONTROLLERS.flatMap((c) => [[c, c] as const, ...(UPSTREAM_NAMES[c] ?? []).map((n) => [n, c] as const)]),
);

export class ControllerSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ControllerSelectionError";
  }
}

/** The controller a registry name, upstream name or alias stands for, or undefined. */
export function controllerNamed(name: string): BuiltinControllerName | undefined {
  return byName.get(name);
}

/**
 * The controllers `spec` enables, in registry order. `spec` is the flag's list (comma-separated
 * text or its entries); the default `["*"]` enables all. Throws ControllerSelectionError for a
 * name no controller has, as kube-controller-manager refuses to start.
 */
export function selectControllers(spec: string | readonly string[] = ["*"]): BuiltinControllerName[] {
  const entries = (typeof spec === "string" ? spec.split(",") : spec).map((e) => e.trim()).filter((e) => e !== "");
  const decided = new Map<BuiltinControllerName, boolean>();
  let star = false;
  for (const entry of entries) {
    if (entry === "*") {
      star = true;
      continue;
    }
    const off = entry.startsWith("-");
    const controller = byName.get(off ? entry.slice(1) : entry);
    if (!controller) throw new ControllerSelectionError(`${JSON.stringify(off ? entry.slice(1) : entry)} is not in the list of known controllers`);
    if (!decided.has(controller)) decided.set(controller, !off);
  }
  return BUILTIN_CONTROLLERS.filter((c) => decided.get(c) ?? star);
}
