import { describe, expect, it } from "vitest";
import type { PodFailurePolicy } from "../../apimachinery/api/batch/v1.js";
import type { ContainerStatus, Pod, PodCondition } from "../../apimachinery/api/core/v1.js";
import { matchPodFailurePolicy, type PodFailurePolicyMatch } from "./podfailurepolicy.js";

function status(name: string, exitCode: number | undefined): ContainerStatus {
  return { name, image: "i", imageID: "", ready: false, restartCount: 0, state: exitCode === undefined ? { running: {} } : { terminated: { exitCode } } };
}

function failedPod(o: { containers?: ContainerStatus[]; init?: ContainerStatus[]; conditions?: PodCondition[] } = {}): Pod {
  return {
    metadata: { namespace: "default", name: "mypod" },
    status: { phase: "Failed", containerStatuses: o.containers ?? [], initContainerStatuses: o.init ?? [], conditions: o.conditions ?? [] },
  };
}

const exitRule = (action: string, operator: string, values: number[], containerName?: string) => ({ action, onExitCodes: { operator, values, ...(containerName ? { containerName } : {}) } });
const condRule = (action: string, type: string, status = "True") => ({ action, onPodConditions: [{ type, status }] });

interface Case {
  name: string;
  policy: PodFailurePolicy | undefined;
  pod: Pod;
  want: PodFailurePolicyMatch;
}

// Restated from upstream's TestMatchPodFailurePolicy (pod_failure_policy_test.go).
const cases: Case[] = [
  { name: "no policy: counted", policy: undefined, pod: failedPod({ containers: [status("main", 2)] }), want: { countFailed: true } },
  {
    name: "unknown action rule is skipped, the next rule matches",
    policy: { rules: [exitRule("UnknownAction", "In", [1, 2]), exitRule("Ignore", "In", [2])] },
    pod: failedPod({ containers: [status("main", 2)] }),
    want: { countFailed: false, action: "Ignore" },
  },
  {
    name: "unknown operator never matches",
    policy: { rules: [exitRule("FailJob", "UnknownOperator", [2]), exitRule("Count", "In", [2])] },
    pod: failedPod({ containers: [status("main", 2)] }),
    want: { countFailed: true, action: "Count" },
  },
  {
    name: "ignore rule matched for exit codes",
    policy: { rules: [exitRule("Ignore", "In", [1, 2, 3])] },
    pod: failedPod({ containers: [status("main", 2)] }),
    want: { countFailed: false, action: "Ignore" },
  },
  {
    name: "FailJob rule matched for exit codes: message names container, pod, code and rule index",
    policy: { rules: [exitRule("Ignore", "In", [4]), exitRule("FailJob", "In", [1, 2, 3])] },
    pod: failedPod({ containers: [status("main-container", 2)] }),
    want: { countFailed: true, action: "FailJob", failJobMessage: "Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 1" },
  },
  {
    name: "FailJob rule matched for NotIn",
    policy: { rules: [exitRule("FailJob", "NotIn", [1, 2, 3])] },
    pod: failedPod({ containers: [status("main-container", 42)] }),
    want: { countFailed: true, action: "FailJob", failJobMessage: "Container main-container for pod default/mypod failed with exit code 42 matching FailJob rule at index 0" },
  },
  {
    name: "NotIn does not match a listed code",
    policy: { rules: [exitRule("FailJob", "NotIn", [1, 2, 3])] },
    pod: failedPod({ containers: [status("main", 2)] }),
    want: { countFailed: true },
  },
  {
    name: "exit code 0 never matches, even NotIn",
    policy: { rules: [exitRule("FailJob", "NotIn", [1])] },
    pod: failedPod({ containers: [status("main", 0)] }),
    want: { countFailed: true },
  },
  {
    name: "a running container has no exit code to match",
    policy: { rules: [exitRule("FailJob", "NotIn", [1])] },
    pod: failedPod({ containers: [status("main", undefined)] }),
    want: { countFailed: true },
  },
  {
    name: "containerName restricts the match: other container's code ignored",
    policy: { rules: [exitRule("FailJob", "In", [2], "main")] },
    pod: failedPod({ containers: [status("main", 1), status("sidecar", 2)] }),
    want: { countFailed: true },
  },
  {
    name: "containerName matches an init container",
    policy: { rules: [exitRule("FailJob", "In", [3], "init")] },
    pod: failedPod({ init: [status("init", 3)] }),
    want: { countFailed: true, action: "FailJob", failJobMessage: "Container init for pod default/mypod failed with exit code 3 matching FailJob rule at index 0" },
  },
  {
    name: "containers are checked before init containers",
    policy: { rules: [exitRule("FailJob", "In", [3, 4])] },
    pod: failedPod({ init: [status("init", 3)], containers: [status("main", 4)] }),
    want: { countFailed: true, action: "FailJob", failJobMessage: "Container main for pod default/mypod failed with exit code 4 matching FailJob rule at index 0" },
  },
  {
    name: "FailIndex rule matched",
    policy: { rules: [exitRule("FailIndex", "In", [7])] },
    pod: failedPod({ containers: [status("main", 7)] }),
    want: { countFailed: true, action: "FailIndex" },
  },
  {
    name: "ignore rule matched for pod conditions (DisruptionTarget)",
    policy: { rules: [condRule("Ignore", "DisruptionTarget")] },
    pod: failedPod({ conditions: [{ type: "DisruptionTarget", status: "True" }] }),
    want: { countFailed: false, action: "Ignore" },
  },
  {
    name: "pod condition pattern status must match",
    policy: { rules: [condRule("Ignore", "DisruptionTarget", "True")] },
    pod: failedPod({ conditions: [{ type: "DisruptionTarget", status: "False" }] }),
    want: { countFailed: true },
  },
  {
    name: "FailJob rule matched for pod conditions",
    policy: { rules: [condRule("FailJob", "ResourceExhausted")] },
    pod: failedPod({ conditions: [{ type: "ResourceExhausted", status: "True" }] }),
    want: { countFailed: true, action: "FailJob", failJobMessage: "Pod default/mypod has condition ResourceExhausted matching FailJob rule at index 0" },
  },
  {
    name: "Count rule matched for pod conditions",
    policy: { rules: [condRule("Count", "DisruptionTarget")] },
    pod: failedPod({ conditions: [{ type: "DisruptionTarget", status: "True" }] }),
    want: { countFailed: true, action: "Count" },
  },
  {
    name: "first matching rule wins: Count before FailJob",
    policy: { rules: [exitRule("Count", "In", [5]), exitRule("FailJob", "In", [5])] },
    pod: failedPod({ containers: [status("main", 5)] }),
    want: { countFailed: true, action: "Count" },
  },
  {
    name: "no rule matches: counted",
    policy: { rules: [exitRule("FailJob", "In", [1]), condRule("Ignore", "DisruptionTarget")] },
    pod: failedPod({ containers: [status("main", 2)] }),
    want: { countFailed: true },
  },
];

describe("matchPodFailurePolicy (upstream TestMatchPodFailurePolicy)", () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(matchPodFailurePolicy(c.policy, c.pod)).toEqual(c.want);
    });
  }
});
