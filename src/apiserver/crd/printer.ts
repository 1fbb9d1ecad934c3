/**
 * Server-side printing of custom resources (apiextensions-apiserver tableconvertor): a Name
 * column, then the version's additionalPrinterColumns — or, when it has none, an Age column
 * on .metadata.creationTimestamp. Each cell is the first JSONPath result, typed by the column:
 * integers and numbers as numbers, booleans as booleans, `date` columns as a human age ("5m")
 * and `string` columns as text (maps and lists as compact JSON); missing values are null.
 */
import { fieldDescription } from "../openapi/definitions.js";
import { humanDuration } from "../tables/duration.js";
import { OBJECT_META, nameColumn } from "../tables/columns.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { PartialObjectMetadata, Printer, Table, TableColumnDefinition, TableRow, ToTableOptions } from "../tables/types.js";
import type { CustomResourceVersion } from "./crstrategy.js";
import { findResults, parseJSONPath } from "./jsonpath.js";
import { goFloat, isObject } from "./schema.js";

/** Go's json.Marshal: object keys sorted. */
function goJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJSON).join(",")}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJSON(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === "boolean") return String(v);
  return goJSON(v);
}

function cellFor(type: string, v: unknown, now: number): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case "integer":
      return typeof v === "number" ? Math.trunc(v) : null;
    case "number":
      return typeof v === "number" ? v : null;
    case "boolean":
      return typeof v === "boolean" ? v : null;
    case "date": {
      if (typeof v !== "string") return null;
      const t = Date.parse(v);
      if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(v)) return "<invalid>";
      return humanDuration(now - t);
    }
    default:
      return textOf(v);
  }
}

/** The printer of one custom resource version. */
export function customResourcePrinter(v: CustomResourceVersion): Printer {
  const cols =
    v.columns.length > 0
      ? v.columns
      : [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: fieldDescription(OBJECT_META, "creationTimestamp") }];
  const compiled = cols.map((c) => {
    try {
      return parseJSONPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  const columns: TableColumnDefinition[] = [
    nameColumn(),
    ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? "", description: c.description ?? "", priority: c.priority ?? 0 })),
  ];
  return {
    columns,
    print(obj, ctx) {
      const cells: unknown[] = [obj.metadata?.name ?? ""];
      cols.forEach((c, i) => {
        const steps = compiled[i];
        const results = steps ? findResults(obj, steps) : [];
        cells.push(results.length === 0 ? null : cellFor(c.type, results[0], ctx.now));
      });
      return { cells };
    },
  };
}

/** objects → Table with `printer` (rows carry PartialObjectMetadata, the object, or nothing). */
export function printTable(printer: Printer, objects: KubeObject[], opts: ToTableOptions = {}): Table {
  const now = opts.now ?? Date.now();
  const include = opts.includeObject ?? "Metadata";
  const rows = objects.map((obj): TableRow => {
    const row: TableRow = { cells: printer.print(obj, { now, wide: true }).cells };
    if (include === "Metadata") {
      const partial: PartialObjectMetadata = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata ?? {} };
      row.object = partial;
    } else if (include === "Object") row.object = obj;
    return row;
  });
  return { kind: "Table", apiVersion: "meta.k8s.io/v1", metadata: {}, columnDefinitions: printer.columns.map((c) => ({ ...c })), rows };
}
