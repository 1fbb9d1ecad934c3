/**
 * The simulated kubelet's lifecycle hooks end to end with the real kubectl, on a FakeClock the
 * test moves (speedFactor 1, so the fake seconds are the pod's seconds): deleting a Deployment's
 * pod with `preStop: sleep 5` keeps it Terminating through the hook and the 2 s the kubelet
 * gives the container afterwards; a failing postStart shows FailedPostStartHook and the Killing
 * it causes in `kubectl describe pod` and `kubectl get events`; a slow postStart holds the pod
 * back from Ready for the hook's time.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { FakeClock } from "../../src/apimachinery/clock.js";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { Kubectl } from "./kubectl.js";
import { eventually, sleep } from "./controlplane-env.js";

const clock = new FakeClock(Date.UTC(2026, 0, 1));

let cp: RunningControlPlane;
let k: Kubectl;
/** The fake time the pump moves the clock toward (never beyond). */
let target = clock.now();
let stopped = false;
let pumping: Promise<void> | undefined;

/** Moves the fake clock toward `target` in 100 ms steps, yielding real time between steps so the controllers and kubectl keep up. */
async function pump(): Promise<void> {
  while (!stopped) {
    const left = target - clock.now();
    if (left > 0) await clock.advance(Math.min(100, left));
    await sleep(5);
  }
}

/** Moves the fake clock to `at` and waits until it is there. */
async function moveTo(at: number): Promise<void> {
  target = at;
  await eventually(`the fake clock at +${at - clock.now()} ms`, async () => (clock.now() >= at ? true : undefined));
}

beforeAll(async () => {
  cp = await startControlPlane({
    port: 0,
    clock,
    kubelet: { heartbeatIntervalMs: 0, speedFactor: 1, delays: { schedule: 0, containerCreating: 100, running: 100 } },
  });
  pumping = pump();
  await cp.ready;
  k = new Kubectl(cp.api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  stopped = true;
  await pumping;
  await cp?.stop();
});

async function jsonpath(what: string[], path: string): Promise<string> {
  return (await k.ok(["get", ...what, "-o", `jsonpath=${path}`])).trim();
}

/** Lets the clock run until `probe` answers. */
async function runUntil<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  target = clock.now() + 600_000;
  try {
    return await eventually(what, probe, 30_000);
  } finally {
    target = clock.now();
  }
}

it("deleting a Deployment's pod with preStop sleep 5: Terminating through the hook and the 2 s after it, then gone", async () => {
  const manifest = await k.manifest(
    "drain.yaml",
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: drain
spec:
  replicas: 1
  selector: { matchLabels: { app: drain } }
  template:
    metadata: { labels: { app: drain } }
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: web
        image: nginx
        lifecycle:
          preStop:
            sleep: { seconds: 5 }
`,
  );
  await k.ok(["apply", "-f", manifest]);
  const pod = await runUntil("the pod to run", async () => {
    const name = await jsonpath(["pods", "-l", "app=drain"], "{.items[0].metadata.name}");
    return name && (await jsonpath(["pod", name], "{.status.phase}")) === "Running" ? name : undefined;
  });
  // The clock stands still (once the pump's last step is over): the kubelet sees the deletion at t0.
  await sleep(50);
  const t0 = clock.now();
  await k.ok(["delete", "pod", pod, "--wait=false"]);
  await eventually("the kubelet to record Killing", async () => ((await k.ok(["describe", "pod", pod])).match(/Normal\s+Killing\s+.*kubelet\s+Stopping container web/) ? true : undefined));
  expect(await k.ok(["get", "pod", pod])).toMatch(new RegExp(`^${pod}\\s+1/1\\s+Terminating\\s`, "m"));

  // The hook runs 5 s; the container then gets the kubelet's 2 s minimum (5 s of grace less the hook's 5).
  await moveTo(t0 + 6_500);
  await sleep(300);
  expect(await k.ok(["get", "pod", pod])).toMatch(new RegExp(`^${pod}\\s+\\S+\\s+Terminating\\s`, "m"));
  await moveTo(t0 + 7_200);
  await eventually("the pod to be gone", async () => ((await k.run(["get", "pod", pod])).stderr.includes("NotFound") ? true : undefined));
  target = clock.now();
}, 90_000);

it("a failing postStart: FailedPostStartHook and Killing in describe and get events, the container killed and restarted", async () => {
  const manifest = await k.manifest(
    "poststart.yaml",
    `apiVersion: v1
kind: Pod
metadata:
  name: warmup
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: nginx
    lifecycle:
      postStart:
        exec:
          command: ["sh", "-c", "echo warming; exit 1"]
`,
  );
  await k.ok(["apply", "-f", manifest]);
  await runUntil("a restart", async () => (Number((await jsonpath(["pod", "warmup"], "{.status.containerStatuses[0].restartCount}")) || 0) >= 1 ? true : undefined));
  expect(await jsonpath(["pod", "warmup"], "{.status.containerStatuses[0].lastState.terminated.exitCode}")).toBe("137");
  const describe = await k.ok(["describe", "pod", "warmup"]);
  expect(describe).toMatch(/Warning\s+FailedPostStartHook\s+.*kubelet\s+PostStartHook failed/);
  expect(describe).toMatch(/Normal\s+Killing\s+.*kubelet\s+FailedPostStartHook/);
  const events = await k.ok(["get", "events", "--field-selector", "involvedObject.name=warmup", "-o", "custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message", "--no-headers"]);
  expect(events).toMatch(/^Warning\s+FailedPostStartHook\s+PostStartHook failed$/m);
  expect(events).toMatch(/^Normal\s+Started\s+Started container app$/m);
}, 90_000);

it("a slow postStart keeps the pod from Ready for the hook's time; the container runs since its start", async () => {
  const manifest = await k.manifest(
    "slowstart.yaml",
    `apiVersion: v1
kind: Pod
metadata:
  name: slowstart
spec:
  containers:
  - name: app
    image: nginx
    lifecycle:
      postStart:
        sleep: { seconds: 8 }
`,
  );
  await k.ok(["apply", "-f", manifest]);
  await runUntil("the pod to be Ready", async () => ((await jsonpath(["pod", "slowstart"], '{.status.conditions[?(@.type=="Ready")].status}')) === "True" ? true : undefined));
  const startedAt = Date.parse(await jsonpath(["pod", "slowstart"], "{.status.containerStatuses[0].state.running.startedAt}"));
  const readyAt = Date.parse(await jsonpath(["pod", "slowstart"], '{.status.conditions[?(@.type=="Ready")].lastTransitionTime}'));
  // Both on the fake clock, to the second.
  expect(readyAt - startedAt).toBeGreaterThanOrEqual(7_000);
  expect(readyAt - startedAt).toBeLessThanOrEqual(9_000);
}, 90_000);
