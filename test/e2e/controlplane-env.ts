/** Shared setup of the control-plane end-to-end tests: a control plane with a fast kubelet, kubectl, polling. */
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { Kubectl } from "./kubectl.js";
import { eventually as eventuallyIn } from "../../src/testing/eventually.js";

/**
 * The whole control plane on a free port. Pods become ready within a few tens of milliseconds;
 * speedFactor 0.01 turns a terminationGracePeriodSeconds of 100 into one second of Terminating.
 */
export async function startTestControlPlane(): Promise<{ cp: RunningControlPlane; k: Kubectl }> {
  const cp = await startControlPlane({
    port: 0,
    kubelet: { heartbeatIntervalMs: 0, speedFactor: 0.01, delays: { schedule: 0, containerCreating: 10, running: 10 } },
  });
  await cp.ready;
  return { cp, k: new Kubectl(cp.api.kubeconfigPath) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** kubeloop/testing's eventually in real time: polls `probe` until it returns a value. */
export function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  return eventuallyIn(probe, { what, timeoutMs, intervalMs: 50 });
}
