import { KubeClient, Manager, builtin, generationChanged, runUntilSignal } from "kubeloop";

// controller-runtime's GetConfig order: --kubeconfig (read from argv too), KUBECONFIG, the
// in-cluster config in a pod, ~/.kube/config. KubeClient.fromKubeconfig() reads kubeconfig files only.
const client = KubeClient.fromConfig();
const mgr = new Manager({ client, leaderElection: { namespace: client.namespace, name: "annotator" } });

mgr
  .controller("annotator")
  .for(builtin.deployments, { predicates: [generationChanged] }) // requests: namespace/name
  .withOptions({ maxConcurrentReconciles: 2 })
  .reconcile(async (req, ctx) => {
    const d = ctx.cache.get(builtin.deployments, req); // Deployment | undefined, frozen: copy before changing
    if (!d || d.metadata?.annotations?.["example.com/seen"]) return;
    await ctx.client // every call carries ctx.signal: shutdown cancels it
      .resource(builtin.deployments, req.namespace)
      .patch(req.name, "merge", { metadata: { annotations: { "example.com/seen": `generation ${d.metadata?.generation}` } } });
  }); // throw to retry with backoff; return { requeueAfterMs } to look again later

await runUntilSignal(mgr); // informers, leader election, /metrics and probes until SIGTERM
