/**
 * HorizontalPodAutoscalers: REFERENCE, TARGETS (formatHPAMetrics: at most two metrics, then
 * "+ N more..."), MINPODS, MAXPODS, REPLICAS, AGE. Upstream prints the internal (v2-shaped)
 * object whatever version was asked for, so autoscaling/v1 objects are converted first.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { hpaV1ToV2 } from "../registry/hpaconversion.js";
import { ageColumn, col, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

const V2 = "io.k8s.api.autoscaling.v2";
type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(rec) : []);
const q = (v: unknown): string => (v === undefined || v === null ? "0" : String(v));

/** formatHPAMetrics. */
export function formatHPAMetrics(specs: Json[], statuses: Json[]): string {
  if (specs.length === 0) return "<none>";
  const out: string[] = [];
  specs.forEach((spec, i) => {
    const st = statuses[i];
    const targetOf = (k: string) => rec(rec(spec[k]).target);
    const currentOf = (k: string) => (st && st[k] !== undefined && st[k] !== null ? rec(rec(st[k]).current) : undefined);
    switch (spec.type) {
      case "External":
      case "Object": {
        const k = spec.type === "External" ? "external" : "object";
        const t = targetOf(k);
        const c = currentOf(k);
        if (t.averageValue !== undefined && t.averageValue !== null) {
          const current = c && c.averageValue !== undefined && c.averageValue !== null ? q(c.averageValue) : "<unknown>";
          out.push(`${current}/${q(t.averageValue)} (avg)`);
        } else {
          const current = c ? q(c.value) : "<unknown>";
          out.push(`${current}/${q(t.value)}`);
        }
        break;
      }
      case "Pods": {
        const c = currentOf("pods");
        out.push(`${c ? q(c.averageValue) : "<unknown>"}/${q(targetOf("pods").averageValue)}`);
        break;
      }
      case "Resource":
      case "ContainerResource": {
        const k = spec.type === "Resource" ? "resource" : "containerResource";
        const name = String(rec(spec[k]).name ?? "");
        const t = targetOf(k);
        const c = currentOf(k);
        if (t.averageValue !== undefined && t.averageValue !== null) {
          out.push(`${name}: ${c ? q(c.averageValue) : "<unknown>"}/${q(t.averageValue)}`);
        } else {
          const current = c && typeof c.averageUtilization === "number" ? `${c.averageUtilization}%` : "<unknown>";
          const target = typeof t.averageUtilization === "number" ? `${t.averageUtilization}%` : "<auto>";
          out.push(`${name}: ${current}/${target}`);
        }
        break;
      }
      default:
        out.push("<unknown type>");
    }
  });
  const max = 2;
  if (out.length > max) return `${out.slice(0, max).join(", ")} + ${out.length - max} more...`;
  return out.join(", ");
}

export function printHorizontalPodAutoscaler(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const hpa = obj.apiVersion === "autoscaling/v1" ? hpaV1ToV2(obj) : obj;
  const spec = rec(hpa.spec);
  const status = rec(hpa.status);
  const ref = rec(spec.scaleTargetRef);
  return {
    cells: [
      hpa.metadata?.name ?? "",
      `${String(ref.kind ?? "")}/${String(ref.name ?? "")}`,
      formatHPAMetrics(list(spec.metrics), list(status.currentMetrics)),
      typeof spec.minReplicas === "number" ? String(spec.minReplicas) : "<unset>",
      typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0,
      typeof status.currentReplicas === "number" ? status.currentReplicas : 0,
      translateTimestampSince(hpa.metadata?.creationTimestamp, ctx.now),
    ],
  };
}

export const horizontalPodAutoscalerPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Reference", "string", `${V2}.HorizontalPodAutoscalerSpec`, "scaleTargetRef"),
    col("Targets", "string", `${V2}.HorizontalPodAutoscalerSpec`, "metrics"),
    col("MinPods", "string", `${V2}.HorizontalPodAutoscalerSpec`, "minReplicas"),
    col("MaxPods", "string", `${V2}.HorizontalPodAutoscalerSpec`, "maxReplicas"),
    col("Replicas", "string", `${V2}.HorizontalPodAutoscalerStatus`, "currentReplicas"),
    ageColumn(),
  ],
  print: printHorizontalPodAutoscaler,
});
