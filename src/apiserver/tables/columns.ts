/**
 * Column definitions in upstream's words: descriptions are the API field docs (upstream uses
 * the types' SwaggerDoc), read from the generated OpenAPI definitions so there is one source.
 */
import { fieldDescription } from "../openapi/definitions.js";
import type { TableColumnDefinition } from "./types.js";

export const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
export const CORE = "io.k8s.api.core.v1";
export const APPS = "io.k8s.api.apps.v1";

/** A column whose description is the doc of `definition.field`. */
export function col(name: string, type: string, definition: string, field: string, priority = 0): TableColumnDefinition {
  return { name, type, format: "", description: fieldDescription(definition, field), priority };
}

/** A column with a literal description. */
export function colText(name: string, type: string, description: string, priority = 0): TableColumnDefinition {
  return { name, type, format: "", description, priority };
}

export function nameColumn(priority = 0): TableColumnDefinition {
  return { name: "Name", type: "string", format: "name", description: fieldDescription(OBJECT_META, "name"), priority };
}

export function ageColumn(): TableColumnDefinition {
  return col("Age", "string", OBJECT_META, "creationTimestamp");
}

export const CONTAINERS_COLUMN = (): TableColumnDefinition => colText("Containers", "string", "Names of each container in the template.", 1);
export const IMAGES_COLUMN = (): TableColumnDefinition => colText("Images", "string", "Images referenced by each container in the template.", 1);
