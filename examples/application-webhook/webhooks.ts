/**
 * A defaulting and a validating webhook for the Application kind (kubeloop.dev/v1alpha1), the
 * way a controller-runtime user writes a CustomDefaulter and a CustomValidator — here as typed
 * handlers registered on the runtime's WebhookServer.
 *
 * Defaulting (what the CRD's schema defaults cannot express):
 *   - `metadata.labels["app.kubernetes.io/name"]` defaults to the Application's name;
 *   - `spec.resources` defaults to requests of 100m CPU and 128Mi memory;
 *   - `spec.service.targetPort` defaults to the only named container port, when there is one.
 * Validation (what a schema cannot express, or only with cross-field rules):
 *   - `spec.image` must name a tag other than `latest`, or a digest;
 *   - a named `spec.service.targetPort` must be the name of one of `spec.ports`;
 *   - `spec.deploymentName` cannot change once set (the children would be orphaned);
 *   - a warning, not a denial, for a single replica.
 * Messages follow upstream's field error format (`<path>: Invalid value: "<v>": <detail>`).
 */
import { allowed, denied, type AdmissionDecision, type WebhookServer } from "kubeloop";
import { applicationsResource, type Application } from "kubeloop/controllers/application";

export const NAME_LABEL = "app.kubernetes.io/name";
export const DEFAULT_RESOURCES = Object.freeze({ requests: Object.freeze({ cpu: "100m", memory: "128Mi" }) });

/** Fills in the defaults, in place. */
export function defaultApplication(app: Application): void {
  const name = app.metadata?.name;
  if (name && app.metadata?.labels?.[NAME_LABEL] === undefined) {
    app.metadata = { ...app.metadata, labels: { ...app.metadata?.labels, [NAME_LABEL]: name } };
  }
  if (!app.spec) return;
  app.spec.resources ??= { requests: { ...DEFAULT_RESOURCES.requests } };
  const svc = app.spec.service;
  const named = (app.spec.ports ?? []).filter((p) => p.name);
  if (svc && svc.targetPort === undefined && named.length === 1) svc.targetPort = named[0].name;
}

/** An image reference names a digest, or a tag other than latest. */
function imageProblem(image: string): string | undefined {
  if (image.includes("@")) return undefined;
  const lastSlash = image.lastIndexOf("/");
  const colon = image.indexOf(":", lastSlash + 1);
  const tag = colon < 0 ? "" : image.slice(colon + 1);
  if (tag === "" || tag === "latest") return "must name a tag other than latest, or a digest";
  return undefined;
}

const invalid = (path: string, value: unknown, detail: string) => `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;

/** The validation: every problem at once (as upstream aggregates field errors), then the warnings. */
export function validateApplication(app: Application, old?: Application): AdmissionDecision {
  const problems: string[] = [];
  const spec = app.spec;
  if (spec?.image !== undefined) {
    const p = imageProblem(spec.image);
    if (p) problems.push(invalid("spec.image", spec.image, p));
  }
  const target = spec?.service?.targetPort;
  if (typeof target === "string" && !(spec?.ports ?? []).some((p) => p.name === target)) {
    problems.push(invalid("spec.service.targetPort", target, "must be the name of one of spec.ports"));
  }
  if (old?.spec?.deploymentName !== undefined && spec?.deploymentName !== old.spec.deploymentName) {
    problems.push(invalid("spec.deploymentName", spec?.deploymentName ?? "", "field is immutable"));
  }
  if (problems.length === 1) return denied(problems[0]);
  if (problems.length > 1) return denied(`[${problems.join(", ")}]`);
  return allowed(spec?.replicas === 1 ? ["spec.replicas is 1: the application is not highly available"] : []);
}

/** Registers both handlers on `server` (paths /mutate-kubeloop-dev-v1alpha1-application and /validate-...). */
export function addApplicationWebhooks(server: WebhookServer): void {
  server.mutating<Application>(applicationsResource, (app) => defaultApplication(app));
  server.validating<Application>(applicationsResource, (app, req) => validateApplication(app, req.oldObject));
}
