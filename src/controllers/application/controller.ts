/**
 * The Application controller: sample-controller's design on the builder.
 *
 *   for(applications)       — filtered: selected by the label selector and not paused (an update
 *                             that stops matching still passes, so the Paused condition is written)
 *   owns(deployments)       — a change (new resourceVersion) → the controlling Application
 *   owns(services)
 *   reconcile(request):
 *     1. the Application from the cache; gone → done (its children go with it through their
 *        owner references: the garbage collector deletes them, not this controller);
 *     2. outside the label selector, or being deleted → done; annotation
 *        kubeloop.dev/paused="true" → only the Paused condition is written → done;
 *     3. the Deployment named spec.deploymentName (default metadata.name): absent → create;
 *        present but controlled by something else → Warning ErrResourceExists,
 *        ReconcileError=True in status, and an error (retried with backoff); ours but an owned
 *        field differs → update (never in steady state: see desired.ts);
 *     4. the same for the Service when spec.service is set;
 *     5. the status computed from the Deployment (status.ts), written through the status
 *        subresource only when it changed;
 *     6. a Normal Synced event, only when the sync created or updated a child — so a steady
 *        state makes zero API writes (events included).
 * Every write carries fieldManager kubeloop-application and the reconcile's signal. Objects from
 * the cache are never modified: writes start from deep copies.
 */
import type { Deployment } from "../../apimachinery/api/apps/v1.js";
import type { ObjectReference, Service } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { everything, parseSelector, type Selector } from "../../apimachinery/labels.js";
import type { ObjectName } from "../../apimachinery/objectname.js";
import { isControlledBy } from "../../apimachinery/ownerrefs.js";
import { builtin } from "../../client/typed.js";
import { EVENT_TYPE_NORMAL, EVENT_TYPE_WARNING } from "../../events/broadcaster.js";
import { goSprintf } from "../../events/format.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import { resourceVersionChanged, type Predicate } from "../../runtime/predicate.js";
import type { ReconcileContext } from "../../runtime/reconcile.js";
import { deploymentDiff, deploymentNameOf, mergeDeployment, mergeService, newDeployment, newService, serviceDiff } from "./desired.js";
import { computeStatus, statusEqual, type Observation } from "./status.js";
import {
  APPLICATION_API_VERSION,
  CONTROLLER_NAME,
  FIELD_MANAGER,
  MESSAGE_RESOURCE_EXISTS,
  MESSAGE_RESOURCE_SYNCED,
  PAUSED_ANNOTATION,
  REASON_RECONCILE_FAILED,
  REASON_RESOURCE_EXISTS,
  REASON_SYNCED,
  applications,
  type Application,
} from "./types.js";

export const DEFAULT_APPLICATION_WORKERS = 2;

export interface ApplicationControllerOptions {
  /** Only Applications whose labels match (a label selector string, e.g. "team=a"); default all. */
  labelSelector?: string;
  /** Workers (default 2, as sample-controller). */
  workers?: number;
}

/** A child of the Application's name exists and belongs to someone else. */
export class ResourceExistsError extends Error {
  constructor(
    readonly kind: string,
    readonly resourceName: string,
  ) {
    super(goSprintf(MESSAGE_RESOURCE_EXISTS, resourceName));
    this.name = "ResourceExistsError";
  }
}

/** Whether the Application carries kubeloop.dev/paused: "true". */
export function isPausedByAnnotation(app: Application): boolean {
  return app.metadata?.annotations?.[PAUSED_ANNOTATION] === "true";
}

/** What one reconcile wrote, for the Synced event. */
interface Writes {
  wrote: string[];
}

/** Builds the Application controller on `mgr` (named "application"). */
export function setupApplicationController(mgr: Manager, opts: ApplicationControllerOptions = {}): Controller {
  const selector = opts.labelSelector ? parseSelector(opts.labelSelector) : everything();
  const wanted = (app: Application) => selector.matches(app.metadata?.labels ?? {}) && !isPausedByAnnotation(app);
  const selected: Predicate<Application> = {
    create: (e) => wanted(e.object),
    update: (e) => wanted(e.objectOld) || wanted(e.objectNew),
    delete: (e) => wanted(e.object),
  };
  return mgr
    .controller("application")
    .for(applications, { predicates: [selected] })
    .owns(builtin.deployments, { predicates: [resourceVersionChanged] })
    .owns(builtin.services, { predicates: [resourceVersionChanged] })
    .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_APPLICATION_WORKERS, eventSource: CONTROLLER_NAME })
    .reconcile((req, ctx) => reconcileApplication(req, ctx, selector));
}

/** One reconcile of one Application (the module comment's steps); throws to be retried. */
export async function reconcileApplication(req: ObjectName, ctx: ReconcileContext, selector: Selector = everything()): Promise<void> {
  const cached = ctx.cache.get(applications, req);
  if (!cached) {
    ctx.log.debug("Application in work queue no longer exists");
    return;
  }
  if (!selector.matches(cached.metadata?.labels ?? {}) || cached.metadata?.deletionTimestamp) return;
  const writes: Writes = { wrote: [] };
  if (isPausedByAnnotation(cached)) {
    await writeStatus(ctx, cached, { paused: true }, writes);
    return;
  }
  const obs: Observation = {};
  try {
    obs.deployment = await syncDeployment(ctx, cached, writes);
    const svcName = await syncService(ctx, cached, writes);
    if (svcName) obs.serviceName = svcName;
    else obs.noService = !cached.spec?.service;
  } catch (err) {
    const exists = err instanceof ResourceExistsError;
    const message = err instanceof Error ? err.message : String(err);
    if (exists) ctx.recorder.event(referenceOf(cached), EVENT_TYPE_WARNING, REASON_RESOURCE_EXISTS, message);
    obs.error = { reason: exists ? REASON_RESOURCE_EXISTS : REASON_RECONCILE_FAILED, message };
    try {
      await writeStatus(ctx, cached, obs, writes);
    } catch (statusErr) {
      ctx.log.debug({ err: statusErr }, "could not record the failure in status");
    }
    throw err;
  }
  await writeStatus(ctx, cached, obs, writes);
  // Synced marks a change to the children; status-only progress (the Deployment's pods becoming
  // available) is visible in status and would only add an event write per step.
  if (writes.wrote.some((w) => w !== "status")) ctx.recorder.event(referenceOf(cached), EVENT_TYPE_NORMAL, REASON_SYNCED, MESSAGE_RESOURCE_SYNCED);
}

async function syncDeployment(ctx: ReconcileContext, app: Application, writes: Writes): Promise<Deployment> {
  const ns = app.metadata?.namespace ?? "";
  const name = deploymentNameOf(app);
  const deployments = ctx.client.resource(builtin.deployments, ns);
  const live = ctx.cache.get(builtin.deployments, { namespace: ns, name });
  if (!live) {
    const created = await deployments.create(newDeployment(app), { fieldManager: FIELD_MANAGER });
    writes.wrote.push("deployment");
    ctx.log.info({ deployment: name }, "Created Deployment");
    return created;
  }
  if (!isControlledBy(live, app)) throw new ResourceExistsError("Deployment", name);
  if (live.metadata?.deletionTimestamp) return live; // going away; its delete event brings us back
  const diff = deploymentDiff(app, live);
  if (diff.length === 0) return live;
  const updated = await deployments.update(mergeDeployment(app, live), { fieldManager: FIELD_MANAGER });
  writes.wrote.push("deployment");
  ctx.log.info({ deployment: name, fields: diff }, "Updated Deployment");
  return updated;
}

/** The Service's name when the Application has one, else undefined. */
async function syncService(ctx: ReconcileContext, app: Application, writes: Writes): Promise<string | undefined> {
  const want = newService(app);
  if (!want) return undefined;
  const ns = app.metadata?.namespace ?? "";
  const name = want.metadata!.name!;
  const services = ctx.client.resource(builtin.services, ns);
  const live: Service | undefined = ctx.cache.get(builtin.services, { namespace: ns, name });
  if (!live) {
    await services.create(want, { fieldManager: FIELD_MANAGER });
    writes.wrote.push("service");
    ctx.log.info({ service: name }, "Created Service");
    return name;
  }
  if (!isControlledBy(live, app)) throw new ResourceExistsError("Service", name);
  if (live.metadata?.deletionTimestamp) return name;
  const diff = serviceDiff(app, live);
  if (diff.length === 0) return name;
  await services.update(mergeService(app, live), { fieldManager: FIELD_MANAGER });
  writes.wrote.push("service");
  ctx.log.info({ service: name, fields: diff }, "Updated Service");
  return name;
}

/** Writes the status through the status subresource when it differs from the cached one. */
async function writeStatus(ctx: ReconcileContext, app: Application, obs: Observation, writes: Writes): Promise<void> {
  const next = computeStatus(app, obs, ctx.clock.now());
  if (statusEqual(app.status, next)) return;
  const copy = deepCopy(app);
  copy.apiVersion ??= APPLICATION_API_VERSION;
  copy.kind ??= "Application";
  copy.status = next;
  await ctx.client.resource(applications, app.metadata?.namespace ?? "").updateStatus(copy, { fieldManager: FIELD_MANAGER });
  writes.wrote.push("status");
}

function referenceOf(app: Application): ObjectReference {
  const { namespace, name, uid, resourceVersion } = app.metadata ?? {};
  return { apiVersion: APPLICATION_API_VERSION, kind: "Application", namespace, name, uid, resourceVersion };
}
