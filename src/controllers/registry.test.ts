import { describe, expect, it } from "vitest";
import { missingResources } from "./registry.js";

const discovery = (resources: Array<{ group: string; version: string; resource: string }>) => ({
  serverGroupsAndResources: () => Promise.resolve({ resources }),
});

describe("missingResources (kube-controller-manager skips controllers whose resources are not served)", () => {
  it("the job controller needs batch/v1 jobs", async () => {
    expect(await missingResources("job", discovery([{ group: "", version: "v1", resource: "pods" }]))).toBe("batch/v1 jobs is not served");
    expect(await missingResources("job", discovery([{ group: "batch", version: "v1", resource: "jobs" }]))).toBeUndefined();
  });

  it("controllers without requirements never ask discovery", async () => {
    const never = { serverGroupsAndResources: () => Promise.reject(new Error("asked")) };
    expect(await missingResources("replicaset", never)).toBeUndefined();
  });
});
