/**
 * pods/log over a PodLogSource: upstream's PodLogOptions validation (ValidatePodLogOptions),
 * LogLocation's container choice and errors, the kubelet's validateContainerLogStatus errors,
 * and tailLines / sinceSeconds / timestamps / limitBytes.
 */
import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { logContainer, logInstance, parsePodLogOptions, renderLog, validatePodLogOptions } from "./podlogs.js";

const t0 = Date.UTC(2026, 0, 1);
const pod = (o: { containers?: string[]; init?: string[]; statuses?: unknown[] } = {}) => ({
  metadata: { name: "x" },
  spec: { nodeName: "n", containers: (o.containers ?? ["a"]).map((name) => ({ name })), ...(o.init ? { initContainers: o.init.map((name) => ({ name })) } : {}) },
  status: { containerStatuses: o.statuses ?? [] },
});

function status400(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return `${err.status.code} ${err.status.message}`;
    throw err;
  }
  return "no error";
}

describe("PodLogOptions validation", () => {
  it.each<[string, string, string[]]>([
    ["tailLines negative", "tailLines=-1", ["tailLines: Invalid value: -1: must be greater than or equal to 0"]],
    ["limitBytes 0", "limitBytes=0", ["limitBytes: Invalid value: 0: must be greater than 0"]],
    ["sinceSeconds 0", "sinceSeconds=0", ["sinceSeconds: Invalid value: 0: must be greater than 0"]],
    ["both since options", "sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z", [": Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"]],
    ["valid", "tailLines=0&limitBytes=1&sinceSeconds=1&timestamps=true&previous=false&container=a", []],
  ])("%s", (_n, query, want) => {
    expect(validatePodLogOptions(parsePodLogOptions(new URLSearchParams(query))).map((e) => e.toString())).toEqual(want);
  });

  it("a non-integer is a 400", () => {
    expect(status400(() => parsePodLogOptions(new URLSearchParams("tailLines=abc")))).toMatch(/^400 invalid value for tailLines/);
  });
});

describe("the container (LogLocation) and its status (validateContainerLogStatus)", () => {
  it.each<[string, ReturnType<typeof pod>, string | undefined, string]>([
    ["one container needs no name", pod(), undefined, "a"],
    ["several need one", pod({ containers: ["a", "b"] }), undefined, "400 a container name must be specified for pod x, choose one of: [a b]"],
    ["init containers are offered too", pod({ containers: ["a", "b"], init: ["i"] }), undefined, "400 a container name must be specified for pod x, choose one of: [a b] or one of the init containers: [i]"],
    ["an unknown name", pod(), "zz", "400 container zz is not valid for pod x"],
    ["an init container by name", pod({ init: ["i"] }), "i", "i"],
  ])("%s", (_n, p, requested, want) => {
    let got: string;
    try {
      got = logContainer(p, "x", requested);
    } catch (err) {
      got = `${(err as StatusError).status.code} ${(err as StatusError).status.message}`;
    }
    expect(got).toBe(want);
  });

  it.each<[string, unknown[], boolean, string]>([
    ["waiting", [{ name: "a", state: { waiting: { reason: "ContainerCreating" } } }], false, '400 container "a" in pod "x" is waiting to start: ContainerCreating'],
    ["no previous run", [{ name: "a", state: { running: { startedAt: "2026-01-01T00:00:00Z" } } }], true, '400 previous terminated container "a" in pod "x" not found'],
    ["no status yet", [], false, '400 container "a" in pod "x" is not available'],
  ])("%s", (_n, statuses, previous, want) => {
    expect(status400(() => logInstance(pod({ statuses }), "x", "a", previous))).toBe(want);
  });

  it("reads the running run, the terminated one, and the previous one", () => {
    const s = { name: "a", state: { running: { startedAt: "2026-01-01T00:01:00Z" } }, lastState: { terminated: { startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:00:30Z" } } };
    expect(logInstance(pod({ statuses: [s] }), "x", "a", false)).toEqual({ startedAtMs: t0 + 60_000 });
    expect(logInstance(pod({ statuses: [s] }), "x", "a", true)).toEqual({ startedAtMs: t0, finishedAtMs: t0 + 30_000 });
  });
});

describe("renderLog", () => {
  const lines = [0, 1, 2].map((i) => ({ timeMs: t0 + i * 1000, text: `line ${i}` }));
  const render = (q: string, now = t0 + 2000) => renderLog(lines, parsePodLogOptions(new URLSearchParams(q)), now);
  it.each<[string, string, string]>([
    ["everything", "", "line 0\nline 1\nline 2\n"],
    ["tailLines", "tailLines=2", "line 1\nline 2\n"],
    ["tailLines=0", "tailLines=0", ""],
    ["sinceSeconds", "sinceSeconds=1", "line 1\nline 2\n"],
    ["sinceTime", "sinceTime=2026-01-01T00:00:02Z", "line 2\n"],
    ["timestamps", "tailLines=1&timestamps=true", "2026-01-01T00:00:02.000000000Z line 2\n"],
    ["limitBytes cuts mid-line", "limitBytes=9", "line 0\nli"],
  ])("%s", (_n, q, want) => {
    expect(render(q)).toBe(want);
  });
});
