/**
 * The Application API (kubeloop.dev/v1alpha1), declared once: the TS types (types.ts derives
 * them), the CRD (deploy/crds/applications.kubeloop.dev.yaml and the Helm chart's copy are
 * written from it by `kubeloop crd gen`; a test fails when they are stale) and the typed
 * `applications` descriptor all come from `applicationCRD` below.
 */
import type { DeploymentStrategy } from "../../apimachinery/api/apps/v1.js";
import type { EnvVar, ResourceRequirements } from "../../apimachinery/api/core/v1.js";
import { defineCustomResource } from "../../runtime/crd/customresource.js";
import { k } from "../../runtime/crd/schema.js";

const int32 = (o: { minimum?: number; maximum?: number; default?: number } = {}) => k.integer({ format: "int32", ...o });
const int64 = () => k.integer({ format: "int64" });
/** Resource quantities as the CRD admits them (core/v1 ResourceList is a map of Quantity). */
const resourceList = () => k.map(k.intOrString()).optional();

export const applicationPort = k.object({
  name: k.string({ maxLength: 15 }).optional(),
  containerPort: int32({ minimum: 1, maximum: 65535 }),
  protocol: k.enum(["TCP", "UDP", "SCTP"], { default: "TCP" }).optional(),
});

export const applicationServiceSpec = k.object(
  {
    type: k.enum(["ClusterIP", "NodePort", "LoadBalancer"], { default: "ClusterIP" }).optional(),
    port: int32({ minimum: 1, maximum: 65535 }),
    targetPort: k.intOrString({ description: "The container port (number or name); defaults to port." }).optional(),
  },
  { description: "A Service in front of the pods; absent means no Service." },
);

export const applicationSpec = k.object({
  deploymentName: k
    .string({
      description: "Name of the Deployment (and Service) the Application manages; defaults to metadata.name.",
      maxLength: 63,
      pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    })
    .optional(),
  replicas: int32({ minimum: 0, maximum: 1000, default: 1 }).describe("Desired number of pods.").optional(),
  image: k.string({ description: "The container image, e.g. nginx:1.27.", minLength: 1 }),
  ports: k.array(applicationPort, { description: "Ports the container exposes." }).optional(),
  env: k
    .array(
      k.object({
        name: k.string({ minLength: 1 }),
        value: k.string().optional(),
        valueFrom: k.preserveUnknown().optional(),
      }),
      { description: "Environment variables of the container (core/v1 EnvVar)." },
    )
    // valueFrom is kept as sent (preserve-unknown); its TS type is core/v1's EnvVarSource.
    .as<EnvVar[]>()
    .optional(),
  resources: k
    .object({ limits: resourceList(), requests: resourceList() }, { description: "Compute resources of the container (core/v1 ResourceRequirements)." })
    .as<ResourceRequirements>()
    .optional(),
  service: applicationServiceSpec.optional(),
  strategy: k
    .object(
      {
        type: k.enum(["RollingUpdate", "Recreate"]).optional(),
        rollingUpdate: k.object({ maxSurge: k.intOrString().optional(), maxUnavailable: k.intOrString().optional() }).optional(),
      },
      { description: "The Deployment strategy (apps/v1 DeploymentStrategy)." },
    )
    .as<DeploymentStrategy>()
    .optional(),
  paused: k.boolean({ description: "Pauses the Deployment's rollouts (apps/v1 DeploymentSpec.paused)." }).optional(),
});

/** A metav1.Condition, as the CRD's schema declares it. */
export const applicationCondition = k.object({
  type: k.string(),
  status: k.enum(["True", "False", "Unknown"]),
  observedGeneration: int64().optional(),
  lastTransitionTime: k.dateTime().optional(),
  reason: k.string().optional(),
  message: k.string().optional(),
});

export const applicationStatus = k.object({
  observedGeneration: int64().optional(),
  replicas: int32().optional(),
  readyReplicas: int32().optional(),
  availableReplicas: int32().optional(),
  updatedReplicas: int32().optional(),
  selector: k.string({ description: "The pods' label selector in string form (for the scale subresource)." }).optional(),
  serviceName: k.string().optional(),
  conditions: k.array(applicationCondition, { listType: "map", mapKeys: ["type"] }).optional(),
});

export const applicationCRD = defineCustomResource({
  group: "kubeloop.dev",
  scope: "Namespaced",
  names: { kind: "Application", plural: "applications", singular: "application", listKind: "ApplicationList", shortNames: ["app"] },
  labels: { "app.kubernetes.io/name": "kubeloop-application", "app.kubernetes.io/part-of": "kubeloop" },
  versions: {
    v1alpha1: {
      description: "An Application runs one container image as a Deployment, optionally behind a Service.",
      spec: applicationSpec,
      status: applicationStatus.optional(),
      subresources: {
        status: true,
        scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" },
      },
      printerColumns: [
        { name: "Ready", type: "integer", description: "Pods of the Application's Deployment that are ready.", jsonPath: ".status.readyReplicas" },
        { name: "Available", type: "integer", description: "Pods of the Application's Deployment that are available.", jsonPath: ".status.availableReplicas" },
        { name: "Image", type: "string", description: "The container image.", jsonPath: ".spec.image" },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  },
});
