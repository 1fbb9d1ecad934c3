/** networking.k8s.io/v1: Ingresses, IngressClasses, NetworkPolicies, IPAddresses, ServiceCIDRs. */
import type { Ingress, IngressClass, IngressRule, NetworkPolicy } from "../../apimachinery/api/networking/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import { formatLabelSelector } from "./format.js";
import { loadBalancerStatusString } from "./network.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

const NETWORKING = "io.k8s.api.networking.v1";

/** formatHosts: up to three hosts, "*" when no rule names one. */
export function formatHosts(rules: IngressRule[] | undefined): string {
  const list: string[] = [];
  const all = rules ?? [];
  let more = false;
  for (const rule of all) {
    if (list.length === 3) more = true;
    if (!more && rule.host) list.push(rule.host);
  }
  if (list.length === 0) return "*";
  return more ? `${list.join(",")} + ${all.length - 3} more...` : list.join(",");
}

export function printIngress(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const ing = obj as unknown as Ingress;
  return {
    cells: [
      ing.metadata?.name ?? "",
      ing.spec?.ingressClassName ?? "<none>",
      formatHosts(ing.spec?.rules),
      loadBalancerStatusString(ing.status?.loadBalancer as never, ctx.wide),
      (ing.spec?.tls ?? []).length > 0 ? "80, 443" : "80",
      translateTimestampSince(ing.metadata?.creationTimestamp, ctx.now),
    ],
  };
}

export const ingressPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Class", "string", "The name of the IngressClass resource that should be used for additional configuration"),
    colText("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
    colText("Address", "string", "Address is a list containing ingress points for the load-balancer"),
    colText("Ports", "string", "Ports of TLS configurations that open"),
    ageColumn(),
  ],
  print: printIngress,
});

export function printIngressClass(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const ic = obj as unknown as IngressClass;
  const p = ic.spec?.parameters;
  let parameters = "<none>";
  if (p) parameters = `${p.kind}${p.apiGroup != null ? `.${p.apiGroup}` : ""}/${p.name}`;
  return { cells: [ic.metadata?.name ?? "", ic.spec?.controller ?? "", parameters, translateTimestampSince(ic.metadata?.creationTimestamp, ctx.now)] };
}

export const ingressClassPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Controller", "string", "Controller that is responsible for handling this class"),
    colText("Parameters", "string", "A reference to a resource with additional parameters"),
    ageColumn(),
  ],
  print: printIngressClass,
});

export function printNetworkPolicy(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const np = obj as unknown as NetworkPolicy;
  // The pod selector is a struct upstream: absent prints as the empty selector.
  return { cells: [np.metadata?.name ?? "", formatLabelSelector(np.spec?.podSelector ?? {}), translateTimestampSince(np.metadata?.creationTimestamp, ctx.now)] };
}

export const networkPolicyPrinter = (): Printer => ({
  columns: [nameColumn(), col("Pod-Selector", "string", `${NETWORKING}.NetworkPolicySpec`, "podSelector"), ageColumn()],
  print: printNetworkPolicy,
});

interface ParentRef {
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

export function printIPAddress(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const ref = (obj.spec as { parentRef?: ParentRef } | undefined)?.parentRef;
  let parent = "<none>";
  if (ref) {
    const gr = ref.group ? `${ref.resource ?? ""}.${ref.group}` : (ref.resource ?? "");
    parent = gr.toLowerCase();
    if (ref.namespace) parent += `/${ref.namespace}`;
    parent += `/${ref.name ?? ""}`;
  }
  // Upstream defines two columns (and appends an age cell kubectl never shows).
  void ctx;
  return { cells: [obj.metadata?.name ?? "", parent] };
}

export const ipAddressPrinter = (): Printer => ({
  columns: [nameColumn(), col("ParentRef", "string", `${NETWORKING}.IPAddressSpec`, "parentRef")],
  print: printIPAddress,
});

export function printServiceCIDR(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const cidrs = (obj.spec as { cidrs?: string[] } | undefined)?.cidrs ?? [];
  return { cells: [obj.metadata?.name ?? "", cidrs.join(","), translateTimestampSince(obj.metadata?.creationTimestamp, ctx.now)] };
}

export const serviceCIDRPrinter = (): Printer => ({
  columns: [nameColumn(), col("CIDRs", "string", `${NETWORKING}.ServiceCIDRSpec`, "cidrs"), ageColumn()],
  print: printServiceCIDR,
});
