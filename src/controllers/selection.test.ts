import { describe, expect, it } from "vitest";
import { BUILTIN_CONTROLLERS } from "./registry.js";
import { ControllerSelectionError, controllerNamed, selectControllers } from "./selection.js";

describe("selectControllers (kube-controller-manager's --controllers)", () => {
  const all = [...BUILTIN_CONTROLLERS];
  it.each<[string, string[]]>([
    ["*", all],
    ["", []],
    ["statefulset", ["statefulset"]],
    ["*,-statefulset", all.filter((c) => c !== "statefulset")],
    // the first entry that names a controller decides
    ["-job,job,*", all.filter((c) => c !== "job")],
    ["job,-job", ["job"]],
    // upstream's names and aliases
    ["*,-statefulset-controller,-endpoint,-podgc", all.filter((c) => !["statefulset", "endpoints", "podgc"].includes(c))],
    ["ttl-after-finished,root-ca-cert-publisher,persistentvolume-binder-controller", ["ttlafterfinished", "persistentvolume", "rootcacertpublisher"]],
    [" deployment , replicaset ", ["deployment", "replicaset"]],
  ])("%j", (spec, want) => {
    expect(selectControllers(spec)).toEqual(want);
  });

  it("defaults to every controller, in registry order", () => {
    expect(selectControllers()).toEqual(all);
  });

  it("refuses a name no controller has, with upstream's message", () => {
    expect(() => selectControllers("*,-bogus")).toThrow(ControllerSelectionError);
    expect(() => selectControllers("bogus-controller")).toThrow('"bogus-controller" is not in the list of known controllers');
  });

  it("every upstream name maps to one controller, and every registry name to itself", () => {
    for (const c of BUILTIN_CONTROLLERS) expect(controllerNamed(c)).toBe(c);
    expect(controllerNamed("garbage-collector-controller")).toBe("garbagecollector");
    expect(controllerNamed("taint-eviction-controller")).toBe("tainteviction");
    expect(controllerNamed("nope")).toBeUndefined();
  });
});
