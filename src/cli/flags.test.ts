import { Command } from "commander";
import { describe, expect, it } from "vitest";
import {
  addClientFlags,
  addLeaderElectionFlags,
  addLoggingFlags,
  addServingFlags,
  leaderElectionOf,
  logLevelOf,
  parseBool,
  parseGoDuration,
  type ClientFlags,
  type LeaderElectionFlags,
  type LoggingFlags,
  type ServingFlags,
} from "./flags.js";

type All = ClientFlags & LeaderElectionFlags & ServingFlags & LoggingFlags & { logLevel?: string };

function parse(args: string[]): All {
  const cmd = new Command().exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  addClientFlags(cmd);
  addLeaderElectionFlags(cmd, "lease");
  addServingFlags(cmd);
  addLoggingFlags(cmd, "info");
  cmd.parse(args, { from: "user" });
  return cmd.opts<All>();
}

describe("Go durations", () => {
  it.each<[string, number]>([
    ["15s", 15_000],
    ["1m30s", 90_000],
    ["1.5h", 5_400_000],
    ["250ms", 250],
    ["0", 0],
    ["2h45m", 9_900_000],
    ["1500us", 1.5],
  ])("%s = %d ms", (v, ms) => expect(parseGoDuration(v)).toBe(ms));
  it.each(["", "15", "s", "1x", "-1s", "1s2"])("rejects %j", (v) => expect(() => parseGoDuration(v)).toThrow(/invalid duration/));
});

describe("Go booleans", () => {
  it.each<[string, boolean]>([["true", true], ["1", true], ["T", true], ["false", false], ["0", false], ["F", false]])("%s", (v, b) => expect(parseBool(v)).toBe(b));
  it("rejects yes", () => expect(() => parseBool("yes")).toThrow(/true or false/));
});

describe("the controller flags", () => {
  it("default as kube-controller-manager and the kubebuilder scaffold do", () => {
    const f = parse([]);
    expect(f).toMatchObject({
      kubeApiQps: 20,
      kubeApiBurst: 30,
      leaderElect: false,
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRetryPeriod: 2_000,
      leaderElectReleaseOnCancel: true,
      metricsBindAddress: ":8080",
      healthProbeBindAddress: ":8081",
      v: "info",
    });
    expect(f.leaderElectResourceNamespace).toBeUndefined();
    expect(leaderElectionOf(f, "lease")).toBeUndefined();
  });

  it("parse every form kube-controller-manager accepts", () => {
    const f = parse([
      "--leader-elect=true",
      "--leader-elect-lease-duration=30s",
      "--leader-elect-renew-deadline",
      "20s",
      "--leader-elect-retry-period=3s",
      "--leader-elect-resource-name=mine",
      "--leader-elect-resource-namespace=ops",
      "--leader-elect-release-on-cancel=false",
      "--kube-api-qps=50.5",
      "--kube-api-burst=100",
      "-v",
      "4",
    ]);
    expect(leaderElectionOf(f, "lease")).toEqual({
      name: "mine",
      namespace: "ops",
      leaseDurationMs: 30_000,
      renewDeadlineMs: 20_000,
      retryPeriodMs: 3_000,
      releaseOnCancel: false,
    });
    expect(f.kubeApiQps).toBe(50.5);
    expect(f.kubeApiBurst).toBe(100);
    expect(logLevelOf(f)).toBe("4");
    expect(logLevelOf(parse(["--v=2", "--log-level", "debug"]))).toBe("debug");
    expect(parse(["--leader-elect"]).leaderElect).toBe(true);
    expect(parse(["--leader-elect=false"]).leaderElect).toBe(false);
  });

  it("leave the Lease namespace to the process's own namespace unless one is given", () => {
    expect(leaderElectionOf(parse(["--leader-elect"]), "lease")).toEqual({
      name: "lease",
      namespace: undefined,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnCancel: true,
    });
  });

  it.each<[string[], string]>([
    [["--leader-elect-lease-duration=10s", "--leader-elect-renew-deadline=10s"], "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline"],
    [["--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=2s"], "--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period"],
    [["--leader-elect-retry-period=0"], "--leader-elect-retry-period must be greater than zero"],
  ])("reject inconsistent timings %j", (args, message) => {
    expect(() => leaderElectionOf(parse(["--leader-elect", ...args]), "lease")).toThrow(message);
  });
});
