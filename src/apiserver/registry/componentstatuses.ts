/**
 * core/v1 ComponentStatuses and Bindings: resources without storage. ComponentStatuses are
 * computed on every read (get and list only; core/componentstatuses.ts); Bindings are a create
 * that assigns a pod (create only; core/binding.ts). Their strategies carry names and verbs.
 */
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import type { ResourceStrategy } from "./strategy.js";

export const componentStatusStrategy: ResourceStrategy = {
  ...defineStrategy({
    names: {
      group: "",
      version: "v1",
      kind: "ComponentStatus",
      resource: "componentstatuses",
      singular: "componentstatus",
      listKind: "ComponentStatusList",
      shortNames: ["cs"],
      categories: [],
      namespaced: false,
    },
    verbs: ["get", "list"],
    nameFn: nameIsDNSSubdomain,
  }),
  warning: "v1 ComponentStatus is deprecated in v1.19+",
};

export const bindingStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Binding",
    resource: "bindings",
    singular: "binding",
    listKind: "BindingList",
    shortNames: [],
    categories: [],
    namespaced: true,
  },
  verbs: ["create"],
  nameFn: nameIsDNSSubdomain,
});
