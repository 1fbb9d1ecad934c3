import { describe, expect, it } from "vitest";
import { isUnservable, unservableError } from "./unservable.js";

describe("subresources the simulation cannot serve", () => {
  it.each([
    ["pods", "exec", 'cannot exec into pod "p": kubeloop simulates pods without a container runtime, so there is no process to run a command in'],
    ["pods", "attach", 'cannot attach to pod "p": kubeloop simulates pods without a container runtime, so there is no process to attach to'],
    ["pods", "portforward", 'cannot port-forward to pod "p": kubeloop simulates pods without a container runtime, so nothing listens on its ports'],
    ["pods", "proxy", 'cannot proxy to pod "p": kubeloop simulates pods without a container runtime, so nothing listens on its ports'],
    ["pods", "log", 'cannot read the logs of pod "p": kubeloop simulates pods without a container runtime, so its containers write no logs'],
    ["services", "proxy", `cannot proxy to service "p": kubeloop simulates pods without a container runtime, so nothing listens behind the service's endpoints`],
    ["nodes", "proxy", 'cannot proxy to node "p": kubeloop simulates nodes, so there is no kubelet to proxy to'],
  ])("%s/%s is a 400 BadRequest saying why", (resource, sub, message) => {
    expect(isUnservable("", resource, sub)).toBe(true);
    expect(unservableError("", resource, sub, "p").status).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400, message });
  });

  it.each([
    ["", "pods", "status"],
    ["", "pods", "binding"],
    ["", "pods", undefined],
    ["", "services", "status"],
    ["apps", "deployments", "proxy"],
  ])("%s/%s/%s is served (or 404) as before", (group, resource, sub) => {
    expect(isUnservable(group, resource, sub)).toBe(false);
  });
});
