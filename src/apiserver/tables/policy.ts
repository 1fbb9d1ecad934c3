/** PodDisruptionBudgets. */
import type { PodDisruptionBudget } from "../../apimachinery/api/policy/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { ageColumn, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

export function printPodDisruptionBudget(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const pdb = obj as unknown as PodDisruptionBudget;
  const s = (v: unknown) => (v === undefined || v === null ? "N/A" : String(v));
  return {
    cells: [
      pdb.metadata?.name ?? "",
      s(pdb.spec?.minAvailable),
      s(pdb.spec?.maxUnavailable),
      pdb.status?.disruptionsAllowed ?? 0,
      translateTimestampSince(pdb.metadata?.creationTimestamp, ctx.now),
    ],
  };
}

export const podDisruptionBudgetPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Min Available", "string", "The minimum number of pods that must be available."),
    colText("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
    colText("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
    ageColumn(),
  ],
  print: printPodDisruptionBudget,
});
