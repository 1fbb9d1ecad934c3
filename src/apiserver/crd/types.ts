/**
 * The CustomResourceDefinition shapes the server works with (apiextensions.k8s.io/v1), with
 * the schema typed as our Schema (the structural-schema view the server validates with), and
 * accessors that tolerate malformed input.
 */
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionNames,
  CustomResourceSubresourceScale,
} from "../../apimachinery/api/apiextensions/v1.js";
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isObject, type Schema } from "./schema.js";

export const crdGroup = "apiextensions.k8s.io";
export const crdResource = "customresourcedefinitions";
/** The finalizer that holds a deleted CRD until every custom resource of it is gone. */
export const customResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Schema };
  subresources?: { status?: object; scale?: CustomResourceSubresourceScale };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: { jsonPath: string }[];
}

export interface CRDSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: string;
  versions: CRDVersion[];
  conversion?: { strategy: string; webhook?: unknown };
  preserveUnknownFields?: boolean;
}

export interface CRDStatus {
  acceptedNames?: CustomResourceDefinitionNames;
  conditions?: CustomResourceDefinitionCondition[];
  storedVersions?: string[];
}

export interface CRD extends KubeObject {
  metadata?: ObjectMeta;
  spec: CRDSpec;
  status?: CRDStatus;
}

/** The object as a CRD, with the containers the server relies on present (for reading only). */
export function asCRD(obj: KubeObject): CRD {
  const c = obj as CRD;
  return c;
}

export function specOf(obj: KubeObject): Partial<CRDSpec> {
  return isObject(obj.spec) ? (obj.spec as Partial<CRDSpec>) : {};
}

export function versionsOf(obj: KubeObject): CRDVersion[] {
  const v = specOf(obj).versions;
  return Array.isArray(v) ? v.filter(isObject).map((x) => x as unknown as CRDVersion) : [];
}

export function namesOf(obj: KubeObject): Partial<CustomResourceDefinitionNames> {
  const n = specOf(obj).names;
  return isObject(n) ? (n as Partial<CustomResourceDefinitionNames>) : {};
}

export function statusOf(obj: KubeObject): CRDStatus {
  return isObject(obj.status) ? (obj.status as CRDStatus) : {};
}

export function conditionOf(obj: KubeObject, type: string): CustomResourceDefinitionCondition | undefined {
  const conds = statusOf(obj).conditions;
  return Array.isArray(conds) ? conds.find((c) => isObject(c) && c.type === type) : undefined;
}

export function isConditionTrue(obj: KubeObject, type: string): boolean {
  return conditionOf(obj, type)?.status === "True";
}

/**
 * Kube-aware version priority (version.CompareKubeAwareVersionStrings): GA before beta before
 * alpha, higher numbers first; non-Kubernetes version strings last, alphabetically.
 */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const kind = m[2] === undefined ? 3 : m[2] === "beta" ? 2 : 1;
    return { major: Number(m[1]), kind, minor: m[3] === undefined ? 0 : Number(m[3]) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.kind !== pb.kind) return pb.kind - pa.kind;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}
