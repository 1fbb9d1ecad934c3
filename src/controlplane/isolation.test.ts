import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { ApiServerIsolationError, childExecArgv, nonDataPath, startIsolatedApiServer } from "./isolation.js";

describe("childExecArgv", () => {
  it.each<[string, string[], string[]]>([
    ["keeps memory and profiling flags", ["--expose-gc", "--max-old-space-size=4096", "--cpu-prof", "--cpu-prof-dir=/tmp/p"], ["--expose-gc", "--max-old-space-size=4096", "--cpu-prof", "--cpu-prof-dir=/tmp/p"]],
    ["drops what would run something else than the host", ["--input-type=module", "-e", "startControlPlane()", "--import", "tsx", "-p"], []],
    ["drops what would clash with the parent", ["--inspect=9229", "--inspect-brk", "--cpu-prof-name=x.cpuprofile"], []],
  ])("%s", (_name, argv, want) => {
    expect(childExecArgv(argv)).toEqual(want);
  });
});

describe("nonDataPath", () => {
  class Thing {}
  it.each<[string, unknown, string | undefined]>([
    ["plain data", { port: 0, host: "127.0.0.1", server: { maxInFlight: 10, watch: { bookmarkIntervalMs: 1 } }, list: [1, "a", null] }, undefined],
    ["Map, Set, Date, RegExp and Buffer", { m: new Map([["t", { username: "u" }]]), s: new Set([1]), d: new Date(0), r: /x/, b: Buffer.from("x") }, undefined],
    ["a function", { server: { podLogs: () => [] } }, "options.server.podLogs"],
    ["a function in an array", { server: { admissionPlugins: [{ name: "X", factory: () => undefined }] } }, "options.server.admissionPlugins[0].factory"],
    ["a function in a Map", { auth: { staticTokens: new Map([["t", { f: () => 1 }]]) } }, 'options.auth.staticTokens.get("t").f'],
    ["a class instance", { clock: new Thing() }, "options.clock"],
  ])("%s", (_name, value, want) => {
    expect(nonDataPath(value)).toBe(want);
  });
});

describe("startIsolatedApiServer refuses what cannot cross, before starting anything", () => {
  it.each(["process", "thread"] as const)("%s: an injected clock", async (isolation) => {
    await expect(startIsolatedApiServer(isolation, { clock: new FakeClock() })).rejects.toThrow(ApiServerIsolationError);
  });

  it.each(["process", "thread"] as const)("%s: a custom admission plugin, by its path", async (isolation) => {
    const err = await startIsolatedApiServer(isolation, { server: { admissionPlugins: [{ name: "Mine", plugin: () => ({}) } as never] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiServerIsolationError);
    expect((err as Error).message).toContain("options.server.admissionPlugins[0].plugin is not plain data");
  });
});
