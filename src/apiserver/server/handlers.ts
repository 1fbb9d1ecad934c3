/**
 * The REST handlers for one resource request: GET (get, list, watch), POST (create), PUT
 * (update), PATCH, DELETE (delete, deletecollection), on the main resource and the status,
 * scale and finalize subresources, and the pod subresources binding, eviction (POST) and
 * ephemeralcontainers, resize (GET, PUT, PATCH).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsPathSegment } from "../../apimachinery/validation.js";
import { defaultWriteContext, type WriteContext } from "../rest/context.js";
import { parseBool, parseDeleteOptions, parseListOptions, parseWriteOptions } from "../rest/options.js";
import { applyScale, toScale, validateScale } from "../rest/scale.js";
import type { ResourceStore, UpdateOptions } from "../rest/store.js";
import { decodeObjectBody, readBody } from "./body.js";
import { decodePatchedObject, decodeRequestBody, type DecodedRequest, type DecodeTarget } from "../decode/request.js";
import { includeObjectOf, renderList, renderObject } from "./convert.js";
import type { HandlerEnv } from "./env.js";
import { negotiateEncoding, negotiateObject, prefersProtobuf, type ObjectRepresentation } from "./negotiate.js";
import { applyPatch, parsePatchBody, patchTypeOf } from "./patch.js";
import type { ResourceRequestInfo } from "./requestinfo.js";
import type { RequestURL } from "./target.js";
import { methodNotAllowed, notFoundPage, setProtobufErrors, setWarnings, writeObject } from "./respond.js";
import { protobufMessageFor } from "../protobuf/index.js";
import { serveWatch } from "./watchhttp.js";
import { finalizeNamespace } from "../core/namespaces.js";
import { assignPod, bindingAdmission, bindingSuccess, bindingTarget } from "../core/binding.js";
import { isUnservable, unservableError } from "../core/unservable.js";
import { servePodLog } from "../core/podlogs.js";
import { evictPod } from "../core/eviction.js";
import { prepareEphemeralContainersUpdate, preparePodResize } from "../core/podsubresources.js";
import { requestUser } from "../auth/context.js";
import { rejectForceWithoutApply, serveApply } from "../ssa/applyhandler.js";

const scaleGK = { group: "autoscaling", kind: "Scale" };
const scaleKind: DecodeTarget = { group: "autoscaling", version: "v1", kind: "Scale" };
const bindingKind: DecodeTarget = { group: "", version: "v1", kind: "Binding" };
const evictionKind: DecodeTarget = { group: "policy", version: "v1", kind: "Eviction" };

/** Subresources that only take a POST (a create of another kind). */
const createOnlySubresources = new Set(["binding", "eviction", "token"]);

/** Pod subresources that update the pod through their own strategy (GET, PUT, PATCH). */
const podUpdateSubresources: Record<string, UpdateOptions["prepare"]> = {
  ephemeralcontainers: prepareEphemeralContainersUpdate,
  resize: preparePodResize,
};

function requireVerb(store: ResourceStore, verb: string): void {
  if (!store.strategy.verbs.includes(verb)) throw methodNotAllowed();
}

/** Upstream's storage key functions: a name in a path must be a valid path segment (400). */
function requireValidPathName(name: string): void {
  const msgs = nameIsPathSegment(name, false);
  if (msgs.length) throw StatusError.badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${msgs.join(";")}`);
}

function userAgent(req: IncomingMessage): string {
  return String(req.headers["user-agent"] ?? "");
}

/** Reads a body and decodes it as an object of `target`'s kind, as the Go struct would be (decode/). */
async function decodeBody(env: HandlerEnv, req: IncomingMessage, target: DecodeTarget, ctx: WriteContext): Promise<DecodedRequest> {
  const buf = await readBody(req, env.maxBodyBytes);
  return decodeRequestBody(buf, req.headers["content-type"], target, ctx.fieldValidation, env.decodeProtobuf);
}

function kindOf(store: ResourceStore): DecodeTarget {
  const n = store.strategy.names;
  return { group: n.group, version: n.version, kind: n.kind };
}

function writeContextFor(q: URLSearchParams, kind: "CreateOptions" | "UpdateOptions" | "PatchOptions", req: IncomingMessage): WriteContext {
  const o = parseWriteOptions(q, kind, userAgent(req));
  return defaultWriteContext({ dryRun: o.dryRun, fieldManager: o.fieldManager, fieldValidation: o.fieldValidation, user: requestUser(req) });
}

export async function handleResource(env: HandlerEnv, req: IncomingMessage, res: ServerResponse, url: RequestURL, info: ResourceRequestInfo): Promise<void> {
  const store = env.registry.lookup(info.group, info.version, info.resource);
  if (!store) throw notFoundPage();
  const isNamespaceResource = store.gr.group === "" && store.gr.resource === "namespaces";
  if (!store.namespaced && info.namespace !== undefined && !isNamespaceResource) throw notFoundPage();
  if (store.namespaced && info.name !== undefined && info.namespace === undefined) throw notFoundPage();
  const ns = store.namespaced ? info.namespace : undefined;
  const sub = info.subresource;
  if (info.name !== undefined && sub === "log" && env.podLogs && store.gr.group === "" && store.gr.resource === "pods") {
    if (req.method !== "GET") throw methodNotAllowed();
    requireValidPathName(info.name);
    const pod = await store.get(info.namespace, info.name, "");
    return servePodLog(env.podLogs, pod, url.searchParams, env.clock.now(), res);
  }
  if (info.name !== undefined && isUnservable(store.gr.group, store.gr.resource, sub)) {
    // exec, attach, portforward, log, proxy: the object must exist; then say why not (core/unservable).
    await store.get(store.namespaced ? info.namespace : undefined, info.name, "");
    throw unservableError(store.gr.group, store.gr.resource, sub!, info.name);
  }
  if (sub !== undefined) {
    const ok =
      (sub === "status" && store.strategy.subresources.status) ||
      (sub === "scale" && store.strategy.subresources.scale) ||
      (sub === "finalize" && isNamespaceResource) ||
      (store.strategy.subresources.extra ?? []).includes(sub) ||
      store.strategy.subresources.updates?.[sub] !== undefined;
    if (!ok || info.name === undefined) throw notFoundPage();
    if (createOnlySubresources.has(sub) && req.method !== "POST") throw methodNotAllowed();
  }
  const isPods = store.gr.group === "" && store.gr.resource === "pods";
  const podUpdate = isPods && sub !== undefined ? podUpdateSubresources[sub] : undefined;
  const q = url.searchParams;
  const method = req.method ?? "GET";
  const name = info.name;
  if (name !== undefined) requireValidPathName(name);
  // Protobuf answers for kinds compiled into the server (never custom resources, as upstream);
  // Status errors follow the same choice once the resource is known.
  const accept = req.headers.accept;
  const protobuf = protobufMessageFor(store.apiVersion, store.strategy.names.kind) !== undefined;
  const encoding = () => negotiateEncoding(accept, protobuf);
  if (protobuf && prefersProtobuf(accept)) setProtobufErrors(res);
  // Deprecated resources answer every request with their warning.
  if (store.strategy.warning) setWarnings(res, [store.strategy.warning]);

  if (method === "GET" && name === undefined) {
    const opts = parseListOptions(q);
    const watch = info.watchPath || opts.watch;
    const rep = negotiateObject(accept, { table: !!env.toTable, partial: true, protobuf });
    const include = includeObjectOf(q);
    if (watch) {
      requireVerb(store, "watch");
      opts.watch = true;
      return serveWatch(env, store, ns, opts, rep, include, req, res);
    }
    requireVerb(store, "list");
    const list = await store.list(ns, opts);
    return writeObject(res, 200, renderList(env, store, list, rep, include), rep);
  }

  if (method === "GET") {
    requireVerb(store, "get");
    if (sub === undefined) {
      const rep = negotiateObject(accept, { table: !!env.toTable, partial: true, protobuf });
      const obj = await store.get(ns, name!, q.get("resourceVersion") ?? "");
      return writeObject(res, 200, renderObject(env, store, obj, rep, includeObjectOf(q)), rep);
    }
    // autoscaling/v1 Scale is compiled in, custom resources' scale included.
    const rep = sub === "scale" ? negotiateEncoding(accept, true) : encoding();
    const obj = await store.get(ns, name!, q.get("resourceVersion") ?? "");
    if (sub === "scale") return writeObject(res, 200, toScale(obj, store.strategy.subresources.scale!), rep);
    if (sub === "finalize") throw methodNotAllowed();
    return writeObject(res, 200, obj, rep);
  }

  if (method === "POST") {
    if (name !== undefined && sub === "binding") return serveBinding(env, store, ns, name, req, res, q, encoding());
    if (name !== undefined && sub === "eviction" && isPods) return serveEviction(env, store, ns, name, req, res, q, encoding());
    if (name !== undefined) throw methodNotAllowed();
    requireVerb(store, "create");
    const ctx = writeContextFor(q, "CreateOptions", req);
    // Decoded as the kind's Go struct (TypeMeta and ObjectMeta included): wrong types are 400s here.
    const body = await decodeBody(env, req, kindOf(store), ctx);
    ctx.warnings.push(...body.warnings);
    // The decoded body is used for nothing else: the store completes it in place.
    const created = await store.create(ns, body.object, ctx, true, body.typed);
    setWarnings(res, ctx.warnings);
    return writeObject(res, 201, created, encoding());
  }

  if (method === "PUT") {
    if (name === undefined) throw methodNotAllowed();
    requireVerb(store, "update");
    const ctx = writeContextFor(q, "UpdateOptions", req);
    const body = await decodeBody(env, req, sub === "scale" ? scaleKind : kindOf(store), ctx);
    if (sub === "scale") {
      const scale = body.object;
      ctx.warnings.push(...body.warnings);
      const r = await updateScale(store, ns, name, () => scale, ctx);
      setWarnings(res, ctx.warnings);
      return writeObject(res, 200, r, negotiateEncoding(accept, true));
    }
    ctx.warnings.push(...body.warnings);
    const opts: UpdateOptions = { typed: body.typed };
    if (sub === "status" || store.strategy.subresources.updates?.[sub ?? ""]) opts.subresource = sub;
    if (sub === "finalize") {
      opts.prepare = finalizeNamespace;
      opts.admission = { subresource: "finalize" };
    }
    // Admission sees pods/ephemeralcontainers and pods/resize as updates of the Pod under the subresource's name.
    if (podUpdate) Object.assign(opts, { prepare: podUpdate, managedFieldsSubresource: sub, admission: { subresource: sub } });
    const r = await store.update(ns, name, () => body.object, ctx, opts);
    setWarnings(res, ctx.warnings);
    return writeObject(res, r.created ? 201 : 200, r.object, encoding());
  }

  if (method === "PATCH") {
    if (name === undefined || sub === "finalize") throw methodNotAllowed();
    requireVerb(store, "patch");
    const type = patchTypeOf(req.headers["content-type"]);
    const ctx = writeContextFor(q, "PatchOptions", req);
    if (type === "apply") return serveApply(store, { namespace: ns, name, subresource: sub, query: q, body: await readBody(req, env.maxBodyBytes), ctx }, res);
    rejectForceWithoutApply(q);
    const patchBuf = await readBody(req, env.maxBodyBytes);
    const patch = parsePatchBody(patchBuf);
    const patchText = ctx.fieldValidation === "Ignore" ? undefined : patchBuf.toString("utf8");
    const names = store.strategy.names;
    let warned = false;
    // The patched object decoded as the Go struct; warnings of the first attempt only (retries repeat them).
    const decodePatched = (patched: KubeObject, target: DecodeTarget): KubeObject => {
      const warnings: string[] = [];
      const out = decodePatchedObject({ type: type as "json" | "merge" | "strategic", patched, patch, patchText, mode: ctx.fieldValidation, warnings }, target);
      if (!warned) ctx.warnings.push(...warnings);
      warned = true;
      return out;
    };
    if (sub === "scale") {
      const r = await updateScale(
        store,
        ns,
        name,
        (current) => {
          return decodePatched(applyPatch(type, current, patch, scaleKind), scaleKind);
        },
        ctx,
      );
      setWarnings(res, ctx.warnings);
      return writeObject(res, 200, r, negotiateEncoding(accept, true));
    }
    const r = await store.update(
      ns,
      name,
      (current) => {
        if (!current) throw StatusError.notFound(store.gr, name);
        const target = { group: names.group, version: names.version, kind: names.kind };
        return decodePatched(applyPatch(type, current, patch, target), target);
      },
      ctx,
      sub === "status" || store.strategy.subresources.updates?.[sub ?? ""]
        ? { subresource: sub }
        : podUpdate
          ? { prepare: podUpdate, managedFieldsSubresource: sub, admission: { subresource: sub! } }
          : {},
    );
    setWarnings(res, ctx.warnings);
    return writeObject(res, 200, r.object, encoding());
  }

  if (method === "DELETE") {
    if (sub !== undefined) throw methodNotAllowed();
    const buf = await readBody(req, env.maxBodyBytes);
    let bodyOpts: Record<string, unknown> | undefined;
    if (buf.length > 0) bodyOpts = decodeObjectBody(buf, req.headers["content-type"], env.decodeProtobuf).object as Record<string, unknown>;
    const options = parseDeleteOptions(q, bodyOpts);
    const ctx = defaultWriteContext({ dryRun: options.dryRun, user: requestUser(req) });
    if (name === undefined) {
      requireVerb(store, "deletecollection");
      const listOpts = parseListOptions(q);
      const list = await store.deleteCollection(ns, listOpts, options, ctx);
      return writeObject(res, 200, list, encoding());
    }
    requireVerb(store, "delete");
    const r = await store.delete(ns, name, options, ctx);
    setWarnings(res, ctx.warnings);
    const code = !r.deleted && options.orphanDependents === false ? 202 : 200;
    if (r.deleted && !store.returnsDeletedObject) return writeObject(res, code, store.deletedStatus(r.object), encoding());
    return writeObject(res, code, r.object, encoding());
  }

  void parseBool;
  throw methodNotAllowed();
}

/** Reads the object as a Scale, lets `produce` build the new Scale, writes its replicas back. */
async function updateScale(
  store: ResourceStore,
  ns: string | undefined,
  name: string,
  produce: (current: KubeObject) => KubeObject,
  ctx: WriteContext,
): Promise<KubeObject> {
  const sub = store.strategy.subresources.scale!;
  const r = await store.update(
    ns,
    name,
    (current) => {
      if (!current) throw StatusError.notFound(store.gr, name);
      const scale = produce(toScale(current, sub));
      const scaleName = scale.metadata?.name;
      if (scaleName && scaleName !== name) {
        throw StatusError.badRequest(`the name of the object (${scaleName}) does not match the name on the URL (${name})`);
      }
      const errs = validateScale(scale);
      if (errs.length) throw StatusError.invalid(scaleGK, name, errs);
      return applyScale(current, scale, sub);
    },
    ctx,
    {
      // Admission sees the Scale (autoscaling/v1), as upstream's scale REST hands it over.
      admission: {
        subresource: "scale",
        kind: { group: "autoscaling", version: "v1", kind: "Scale" },
        object: (obj) => toScale(obj, sub),
        oldObject: (old) => toScale(old, sub),
        apply: (obj, scale) => applyScale(obj, scale, sub),
      },
    },
  );
  return toScale(r.object, sub);
}

/** POST pods/<name>/eviction: deletes the pod unless its PodDisruptionBudget forbids it. */
async function serveEviction(
  env: HandlerEnv,
  pods: ResourceStore,
  ns: string | undefined,
  name: string,
  req: IncomingMessage,
  res: ServerResponse,
  q: URLSearchParams,
  rep: ObjectRepresentation,
): Promise<void> {
  const ctx = writeContextFor(q, "CreateOptions", req);
  const buf = await readBody(req, env.maxBodyBytes);
  const decode = (target: DecodeTarget) => decodeRequestBody(buf, req.headers["content-type"], target, ctx.fieldValidation, env.decodeProtobuf);
  let body = decode(evictionKind);
  // A policy/v1beta1 Eviction is still accepted (as upstream): decoded as that version's struct.
  if (body.object.apiVersion === "policy/v1beta1") body = decode({ ...evictionKind, version: "v1beta1" });
  const apiVersion = body.object.apiVersion;
  if (body.object.kind !== undefined && body.object.kind !== "Eviction") {
    throw StatusError.badRequest(`${body.object.kind} in version "v1" cannot be handled as a Eviction: the kind of the object does not match the endpoint`);
  }
  if (apiVersion !== undefined && apiVersion !== "policy/v1" && apiVersion !== "policy/v1beta1") {
    throw StatusError.badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (policy/v1)`);
  }
  ctx.warnings.push(...body.warnings);
  const status = await evictPod(
    { pods, podDisruptionBudgets: env.registry.lookup("policy", "v1", "poddisruptionbudgets"), clock: env.clock },
    ns ?? "",
    name,
    body.object,
    ctx,
  );
  setWarnings(res, ctx.warnings);
  return writeObject(res, status.code ?? 201, status, rep);
}

/** POST pods/<name>/binding: assigns the pod to a node (the scheduler's verb). */
async function serveBinding(
  env: HandlerEnv,
  store: NonNullable<ReturnType<HandlerEnv["registry"]["lookup"]>>,
  ns: string | undefined,
  name: string,
  req: IncomingMessage,
  res: ServerResponse,
  q: URLSearchParams,
  rep: ObjectRepresentation,
): Promise<void> {
  const ctx = writeContextFor(q, "CreateOptions", req);
  const body = await decodeBody(env, req, bindingKind, ctx);
  const node = bindingTarget(body.object, name);
  // pods/binding is a CREATE of a v1 Binding as admission sees it.
  await store.update(ns, name, (cur) => cur ?? {}, ctx, { prepare: assignPod(body.object, name, node, env.clock), admission: bindingAdmission(body.object) });
  return writeObject(res, 201, bindingSuccess, rep);
}
