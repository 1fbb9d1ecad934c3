/** meta.k8s.io/v1 Table, as kube-apiserver returns it for `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. */
import type { ListMeta, ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";

export interface TableColumnDefinition {
  name: string;
  /** "string", "integer", "number", "boolean" or "date". */
  type: string;
  /** "name" for the object's name column, otherwise "". */
  format: string;
  description: string;
  /** 0: always shown; 1: shown with `-o wide`. */
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PartialObjectMetadata {
  kind: "PartialObjectMetadata";
  apiVersion: "meta.k8s.io/v1";
  metadata: ObjectMeta;
}

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object?: PartialObjectMetadata | KubeObject;
}

export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export type IncludeObject = "None" | "Metadata" | "Object";

export interface ToTableOptions {
  includeObject?: IncludeObject;
  /** The time ages are computed at, in ms since the epoch (the server passes its Clock's now). */
  now?: number;
}

/** What a printer produces for one object: its cells (one per column) and row conditions. */
export interface PrintedRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
}

export interface PrintContext {
  now: number;
  /**
   * kube-apiserver prints tables in wide mode (all columns; kubectl hides priority-1 columns);
   * false reproduces the narrow output (load-balancer addresses clipped to 16 characters).
   */
  wide: boolean;
}

/** A printer for one kind: its columns and how an object becomes a row. */
export interface Printer {
  columns: TableColumnDefinition[];
  print(obj: KubeObject, ctx: PrintContext): PrintedRow;
  /** The order rows of a list are printed in, when the kind has one (FlowSchemas: by precedence). */
  order?(objects: readonly KubeObject[]): KubeObject[];
}
