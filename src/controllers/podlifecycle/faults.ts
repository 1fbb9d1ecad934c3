/**
 * Fault injection for the simulated kubelet, so that progress deadlines, unavailable replicas and
 * crash loops can be exercised without real workloads.
 *
 * A pod asks for a fault through the annotation `kubeloop.dev/fault` (which wins), or through the
 * image name of any of its containers:
 *
 * | annotation value   | image name contains | effect                                                        |
 * |--------------------|---------------------|---------------------------------------------------------------|
 * | `never-ready`      | `never-ready`       | containers run but never become ready                          |
 * | `crash-loop`       | `crashloop`         | containers keep exiting: restartCount grows, CrashLoopBackOff  |
 * | `fail-after=<s>`   | `fail-after-<s>s`   | runs and becomes ready, then the pod fails (phase Failed) after s seconds |
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";

export const FAULT_ANNOTATION = "kubeloop.dev/fault";

export type Fault =
  | { kind: "none" }
  | { kind: "never-ready" }
  | { kind: "crash-loop" }
  | { kind: "fail-after"; seconds: number };

export class InvalidFaultError extends Error {
  constructor(readonly value: string) {
    super(`invalid ${FAULT_ANNOTATION} annotation ${JSON.stringify(value)}: want never-ready, crash-loop or fail-after=<seconds>`);
    this.name = "InvalidFaultError";
  }
}

/** Parses an annotation value; throws InvalidFaultError for anything else. */
export function parseFault(value: string): Fault {
  const v = value.trim();
  if (v === "never-ready") return { kind: "never-ready" };
  if (v === "crash-loop") return { kind: "crash-loop" };
  const m = /^fail-after=([0-9]+(?:\.[0-9]+)?)s?$/.exec(v);
  if (m) return { kind: "fail-after", seconds: Number(m[1]) };
  throw new InvalidFaultError(value);
}

/** The fault an image name asks for, if any. */
export function faultFromImage(image: string): Fault | undefined {
  if (image.includes("never-ready")) return { kind: "never-ready" };
  if (image.includes("crashloop")) return { kind: "crash-loop" };
  const m = /fail-after-([0-9]+)s/.exec(image);
  if (m) return { kind: "fail-after", seconds: Number(m[1]) };
  return undefined;
}

/**
 * The fault a pod asks for. An invalid annotation is reported through `onInvalid` and ignored
 * (the pod then runs normally, or per its images).
 */
export function detectFault(pod: Pod, onInvalid?: (err: InvalidFaultError) => void): Fault {
  const a = pod.metadata?.annotations?.[FAULT_ANNOTATION];
  if (a !== undefined) {
    try {
      return parseFault(a);
    } catch (err) {
      if (err instanceof InvalidFaultError) onInvalid?.(err);
      else throw err;
    }
  }
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const f = faultFromImage(c.image ?? "");
    if (f) return f;
  }
  return { kind: "none" };
}
