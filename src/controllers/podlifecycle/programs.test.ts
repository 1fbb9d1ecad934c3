import type { Container, Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { annotationProgram, EXIT_CODE_ANNOTATION, podPrograms, programOf, RUN_SECONDS_ANNOTATION, runScript } from "./programs.js";
import { containerBackOffMs, goDuration } from "./workload.js";

describe("programOf", () => {
  const cases: Array<{ name: string; command?: string[]; args?: string[]; want: ReturnType<typeof programOf> }> = [
    { name: "no command: the image's entrypoint runs forever", want: { kind: "forever" } },
    { name: "sh -c exit 0", command: ["sh", "-c", "exit 0"], want: { kind: "finite", runMs: 0, exitCode: 0 } },
    { name: "sh -c exit 1", command: ["sh", "-c", "exit 1"], want: { kind: "finite", runMs: 0, exitCode: 1 } },
    { name: "/bin/bash -ec with sleep then exit", command: ["/bin/bash", "-ec"], args: ["sleep 5; exit 3"], want: { kind: "finite", runMs: 5000, exitCode: 3 } },
    { name: "true", command: ["true"], want: { kind: "finite", runMs: 0, exitCode: 0 } },
    { name: "false", command: ["/bin/false"], want: { kind: "finite", runMs: 0, exitCode: 1 } },
    { name: "sleep N", command: ["sleep", "30"], want: { kind: "finite", runMs: 30_000, exitCode: 0 } },
    { name: "sleep with a unit", command: ["sleep"], args: ["2m"], want: { kind: "finite", runMs: 120_000, exitCode: 0 } },
    { name: "sleep infinity runs forever", command: ["sleep", "infinity"], want: { kind: "forever" } },
    { name: "echo then exit", command: ["sh", "-c", "echo 'hello world' && exit 0"], want: { kind: "finite", runMs: 0, exitCode: 0 } },
    { name: "&& short-circuits after false", command: ["sh", "-c", "false && sleep 10; exit"], want: { kind: "finite", runMs: 0, exitCode: 1 } },
    { name: "|| runs after false", command: ["sh", "-c", "false || sleep 2"], want: { kind: "finite", runMs: 2000, exitCode: 0 } },
    { name: "exit status wraps at 256", command: ["sh", "-c", "exit 257"], want: { kind: "finite", runMs: 0, exitCode: 1 } },
    { name: "an unknown command runs forever", command: ["nginx", "-g", "daemon off;"], want: { kind: "forever" } },
    { name: "a pipe runs forever", command: ["sh", "-c", "echo x | grep x"], want: { kind: "forever" } },
    { name: "a shell without -c runs forever", command: ["sh"], want: { kind: "forever" } },
    { name: "perl computing pi runs forever", command: ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], want: { kind: "forever" } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const container: Container = { name: "c", image: "busybox", ...(c.command ? { command: c.command } : {}), ...(c.args ? { args: c.args } : {}) };
      expect(programOf(container)).toEqual(c.want);
    });
  }

  it("runScript ignores redirections and newlines separate commands", () => {
    expect(runScript("echo hi > /dev/null\nsleep 1\nexit 4")).toEqual({ runMs: 1000, exitCode: 4 });
  });
});

describe("annotations", () => {
  const pod = (annotations: Record<string, string>, containers: Container[] = [{ name: "app", image: "nginx" }]): Pod => ({
    metadata: { name: "p", annotations },
    spec: { containers },
  });

  it("make every regular container finite, and win over the command", () => {
    const p = pod({ [EXIT_CODE_ANNOTATION]: "2", [RUN_SECONDS_ANNOTATION]: "1.5" }, [
      { name: "a", image: "nginx" },
      { name: "b", image: "busybox", command: ["true"] },
    ]);
    const progs = podPrograms(p);
    expect([...(progs?.containers ?? [])]).toEqual([
      ["a", { kind: "finite", runMs: 1500, exitCode: 2 }],
      ["b", { kind: "finite", runMs: 1500, exitCode: 2 }],
    ]);
  });

  it("default the other value to 0", () => {
    expect(annotationProgram(pod({ [RUN_SECONDS_ANNOTATION]: "3" }))).toEqual({ kind: "finite", runMs: 3000, exitCode: 0 });
    expect(annotationProgram(pod({ [EXIT_CODE_ANNOTATION]: "1" }))).toEqual({ kind: "finite", runMs: 0, exitCode: 1 });
  });

  it("report invalid values and ignore them", () => {
    const errs: string[] = [];
    expect(annotationProgram(pod({ [EXIT_CODE_ANNOTATION]: "300", [RUN_SECONDS_ANNOTATION]: "-1" }), (e) => errs.push(e.message))).toBeUndefined();
    expect(errs).toEqual([
      'invalid sim.kubeloop.dev/exit-code annotation "300": want an integer from 0 to 255',
      'invalid sim.kubeloop.dev/run-seconds annotation "-1": want a non-negative number of seconds',
    ]);
  });

  it("a pod with nothing finite keeps the old behaviour (undefined)", () => {
    expect(podPrograms(pod({}))).toBeUndefined();
    expect(podPrograms({ spec: { containers: [{ name: "a", image: "x" }], initContainers: [{ name: "i", image: "x" }] } })).toBeUndefined();
  });
});

describe("container back-off (kubelet: 10 s doubling to 5 min, first restart immediate)", () => {
  const table: Array<[restarts: number, ms: number, text: string]> = [
    [0, 0, "0s"],
    [1, 10_000, "10s"],
    [2, 20_000, "20s"],
    [3, 40_000, "40s"],
    [4, 80_000, "1m20s"],
    [5, 160_000, "2m40s"],
    [6, 300_000, "5m0s"],
    [20, 300_000, "5m0s"],
  ];
  for (const [n, ms, text] of table) {
    it(`after ${n} restarts: ${text}`, () => {
      expect(containerBackOffMs(n)).toBe(ms);
      expect(goDuration(ms)).toBe(text);
    });
  }
});
