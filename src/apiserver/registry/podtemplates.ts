/**
 * core/v1 PodTemplates: the template's pod defaults, ValidatePodTemplate (the template as a pod
 * template), generation 1 on create and bumped when the template changes.
 */
import type { PodTemplate } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import { validatePodTemplateSpec } from "./podvalidation.js";
import { rec } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

export const podTemplateStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "PodTemplate",
    resource: "podtemplates",
    singular: "podtemplate",
    listKind: "PodTemplateList",
    shortNames: [],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  generationInputs: (o) => o.template,
  defaults: (obj: KubeObject) => {
    if (rec(obj.template)) defaultPodTemplateSpec((obj as unknown as PodTemplate).template);
  },
  validateSpec: (obj) => validatePodTemplateSpec((obj as unknown as PodTemplate).template, "template"),
});
