/**
 * The sample controller again, on the builder (docs/tutorial.md, section 10): the same Foo API,
 * the same Deployment, events and status as controller.ts, with the informers, handlers, queue
 * and workers that file spells out supplied by the Manager.
 */
import { EVENT_TYPE_NORMAL, EVENT_TYPE_WARNING, builtin, goSprintf, isControlledBy, resourceVersionChanged, type Controller, type Manager } from "kubeloop";
import { ErrResourceExists, FieldManager, MessageResourceExists, MessageResourceSynced, SuccessSynced, controllerAgentName, fooReference, foosResource, newDeployment } from "./controller.js";

export function setupFooController(mgr: Manager, workers = 2): Controller {
  return mgr
    .controller("foo")
    .for(foosResource) // every Foo event → its namespace/name
    .owns(builtin.deployments, { predicates: [resourceVersionChanged] }) // a Deployment → the Foo controlling it
    .withOptions({ maxConcurrentReconciles: workers, eventSource: controllerAgentName })
    .reconcile(async (req, ctx) => {
      const foo = ctx.cache.get(foosResource, req); // Foo | undefined, frozen: copy before changing
      if (!foo) return; // deleted: its Deployment goes with it (owner reference)
      const deploymentName = foo.spec?.deploymentName ?? "";
      if (deploymentName === "") return ctx.log.error("Deployment name missing from object reference");

      const deployments = ctx.client.resource(builtin.deployments, req.namespace); // calls carry ctx.signal
      let deployment = ctx.cache.get(builtin.deployments, { namespace: req.namespace, name: deploymentName });
      deployment ??= await deployments.create(newDeployment(foo), { fieldManager: FieldManager });
      if (!isControlledBy(deployment, foo)) {
        const msg = goSprintf(MessageResourceExists, deploymentName);
        ctx.recorder.event(fooReference(foo), EVENT_TYPE_WARNING, ErrResourceExists, msg);
        throw new Error(msg); // retried with backoff
      }
      if (foo.spec?.replicas !== undefined && foo.spec.replicas !== deployment.spec?.replicas) {
        deployment = await deployments.update(newDeployment(foo), { fieldManager: FieldManager });
      }

      const availableReplicas = deployment.status?.availableReplicas ?? 0;
      if (foo.status?.availableReplicas !== availableReplicas) {
        // A new object, not the cached one changed; an unchanged status is not written again.
        await ctx.client.resource(foosResource, req.namespace).updateStatus({ ...foo, status: { ...foo.status, availableReplicas } }, { fieldManager: FieldManager });
      }
      ctx.recorder.event(fooReference(foo), EVENT_TYPE_NORMAL, SuccessSynced, MessageResourceSynced);
    });
}
