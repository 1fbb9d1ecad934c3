import { describe, expect, it } from "vitest";
import { captureIO as io } from "../../test/cli/io.js";
import { runCli } from "./main.js";
import { defaultUpIsolation } from "./up.js";

describe("kubeloop up --apiserver-isolation", () => {
  it.each<[number, boolean, string]>([
    [2, true, "process"],
    [8, true, "process"],
    [1, true, "inline"],
    [2, false, "inline"],
  ])("defaults, with %i CPUs and built=%s, to %s", (cpus, built, want) => {
    expect(defaultUpIsolation(cpus, built)).toBe(want);
  });

  it("rejects a mode it does not know with one line and a non-zero exit", async () => {
    const a = io();
    expect(await runCli(["up", "--apiserver-isolation", "cluster"], a)).not.toBe(0);
    expect(a.errors).toHaveLength(1);
    expect(a.errors[0]).toContain("Allowed choices are inline, thread, process");
  });

  it("says an isolated API server needs the built package when run from sources", async () => {
    const a = io();
    expect(await runCli(["up", "--port", "0", "--no-demo", "--kubeconfig-update-default=false", "--apiserver-isolation", "process"], a)).not.toBe(0);
    expect(a.errors.join("\n")).toContain("an isolated API server runs from the built package");
  });
});
