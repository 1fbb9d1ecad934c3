/**
 * A Job's podFailurePolicy (pod_failure_policy.go): the first rule a failed pod matches decides
 * what its failure means — FailJob (the Job fails with reason PodFailurePolicy), FailIndex (the
 * pod's index fails; with backoffLimitPerIndex), Ignore (not counted toward any backoff limit) or
 * Count (counted as usual). A pod matching no rule is counted.
 *
 * A rule matches on the exit code of a terminated container (onExitCodes: In/NotIn, optionally
 * restricted to one containerName; exit code 0 never matches; containers before init containers)
 * or on a pod condition (onPodConditions, e.g. DisruptionTarget=True). Rules with an action this
 * controller does not know are skipped, as the API asks of clients.
 */
import type { Job, PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyOnPodConditionsPattern } from "../../apimachinery/api/batch/v1.js";
import type { ContainerStatus, Pod, PodCondition } from "../../apimachinery/api/core/v1.js";

export type PodFailurePolicyAction = "FailJob" | "FailIndex" | "Ignore" | "Count";

export interface PodFailurePolicyMatch {
  /** The Job's failure message, when a FailJob rule matched. */
  failJobMessage?: string;
  /** Whether the failure counts toward backoffLimit (and backoffLimitPerIndex): false only for Ignore. */
  countFailed: boolean;
  /** The matched rule's action; undefined when no rule matched. */
  action?: PodFailurePolicyAction;
}

const NO_MATCH: PodFailurePolicyMatch = Object.freeze({ countFailed: true });

/** What `policy` says about the failed pod (matchPodFailurePolicy); no policy counts the failure. */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined | null, pod: Pod): PodFailurePolicyMatch {
  if (!policy) return NO_MATCH;
  const ns = pod.metadata?.namespace ?? "";
  const name = pod.metadata?.name ?? "";
  const rules = policy.rules ?? [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    if (rule.onExitCodes) {
      const cs = matchOnExitCodes(pod, rule.onExitCodes);
      if (!cs) continue;
      const m = actionMatch(rule.action, () => `Container ${cs.name} for pod ${ns}/${name} failed with exit code ${cs.state?.terminated?.exitCode ?? 0} matching ${rule.action} rule at index ${index}`);
      if (m) return m;
    } else if (rule.onPodConditions) {
      const cond = matchOnPodConditions(pod, rule.onPodConditions);
      if (!cond) continue;
      const m = actionMatch(rule.action, () => `Pod ${ns}/${name} has condition ${cond.type} matching ${rule.action} rule at index ${index}`);
      if (m) return m;
    }
  }
  return NO_MATCH;
}

function actionMatch(action: string, failJobMessage: () => string): PodFailurePolicyMatch | undefined {
  switch (action) {
    case "Ignore":
      return { countFailed: false, action };
    case "FailIndex":
    case "Count":
      return { countFailed: true, action };
    case "FailJob":
      return { failJobMessage: failJobMessage(), countFailed: true, action };
    default:
      return undefined;
  }
}

/** The first terminated container (then init container) whose non-zero exit code meets the requirement (matchOnExitCodes). */
export function matchOnExitCodes(pod: Pod, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  return matchingContainer(pod.status?.containerStatuses, req) ?? matchingContainer(pod.status?.initContainerStatuses, req);
}

function matchingContainer(statuses: readonly ContainerStatus[] | undefined, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  for (const cs of statuses ?? []) {
    const terminated = cs.state?.terminated;
    // Still running or terminating: no exit code to match.
    if (!terminated) continue;
    if (req.containerName != null && req.containerName !== cs.name) continue;
    const code = terminated.exitCode ?? 0;
    if (code !== 0 && exitCodeOperatorMatches(code, req)) return cs;
  }
  return undefined;
}

function exitCodeOperatorMatches(code: number, req: PodFailurePolicyOnExitCodesRequirement): boolean {
  const values = req.values ?? [];
  if (req.operator === "In") return values.includes(code);
  if (req.operator === "NotIn") return !values.includes(code);
  return false;
}

/** The first pod condition matching one of the patterns by type and status (matchOnPodConditions). */
export function matchOnPodConditions(pod: Pod, patterns: readonly PodFailurePolicyOnPodConditionsPattern[]): PodCondition | undefined {
  for (const c of pod.status?.conditions ?? []) {
    // The API server defaults a pattern's status to True.
    if (patterns.some((p) => p.type === c.type && (p.status ?? "True") === c.status)) return c;
  }
  return undefined;
}

/** The message of the first failed pod matching a FailJob rule (getFailJobMessage); `isFailed` is the controller's isPodFailed. */
export function getFailJobMessage(job: Job, pods: readonly Pod[], isFailed: (p: Pod) => boolean): string | undefined {
  const policy = job.spec?.podFailurePolicy;
  if (!policy) return undefined;
  for (const p of pods) {
    if (!isFailed(p)) continue;
    const m = matchPodFailurePolicy(policy, p);
    if (m.failJobMessage !== undefined) return m.failJobMessage;
  }
  return undefined;
}

/** How many of the failed pods count toward backoffLimit (nonIgnoredFailedPodsCount). */
export function nonIgnoredFailedPodsCount(job: Job, failed: readonly Pod[]): number {
  const policy = job.spec?.podFailurePolicy;
  if (!policy) return failed.length;
  return failed.filter((p) => matchPodFailurePolicy(policy, p).countFailed).length;
}
