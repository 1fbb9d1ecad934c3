/**
 * Building admission attributes and the errors plugins answer with (upstream's
 * admission.NewAttributesRecord and admission.NewForbidden).
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { GroupResource, GroupVersionKind, GroupVersionResource } from "../../apimachinery/gvk.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { UserInfo } from "../auth/user.js";
import type { AdmissionAttributes, AdmissionOperation } from "./interfaces.js";

export interface AttributesInit {
  operation: AdmissionOperation;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource?: string;
  namespace?: string;
  name?: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  options?: KubeObject;
  dryRun?: boolean;
  /** Absent: the request carried no identity (a server without authentication, or its own write). */
  userInfo?: UserInfo;
  /** The request's warning list (shared: what plugins add is returned to the client). */
  warnings?: string[];
}

const noUser: UserInfo = Object.freeze({ username: "", groups: [] as string[] }) as UserInfo;

export function newAttributes(init: AttributesInit): AdmissionAttributes {
  return {
    operation: init.operation,
    kind: init.kind,
    resource: init.resource,
    subresource: init.subresource ?? "",
    namespace: init.namespace ?? "",
    name: init.name ?? "",
    object: init.object,
    oldObject: init.oldObject,
    options: init.options,
    dryRun: init.dryRun ?? false,
    userInfo: init.userInfo ?? noUser,
    warnings: init.warnings ?? [],
    auditAnnotations: new Map(),
    // Set by the chain during its mutating pass; present from the start so the shape stays the same.
    reinvocation: undefined,
  };
}

export function groupResourceOf(attrs: AdmissionAttributes): GroupResource {
  return { group: attrs.resource.group, resource: attrs.resource.resource };
}

/** Whether the request addresses `resource` in `group` (any version). */
export function isResource(attrs: AdmissionAttributes, group: string, resource: string): boolean {
  return attrs.resource.resource === resource && attrs.resource.group === group;
}

/**
 * admission.NewForbidden: 403 for the request's resource, named after the object (its
 * generateName before a name was generated, "Unknown" without an object).
 */
export function admissionForbidden(attrs: AdmissionAttributes, reason: string): StatusError {
  let name = "Unknown";
  const meta = attrs.object?.metadata;
  if (attrs.object) {
    if (meta?.name) name = meta.name;
    else if (meta?.generateName) name = meta.generateName;
  }
  return StatusError.forbidden(groupResourceOf(attrs), name, reason);
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several as "[a, b]". */
export function aggregateMessages(msgs: readonly string[]): string {
  if (msgs.length === 1) return msgs[0];
  return `[${msgs.join(", ")}]`;
}
