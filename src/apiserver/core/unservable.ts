/**
 * Subresources a real cluster serves by reaching into a kubelet or a pod — `exec`, `attach`,
 * `portforward`, `log` and `proxy` of pods, `proxy` of services and nodes — and that the
 * simulation cannot serve: its pods run no containers and its nodes no kubelet.
 *
 * Instead of a bare 404 (which kubectl turns into "the server could not find the requested
 * resource"), the object is looked up as upstream does (404 for a missing one) and the request
 * answered 400 BadRequest — the code kube-apiserver gives when it cannot reach a pod's container,
 * e.g. "pod x does not have a host assigned" — with a message saying why, in the user's terms.
 */
import { StatusError } from "../../apimachinery/errors.js";

const NO_RUNTIME = "kubeloop simulates pods without a container runtime";

/** group/resource/subresource → what cannot be done, and why. */
const UNSERVABLE: Readonly<Record<string, { action: string; why: string }>> = {
  "/pods/exec": { action: "exec into", why: `${NO_RUNTIME}, so there is no process to run a command in` },
  "/pods/attach": { action: "attach to", why: `${NO_RUNTIME}, so there is no process to attach to` },
  "/pods/portforward": { action: "port-forward to", why: `${NO_RUNTIME}, so nothing listens on its ports` },
  "/pods/proxy": { action: "proxy to", why: `${NO_RUNTIME}, so nothing listens on its ports` },
  "/pods/log": { action: "read the logs of", why: `${NO_RUNTIME}, so its containers write no logs` },
  "/services/proxy": { action: "proxy to", why: `${NO_RUNTIME}, so nothing listens behind the service's endpoints` },
  "/nodes/proxy": { action: "proxy to", why: "kubeloop simulates nodes, so there is no kubelet to proxy to" },
};

const KIND_WORD: Readonly<Record<string, string>> = { pods: "pod", services: "service", nodes: "node" };

/** Whether group/resource/subresource is one the simulation cannot serve. */
export function isUnservable(group: string, resource: string, subresource: string | undefined): boolean {
  return subresource !== undefined && Object.hasOwn(UNSERVABLE, `${group}/${resource}/${subresource}`);
}

/** The Status error for an unservable subresource of an existing object. */
export function unservableError(group: string, resource: string, subresource: string, name: string): StatusError {
  const u = UNSERVABLE[`${group}/${resource}/${subresource}`];
  if (!u) throw new Error(`${group}/${resource}/${subresource} is servable`);
  return StatusError.badRequest(`cannot ${u.action} ${KIND_WORD[resource] ?? resource} "${name}": ${u.why}`);
}
