import type { Container, LifecycleHandler, Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { hookOutcome, InvalidHookAnnotationError, killTimeline, podHasPostStart, type HookOutcome, type HookType } from "./hooks.js";

function podWith(handler: LifecycleHandler, type: HookType = "postStart", annotations?: Record<string, string>, extra: Partial<Container> = {}): { pod: Pod; container: Container } {
  const container: Container = { name: "app", image: "nginx", lifecycle: { [type]: handler }, ...extra };
  const pod: Pod = {
    metadata: { name: "web", namespace: "default", uid: "u1", ...(annotations ? { annotations } : {}) },
    spec: { containers: [container] },
    status: { podIP: "10.244.1.7" },
  };
  return { pod, container };
}

const WHERE = 'for Container "app" in Pod "web_default(u1)" failed - error: ';

describe("what a hook does (the handler, or the annotation that wins)", () => {
  const cases: Array<{ name: string; handler: LifecycleHandler; annotation?: string; container?: Partial<Container>; want: HookOutcome }> = [
    { name: "exec of a script that exits 0 after its sleeps", handler: { exec: { command: ["sh", "-c", "echo hi; sleep 3"] } }, want: { ok: true, runMs: 3000, message: "" } },
    {
      name: "exec of a script that exits non-zero: the kubelet's message, with what it wrote",
      handler: { exec: { command: ["sh", "-c", "echo nope; sleep 1; exit 3"] } },
      want: { ok: false, runMs: 1000, message: `Exec lifecycle hook ([sh -c echo nope; sleep 1; exit 3]) ${WHERE}command 'sh -c echo nope; sleep 1; exit 3' exited with 3: , message: "nope\\n"` },
    },
    { name: "exec with no timeout: a long script still succeeds", handler: { exec: { command: ["sleep", "600"] } }, want: { ok: true, runMs: 600_000, message: "" } },
    { name: "exec of a command the simulator does not know: succeeds at once", handler: { exec: { command: ["/usr/sbin/nginx", "-s", "quit"] } }, want: { ok: true, runMs: 0, message: "" } },
    { name: "httpGet: succeeds at once", handler: { httpGet: { path: "/drain", port: 8080 } }, want: { ok: true, runMs: 0, message: "" } },
    { name: "sleep: runs its seconds", handler: { sleep: { seconds: 5 } }, want: { ok: true, runMs: 5000, message: "" } },
    { name: "sleep 0 (PodLifecycleSleepActionAllowZero, GA in 1.34)", handler: { sleep: { seconds: 0 } }, want: { ok: true, runMs: 0, message: "" } },
    {
      name: "tcpSocket: the kubelet has no such handler and fails it",
      handler: { tcpSocket: { port: 8080 } },
      want: { ok: false, runMs: 0, message: "Cannot run handler: invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{Port:{0 8080 },Host:,},Sleep:nil,}" },
    },
    {
      name: "annotation fail on httpGet: connection refused at the pod IP, named port resolved",
      handler: { httpGet: { path: "/drain", port: "http" } },
      container: { ports: [{ name: "http", containerPort: 8080 }] },
      annotation: "fail",
      want: { ok: false, runMs: 0, message: `HTTP lifecycle hook (/drain) ${WHERE}Get "http://10.244.1.7:8080/drain": dial tcp 10.244.1.7:8080: connect: connection refused` },
    },
    {
      name: "annotation fail-after=2 on exec that would pass",
      handler: { exec: { command: ["true"] } },
      annotation: "fail-after=2",
      want: { ok: false, runMs: 2000, message: `Exec lifecycle hook ([true]) ${WHERE}command 'true' exited with 1: , message: ""` },
    },
    { name: "annotation pass-after=1.5s on a failing exec", handler: { exec: { command: ["false"] } }, annotation: "pass-after=1.5s", want: { ok: true, runMs: 1500, message: "" } },
    { name: "annotation pass on tcpSocket", handler: { tcpSocket: { port: 80 } }, annotation: "pass", want: { ok: true, runMs: 0, message: "" } },
    { name: "annotation fail on sleep", handler: { sleep: { seconds: 5 } }, annotation: "fail", want: { ok: false, runMs: 0, message: `Sleep lifecycle hook (5) ${WHERE}container terminated before sleep hook finished` } },
  ];
  it.each(cases)("$name", (t) => {
    const { pod, container } = podWith(t.handler, "preStop", t.annotation ? { "sim.kubeloop.dev/hook.app.preStop": t.annotation } : undefined, t.container);
    expect(hookOutcome(pod, container, "preStop")).toEqual(t.want);
  });

  it("the annotation names the container and the hook; other hooks and containers are unaffected", () => {
    const { pod, container } = podWith({ sleep: { seconds: 1 } }, "postStart", { "sim.kubeloop.dev/hook.app.preStop": "fail", "sim.kubeloop.dev/hook.other.postStart": "fail" });
    expect(hookOutcome(pod, container, "postStart")).toEqual({ ok: true, runMs: 1000, message: "" });
    expect(hookOutcome(pod, container, "preStop")).toBeUndefined();
  });

  it("an invalid annotation is reported and ignored", () => {
    const { pod, container } = podWith({ sleep: { seconds: 1 } }, "postStart", { "sim.kubeloop.dev/hook.app.postStart": "sometimes" });
    const errs: InvalidHookAnnotationError[] = [];
    expect(hookOutcome(pod, container, "postStart", (e) => errs.push(e))).toEqual({ ok: true, runMs: 1000, message: "" });
    expect(errs.map((e) => e.message)).toEqual(['invalid sim.kubeloop.dev/hook.app.postStart annotation "sometimes": want pass, fail, pass-after=<seconds> or fail-after=<seconds>']);
  });

  it("podHasPostStart looks at sidecars and containers", () => {
    expect(podHasPostStart(podWith({ sleep: { seconds: 1 } }, "preStop").pod)).toBe(false);
    expect(podHasPostStart(podWith({ sleep: { seconds: 1 } }, "postStart").pod)).toBe(true);
    expect(podHasPostStart({ spec: { containers: [{ name: "a" }], initContainers: [{ name: "s", restartPolicy: "Always", lifecycle: { postStart: { sleep: { seconds: 1 } } } }] } })).toBe(true);
  });
});

// kuberuntime killContainer: the preStop hook gets the grace period; the container what is left
// in whole seconds, at least minimumGracePeriodInSeconds (2).
describe("a kill's timeline (killContainer, executePreStopHook)", () => {
  const pass = (s: number): HookOutcome => ({ ok: true, runMs: s * 1000, message: "" });
  const fail = (s: number): HookOutcome => ({ ok: false, runMs: s * 1000, message: "x" });
  const cases: Array<{ name: string; grace: number; hook?: HookOutcome; speed?: number; want: ReturnType<typeof killTimeline> }> = [
    { name: "no hook: the grace period", grace: 30, want: { killMs: 30_000 } },
    { name: "no hook, grace 0: at once (no minimum without a hook)", grace: 0, want: { killMs: 0 } },
    { name: "a 5 s hook in 30 s: the container gets the other 25 s", grace: 30, hook: pass(5), want: { hookEndMs: 5000, killMs: 30_000 } },
    { name: "a 5.5 s hook: 25 s left (whole seconds elapsed are counted)", grace: 30, hook: pass(5.5), want: { hookEndMs: 5500, killMs: 30_500 } },
    { name: "a hook that takes 29 s of 30: the 2 s minimum", grace: 30, hook: pass(29), want: { hookEndMs: 29_000, killMs: 31_000 } },
    { name: "a hook that outlives the grace period: cut off, then the 2 s minimum", grace: 3, hook: pass(10), want: { hookEndMs: 3000, killMs: 5000 } },
    { name: "a hook that fails after 1 s: FailedPreStopHook then", grace: 30, hook: fail(1), want: { hookEndMs: 1000, hookFailedMs: 1000, killMs: 30_000 } },
    { name: "a failing hook cut off by the grace period records no failure", grace: 2, hook: fail(5), want: { hookEndMs: 2000, killMs: 4000 } },
    { name: "grace 0: the hook does not run", grace: 0, hook: fail(1), want: { killMs: 0 } },
    { name: "scaled by the speed factor", grace: 30, hook: pass(40), speed: 0.1, want: { hookEndMs: 3000, killMs: 3200 } },
  ];
  it.each(cases)("$name", (t) => {
    expect(killTimeline(t.grace, t.hook, t.speed ?? 1)).toEqual(t.want);
  });
});
