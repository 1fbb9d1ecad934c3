/**
 * Test doubles of the registry strategies (the real ones come from src/apiserver/registry),
 * just enough upstream behaviour to exercise the generic server: defaults, generation bumps,
 * status handling, one validation rule, field sets.
 */
import { fieldErrors, type FieldError } from "../../src/apimachinery/fielderrors.js";
import { semanticEqual } from "../../src/apimachinery/deepcopy.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import type { ResourceStrategy, ScaleSubresource } from "../../src/apiserver/registry/strategy.js";

const verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

interface Def {
  group?: string;
  version?: string;
  kind: string;
  resource: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: ScaleSubresource;
  generation?: boolean;
  defaults?: (o: KubeObject) => void;
  validate?: (o: KubeObject) => FieldError[];
  fields?: (o: KubeObject) => Record<string, string>;
  onCreate?: (o: KubeObject) => void;
}

function strategy(d: Def): ResourceStrategy {
  const namespaced = d.namespaced ?? true;
  return {
    names: {
      group: d.group ?? "",
      version: d.version ?? "v1",
      kind: d.kind,
      resource: d.resource,
      singular: d.kind.toLowerCase(),
      listKind: `${d.kind}List`,
      shortNames: d.shortNames ?? [],
      categories: d.categories ?? [],
      namespaced,
    },
    verbs,
    subresources: { status: d.status, scale: d.scale },
    defaults: (o) => d.defaults?.(o),
    prepareForCreate(o) {
      if (d.status) o.status = {};
      if (d.generation) o.metadata!.generation = 1;
      d.onCreate?.(o);
    },
    prepareForUpdate(o, old) {
      if (d.status) o.status = old.status;
      if (d.generation && !semanticEqual(o.spec, old.spec)) o.metadata!.generation = (old.metadata?.generation ?? 0) + 1;
    },
    prepareForStatusUpdate(o, old) {
      const status = o.status;
      for (const k of Object.keys(o)) if (k !== "metadata" && k !== "status" && k !== "apiVersion" && k !== "kind") delete o[k];
      for (const k of Object.keys(old)) if (k !== "metadata" && k !== "status") o[k] = structuredClone(old[k]);
      o.status = status;
    },
    validate: (o) => d.validate?.(o) ?? [],
    validateUpdate: (o) => d.validate?.(o) ?? [],
    validateStatusUpdate: () => [],
    fieldSet(o) {
      const base: Record<string, string> = { "metadata.name": o.metadata?.name ?? "" };
      if (namespaced) base["metadata.namespace"] = o.metadata?.namespace ?? "";
      return { ...base, ...(d.fields?.(o) ?? {}) };
    },
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
  };
}

interface Spec {
  replicas?: number;
  nodeName?: string;
  finalizers?: string[];
}

export function testStrategies(): ResourceStrategy[] {
  return [
    strategy({
      kind: "Namespace",
      resource: "namespaces",
      namespaced: false,
      shortNames: ["ns"],
      status: true,
      defaults(o) {
        // The "kubernetes" finalizer is added at create (upstream's PrepareForCreate), not by
        // defaulting: a namespaces/finalize body whose list is empty decodes without the field.
        const status = (o.status ?? {}) as { phase?: string };
        if (!status.phase) status.phase = "Active";
        o.status = status;
        o.metadata!.labels = { ...(o.metadata!.labels ?? {}), "kubernetes.io/metadata.name": o.metadata!.name ?? "" };
      },
      onCreate(o) {
        const spec = ((o.spec as Spec | undefined) ?? {}) as Spec;
        if (!spec.finalizers?.includes("kubernetes")) spec.finalizers = [...(spec.finalizers ?? []), "kubernetes"];
        o.spec = spec;
        o.status = { phase: "Active" };
      },
    }),
    strategy({ kind: "ConfigMap", resource: "configmaps", shortNames: ["cm"] }),
    strategy({ kind: "ServiceAccount", resource: "serviceaccounts", shortNames: ["sa"] }),
    strategy({ kind: "Endpoints", resource: "endpoints", shortNames: ["ep"] }),
    strategy({ kind: "Service", resource: "services", shortNames: ["svc"], categories: ["all"], status: true }),
    strategy({
      kind: "Pod",
      resource: "pods",
      shortNames: ["po"],
      categories: ["all"],
      status: true,
      onCreate(o) {
        o.status = { phase: "Pending" };
      },
      fields: (o) => ({ "spec.nodeName": (o.spec as Spec | undefined)?.nodeName ?? "", "status.phase": (o.status as { phase?: string } | undefined)?.phase ?? "" }),
    }),
    strategy({
      group: "apps",
      kind: "Deployment",
      resource: "deployments",
      shortNames: ["deploy"],
      categories: ["all"],
      status: true,
      generation: true,
      scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".spec.selector" },
      defaults(o) {
        const spec = (o.spec ?? {}) as Spec;
        if (spec.replicas === undefined) spec.replicas = 1;
        o.spec = spec;
      },
      validate(o) {
        const r = (o.spec as Spec | undefined)?.replicas;
        return r !== undefined && r < 0 ? [fieldErrors.invalid("spec.replicas", r, "must be greater than or equal to 0")] : [];
      },
    }),
  ];
}
