/**
 * An Application's status, computed from what one sync observed.
 *
 * Conditions (types in types.ts):
 * - Available, Progressing: the Deployment's condition of the same type (status, reason,
 *   message); Unknown / AwaitingDeploymentStatus until the Deployment reports one;
 * - ReconcileError: True with the failure's reason and message when the sync failed, otherwise
 *   False / ReconcileSucceeded;
 * - Paused: present (True) only while the kubeloop.dev/paused annotation stops reconciliation.
 * A condition's lastTransitionTime changes only when its status changes, so recomputing the status
 * of an unchanged world yields an equal object — the controller writes status only when
 * `statusEqual` says it changed.
 */
import type { Deployment, DeploymentCondition } from "../../apimachinery/api/apps/v1.js";
import { setStatusCondition } from "../../apimachinery/conditions.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import {
  CONDITION_AVAILABLE,
  CONDITION_PAUSED,
  CONDITION_PROGRESSING,
  CONDITION_RECONCILE_ERROR,
  MESSAGE_PAUSED,
  REASON_AWAITING_DEPLOYMENT,
  REASON_PAUSED,
  REASON_RECONCILED,
  type Application,
  type ApplicationCondition,
  type ApplicationStatus,
  type ConditionStatus,
} from "./types.js";

/** What a sync saw; absent fields keep their previous status values. */
export interface Observation {
  /** The Deployment the Application controls (absent when it could not be made or is foreign). */
  deployment?: Deployment;
  /** The name of the Service the Application controls, when there is one. */
  serviceName?: string;
  /** Whether the Application wants no Service (clears serviceName). */
  noService?: boolean;
  /** A failure of this sync. */
  error?: { reason: string; message: string };
  /** The paused annotation is set: only the Paused condition changes. */
  paused?: boolean;
}

function fromDeployment(d: Deployment | undefined, type: string): { status: ConditionStatus; reason: string; message: string } {
  const c: DeploymentCondition | undefined = d?.status?.conditions?.find((x) => x.type === type);
  if (!c) return { status: "Unknown", reason: REASON_AWAITING_DEPLOYMENT, message: "the Deployment has not reported this condition yet" };
  const status: ConditionStatus = c.status === "True" || c.status === "False" ? c.status : "Unknown";
  return { status, reason: c.reason ?? "", message: c.message ?? "" };
}

const CONDITION_ORDER = [CONDITION_AVAILABLE, CONDITION_PROGRESSING, CONDITION_RECONCILE_ERROR, CONDITION_PAUSED];

function sortConditions(cs: ApplicationCondition[]): ApplicationCondition[] {
  const rank = (t: string) => {
    const i = CONDITION_ORDER.indexOf(t);
    return i < 0 ? CONDITION_ORDER.length : i;
  };
  return cs.sort((a, b) => rank(a.type) - rank(b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** The new status of `app` after a sync that observed `obs`, at time `now` (ms). */
export function computeStatus(app: Application, obs: Observation, now: number): ApplicationStatus {
  const old = app.status ?? {};
  const status: ApplicationStatus = deepCopy(old);
  const generation = app.metadata?.generation;
  let conditions = [...(status.conditions ?? [])];
  // meta.SetStatusCondition: lastTransitionTime moves (to now) only when a status changes.
  const set = (type: string, s: ConditionStatus, reason: string, message: string) => {
    const c: ApplicationCondition = { type, status: s, reason, message };
    if (generation !== undefined) c.observedGeneration = generation;
    setStatusCondition(conditions, c, now);
  };

  if (obs.paused) {
    set(CONDITION_PAUSED, "True", REASON_PAUSED, MESSAGE_PAUSED);
    status.conditions = sortConditions(conditions);
    return status;
  }
  conditions = conditions.filter((c) => c.type !== CONDITION_PAUSED);
  if (generation !== undefined) status.observedGeneration = generation;

  const d = obs.deployment;
  if (d) {
    const ds = d.status ?? {};
    status.replicas = ds.replicas ?? 0;
    status.readyReplicas = ds.readyReplicas ?? 0;
    status.availableReplicas = ds.availableReplicas ?? 0;
    status.updatedReplicas = ds.updatedReplicas ?? 0;
    const sel = labelSelectorAsSelector(d.spec?.selector);
    status.selector = sel.toString();
    for (const type of [CONDITION_AVAILABLE, CONDITION_PROGRESSING]) {
      const c = fromDeployment(d, type);
      set(type, c.status, c.reason, c.message);
    }
  } else {
    for (const type of [CONDITION_AVAILABLE, CONDITION_PROGRESSING]) {
      if (!conditions.some((c) => c.type === type)) {
        const c = fromDeployment(undefined, type);
        set(type, c.status, c.reason, c.message);
      }
    }
  }
  if (obs.serviceName) status.serviceName = obs.serviceName;
  else if (obs.noService) delete status.serviceName;

  if (obs.error) set(CONDITION_RECONCILE_ERROR, "True", obs.error.reason, obs.error.message);
  else set(CONDITION_RECONCILE_ERROR, "False", REASON_RECONCILED, "the Deployment and Service match the Application");
  status.conditions = sortConditions(conditions);
  return status;
}

/** Whether two statuses are semantically equal (no write needed). */
export function statusEqual(a: ApplicationStatus | undefined, b: ApplicationStatus | undefined): boolean {
  return semanticEqual(a ?? {}, b ?? {});
}
