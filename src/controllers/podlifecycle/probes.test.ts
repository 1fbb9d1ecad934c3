import type { Container, Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { containerProbes, InvalidProbeAnnotationError, probeTimeline, runProbe, unhealthyMessage, type ProbeBehaviour, type ProbeType, type SimProbe } from "./probes.js";

const PERIOD = 10_000;

/** A probe that answers `answers[k]` at its k-th tick (the last answer holds). */
function probe(type: ProbeType, answers: string, o: Partial<SimProbe> = {}): SimProbe {
  const behaviour: ProbeBehaviour = {
    segments: [...answers].map((a, k) => ({ fromMs: (o.initialDelayMs ?? 0) + k * PERIOD, verdict: { ok: a === "S", output: a === "S" ? "" : "boom" } })),
  };
  return { type, initialDelayMs: 0, periodMs: PERIOD, successThreshold: 1, failureThreshold: 3, behaviour, ...o };
}

/** The result in force right after each of the first n ticks ("S", "F", "?" for Unknown). */
function results(p: SimProbe, n: number): string {
  let out = "";
  for (let k = 0; k < n; k++) {
    const r = runProbe(p, 0, 0, false, p.initialDelayMs + k * PERIOD);
    out += r.result === undefined ? "?" : r.result ? "S" : "F";
  }
  return out;
}

// Restated from pkg/kubelet/prober/worker_test.go (v1.36), with the answers as a sequence of ticks.
describe("a probe worker (upstream worker_test)", () => {
  it.each<[ProbeType, string]>([
    ["liveness", "S"],
    ["readiness", "F"],
    ["startup", "?"],
  ])("TestInitialDelay %s: the initial result (%s) stands during initialDelaySeconds, then the probe's", (type, initial) => {
    const p = probe(type, "S", { initialDelayMs: 10_000 });
    expect(runProbe(p, 0, 0, false, 9_999).result ?? "?").toBe(initial === "?" ? "?" : initial === "S");
    expect(runProbe(p, 0, 0, false, 10_000).result).toBe(true);
  });

  it("TestFailureThreshold: readiness (success 1, failure 3) keeps Success through two failures, Failure from the third", () => {
    expect(results(probe("readiness", "SSSFFFFFSSSFFFFF"), 16)).toBe("SSSSSFFFSSSSSFFF");
  });

  it("TestSuccessThreshold: readiness (success 3, failure 1) needs three successes, and one failure undoes them", () => {
    const p = probe("readiness", "SSSSSSSSSSSSSFSSSSSSSSSSSSSF", { successThreshold: 3, failureThreshold: 1 });
    expect(results(p, 28)).toBe("FFSSSSSSSSSSSFFFSSSSSSSSSSSF");
  });

  it("TestOnHoldOnLivenessOrStartupCheckFailure: a liveness failure that counts fires, and the worker holds", () => {
    const r = runProbe(probe("liveness", "FS", { failureThreshold: 1 }), 0, 0, false, 100_000);
    expect(r).toMatchObject({ result: false, firedMs: 0 });
    expect(r.nextMs).toBeUndefined();
  });

  it("TestResultRunOnLivenessCheckFailure: failures count in a row; a success starts the count again", () => {
    const r = runProbe(probe("liveness", "SFFSFFF"), 0, 0, false, 100_000);
    expect(r.firedMs).toBe(6 * PERIOD);
    expect(r.failures.map((f) => f.atMs / PERIOD)).toEqual([1, 2, 4, 5, 6]);
  });

  it("TestStartupProbe: startup fires on its first success and stops probing", () => {
    const r = runProbe(probe("startup", "FFS"), 0, 0, false, 100_000);
    expect(r).toMatchObject({ result: true, firedMs: 2 * PERIOD });
  });

  it("a readiness probe failing for good reports each tick's failure, only those not reported yet", () => {
    const p = probe("readiness", "SF");
    const r = runProbe(p, 0, 0, false, 60_000, 30_000);
    expect(r.result).toBe(false);
    expect(r.failures.map((f) => f.atMs)).toEqual([40_000, 50_000, 60_000]);
    expect(r.nextMs).toBe(70_000);
  });

  it("a passing probe settles: nothing is due", () => {
    expect(runProbe(probe("readiness", "S"), 0, 0, false, 10 * 86_400_000).nextMs).toBeUndefined();
  });
});

describe("probeTimeline (a container's workers together)", () => {
  it("the startup probe gates liveness and readiness: they run strictly after it succeeded", () => {
    const tl = probeTimeline({ startup: probe("startup", "FFS", { failureThreshold: 10 }), liveness: probe("liveness", "F", { failureThreshold: 1 }), readiness: probe("readiness", "S") }, 0, 20_000);
    expect(tl).toMatchObject({ startedMs: 20_000, ready: false });
    expect(tl.kill).toBeUndefined();
    expect(tl.nextMs).toBe(30_000);
    const later = probeTimeline({ startup: probe("startup", "FFS", { failureThreshold: 10 }), liveness: probe("liveness", "F", { failureThreshold: 1 }), readiness: probe("readiness", "S") }, 0, 30_000);
    expect(later).toMatchObject({ startedMs: 20_000, ready: true, kill: { type: "liveness", atMs: 30_000 } });
  });

  it("a startup probe that fails failureThreshold times kills the container; it never started", () => {
    const tl = probeTimeline({ startup: probe("startup", "F", { failureThreshold: 2 }) }, 5_000, 100_000);
    expect(tl.startedMs).toBeUndefined();
    expect(tl.kill).toMatchObject({ type: "startup", atMs: 15_000 });
    expect(tl.failures.map(unhealthyMessage)).toEqual(["Startup probe failed: boom", "Startup probe failed: boom"]);
  });

  it("without a readiness probe a started container is ready", () => {
    expect(probeTimeline({ liveness: probe("liveness", "S") }, 0, 0)).toMatchObject({ startedMs: 0, ready: true });
  });
});

describe("what a probe answers", () => {
  const pod = (annotations: Record<string, string> = {}): Pod => ({ metadata: { name: "p", namespace: "default", annotations }, spec: { containers: [] }, status: { podIP: "10.244.1.5" } });
  const verdict = (c: Container, p: Pod, type: "livenessProbe" | "readinessProbe" = "livenessProbe", atMs = 0) => {
    const probes = containerProbes(p, c);
    const sp = type === "livenessProbe" ? probes?.liveness : probes?.readiness;
    if (!sp) throw new Error("no probe");
    let v = sp.behaviour.segments[0].verdict;
    for (const s of sp.behaviour.segments) if (s.fromMs <= atMs) v = s.verdict;
    return v;
  };
  const cases: Array<{ name: string; container: Container; annotations?: Record<string, string>; at?: number; ok: boolean; output?: string }> = [
    { name: "exec true passes", container: { name: "c", livenessProbe: { exec: { command: ["true"] } } }, ok: true },
    { name: "exec sh -c 'echo sick; exit 1' fails with its output", container: { name: "c", livenessProbe: { exec: { command: ["sh", "-c", "echo sick; exit 1"] } } }, ok: false, output: "sick\n" },
    { name: "exec sleeping past timeoutSeconds times out", container: { name: "c", livenessProbe: { exec: { command: ["sleep", "5"] }, timeoutSeconds: 2 } }, ok: false, output: 'command "sleep 5" timed out' },
    { name: "exec of an unknown command passes", container: { name: "c", livenessProbe: { exec: { command: ["cat", "/tmp/healthy"] } } }, ok: true },
    { name: "httpGet passes", container: { name: "c", livenessProbe: { httpGet: { path: "/", port: 80 } } }, ok: true },
    {
      name: "httpGet with the fail annotation",
      container: { name: "c", livenessProbe: { httpGet: { path: "/", port: 80 } } },
      annotations: { "sim.kubeloop.dev/probe.c.liveness": "fail" },
      ok: false,
      output: "HTTP probe failed with statuscode: 500",
    },
    {
      name: "tcpSocket with a named port, failing after 30 s",
      container: { name: "c", ports: [{ name: "web", containerPort: 8080 }], readinessProbe: { tcpSocket: { port: "web" } } },
      annotations: { "sim.kubeloop.dev/probe.c.readiness": "fail-after=30" },
      at: 30_000,
      ok: false,
      output: "dial tcp 10.244.1.5:8080: connect: connection refused",
    },
    { name: "fail-after passes before its time", container: { name: "c", readinessProbe: { tcpSocket: { port: 1 } } }, annotations: { "sim.kubeloop.dev/probe.c.readiness": "fail-after=30" }, at: 29_999, ok: true },
    { name: "pass-after fails before its time", container: { name: "c", livenessProbe: { grpc: { port: 9 } } }, annotations: { "sim.kubeloop.dev/probe.c.liveness": "pass-after=5s" }, ok: false, output: 'service unhealthy (responded with "NOT_SERVING")' },
    { name: "the pass annotation wins over a failing exec", container: { name: "c", livenessProbe: { exec: { command: ["false"] } } }, annotations: { "sim.kubeloop.dev/probe.c.liveness": "pass" }, ok: true },
    { name: "another container's annotation does not apply", container: { name: "c", livenessProbe: { exec: { command: ["true"] } } }, annotations: { "sim.kubeloop.dev/probe.d.liveness": "fail" }, ok: true },
  ];
  it.each(cases)("$name", (c) => {
    const v = verdict(c.container, pod(c.annotations), c.container.livenessProbe ? "livenessProbe" : "readinessProbe", c.at ?? 0);
    expect(v.ok).toBe(c.ok);
    if (c.output !== undefined) expect(v.output).toBe(c.output);
  });

  it("applies the API's defaults (period 10 s, thresholds 1 and 3, no delay)", () => {
    const p = containerProbes(pod(), { name: "c", readinessProbe: { httpGet: { port: 80 } } })?.readiness;
    expect(p).toMatchObject({ initialDelayMs: 0, periodMs: 10_000, successThreshold: 1, failureThreshold: 3 });
  });

  it("reports an invalid annotation and ignores it", () => {
    const errs: InvalidProbeAnnotationError[] = [];
    const p = containerProbes(pod({ "sim.kubeloop.dev/probe.c.liveness": "sometimes" }), { name: "c", livenessProbe: { exec: { command: ["true"] } } }, (e) => errs.push(e));
    expect(p?.liveness?.behaviour.segments[0].verdict.ok).toBe(true);
    expect(errs.map((e) => e.message)).toEqual(['invalid sim.kubeloop.dev/probe.c.liveness annotation "sometimes": want pass, fail, fail-after=<seconds> or pass-after=<seconds>']);
  });
});
