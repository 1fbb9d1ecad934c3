import { describe, expect, it } from "vitest";
import { builtinServerConfig } from "../index.js";
import { customResourceDefinitionStrategy } from "../crd/crdstrategy.js";
import { catalogDisagreements } from "./catalogcheck.js";
import { configMapStrategy } from "./configmaps.js";

describe("built-in resources against the 1.36 catalog", () => {
  it("every strategy of the server configuration is a 1.36 resource with its names, scope, verbs and a decoding schema", () => {
    const strategies = builtinServerConfig().strategies;
    expect(strategies.length).toBeGreaterThan(60);
    expect(strategies.flatMap(catalogDisagreements)).toEqual([]);
    expect(catalogDisagreements(customResourceDefinitionStrategy)).toEqual([]);
  });

  it("names each kind of disagreement", () => {
    const s = configMapStrategy;
    expect(catalogDisagreements({ ...s, names: { ...s.names, shortNames: ["c"], namespaced: false } })).toEqual([
      'core/v1 configmaps: namespaced is false, 1.36 has true',
      'core/v1 configmaps: shortNames is "c", 1.36 has "cm"',
    ]);
    expect(catalogDisagreements({ ...s, names: { ...s.names, resource: "configmapz" } })).toEqual(["core/v1 configmapz: not a resource of Kubernetes 1.36"]);
    expect(catalogDisagreements({ ...s, verbs: ["get"] })).toEqual(['core/v1 configmaps: verbs is "get", 1.36 has "create,delete,deletecollection,get,list,patch,update,watch"']);
  });
});
