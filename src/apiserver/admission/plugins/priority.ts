/**
 * Priority (plugin/pkg/admission/priority): pods get spec.priority and spec.preemptionPolicy
 * from their PriorityClass on create (kept from the stored pod on updates); PriorityClasses
 * may have at most one global default. The rules themselves live with the PriorityClass
 * registry (registry/priorityclasses.ts); this is where the chain runs them.
 */
import { admitPodPriority, checkSingleGlobalDefault, schedulingGroup } from "../../registry/priorityclasses.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { isResource } from "../attributes.js";

export function priorityPlugin(ctx: AdmissionPluginContext): AnyAdmissionPlugin {
  const classes = () => ctx.registry().byGroupResource(schedulingGroup, "priorityclasses");
  return {
    name: "Priority",
    handles: (op) => op === "CREATE" || op === "UPDATE",
    handlesResource: (r, sub) => sub === "" && ((r.group === "" && r.resource === "pods") || (r.group === schedulingGroup && r.resource === "priorityclasses")),
    async admit(a) {
      if (a.subresource !== "" || !a.object || !isResource(a, "", "pods")) return;
      await admitPodPriority(a.object, a.operation === "UPDATE" ? a.oldObject : undefined, classes());
    },
    async validate(a) {
      if (a.subresource !== "" || !a.object || !isResource(a, schedulingGroup, "priorityclasses")) return;
      await checkSingleGlobalDefault(a.object, a.operation === "UPDATE", classes());
    },
  };
}

export const priority: AdmissionPluginRegistration = { name: "Priority", create: (ctx) => priorityPlugin(ctx) };
