/**
 * Service IP and node port allocation (the stateful part of kube-apiserver's service REST):
 * cluster IPs from a service CIDR (default 10.96.0.0/12; the first address is the `kubernetes`
 * service's), node ports from 30000-32767. Allocations are rebuilt from storage at start,
 * undone when a create fails or is a dry run, and released when a service is deleted.
 */
import { randomInt } from "node:crypto";
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ResourceHooks, Undo } from "../rest/context.js";

interface ServicePort {
  port?: number;
  nodePort?: number;
}
interface ServiceShape {
  spec?: { type?: string; clusterIP?: string; clusterIPs?: string[]; ports?: ServicePort[] };
}

function ipToInt(ip: string): number | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function intToIP(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

export class IPAllocator {
  private readonly base: number;
  private readonly size: number;
  private readonly used = new Set<number>();

  constructor(readonly cidr = "10.96.0.0/12") {
    const [addr, bits] = cidr.split("/");
    const b = ipToInt(addr);
    const prefix = Number(bits);
    if (b === undefined || !(prefix >= 8 && prefix <= 30)) throw new Error(`invalid service CIDR ${cidr}`);
    this.size = 2 ** (32 - prefix);
    this.base = b - (b % this.size);
  }

  /** The first usable address (network + 1): the kubernetes service's IP. */
  first(): string {
    return intToIP(this.base + 1);
  }

  contains(ip: string): boolean {
    const n = ipToInt(ip);
    return n !== undefined && n > this.base && n < this.base + this.size - 1;
  }

  allocate(ip: string): void {
    const n = ipToInt(ip);
    if (n === undefined || !this.contains(ip)) {
      throw StatusError.invalid({ group: "", kind: "Service" }, "", [
        fieldErrors.invalid("spec.clusterIPs", [ip], `failed to allocate IP ${ip}: provided IP is not in the valid range. The range of valid IPs is ${this.cidr}`),
      ]);
    }
    if (this.used.has(n)) {
      throw StatusError.invalid({ group: "", kind: "Service" }, "", [
        fieldErrors.invalid("spec.clusterIPs", [ip], `failed to allocate IP ${ip}: provided IP is already allocated`),
      ]);
    }
    this.used.add(n);
  }

  allocateNext(): string {
    const usable = this.size - 2;
    if (this.used.size >= usable) throw StatusError.internalError(new Error("failed to allocate a serviceIP: range is full"));
    const start = randomInt(usable);
    for (let i = 0; i < usable; i++) {
      const n = this.base + 1 + ((start + i) % usable);
      if (!this.used.has(n)) {
        this.used.add(n);
        return intToIP(n);
      }
    }
    throw StatusError.internalError(new Error("failed to allocate a serviceIP: range is full"));
  }

  release(ip: string): void {
    const n = ipToInt(ip);
    if (n !== undefined) this.used.delete(n);
  }

  isAllocated(ip: string): boolean {
    const n = ipToInt(ip);
    return n !== undefined && this.used.has(n);
  }
}

export class PortAllocator {
  private readonly used = new Set<number>();
  constructor(
    readonly min = 30000,
    readonly max = 32767,
  ) {}

  allocate(port: number): void {
    if (port < this.min || port > this.max) {
      throw StatusError.invalid({ group: "", kind: "Service" }, "", [
        fieldErrors.invalid("spec.ports[0].nodePort", port, `provided port is not in the valid range. The range of valid ports is ${this.min}-${this.max}`),
      ]);
    }
    if (this.used.has(port)) {
      throw StatusError.invalid({ group: "", kind: "Service" }, "", [fieldErrors.invalid("spec.ports[0].nodePort", port, "provided port is already allocated")]);
    }
    this.used.add(port);
  }

  allocateNext(): number {
    const n = this.max - this.min + 1;
    const start = randomInt(n);
    for (let i = 0; i < n; i++) {
      const p = this.min + ((start + i) % n);
      if (!this.used.has(p)) {
        this.used.add(p);
        return p;
      }
    }
    throw StatusError.internalError(new Error("failed to allocate a nodePort: range is full"));
  }

  release(port: number): void {
    this.used.delete(port);
  }
}

function needsNodePorts(type: string | undefined): boolean {
  return type === "NodePort" || type === "LoadBalancer";
}

export function serviceHooks(ips: IPAllocator, ports: PortAllocator): ResourceHooks {
  const allocateFor = (obj: KubeObject, old: KubeObject | undefined): Undo => {
    const spec = ((obj as ServiceShape).spec ??= {});
    const oldSpec = (old as ServiceShape | undefined)?.spec;
    const undo: Undo[] = [];
    try {
      if (spec.type !== "ExternalName") {
        const oldIP = oldSpec?.clusterIP;
        if (oldIP && oldIP !== "None" && (!spec.clusterIP || spec.clusterIP === oldIP)) {
          spec.clusterIP = oldIP;
        } else if (spec.clusterIP === "None") {
          // headless
        } else if (spec.clusterIP) {
          ips.allocate(spec.clusterIP);
          const ip = spec.clusterIP;
          undo.push(() => ips.release(ip));
        } else {
          const ip = ips.allocateNext();
          spec.clusterIP = ip;
          undo.push(() => ips.release(ip));
        }
        if (spec.clusterIP) spec.clusterIPs = [spec.clusterIP];
      }
      if (needsNodePorts(spec.type)) {
        const oldPorts = new Map((oldSpec?.ports ?? []).map((p) => [p.port, p.nodePort]));
        for (const p of spec.ports ?? []) {
          const kept = oldPorts.get(p.port);
          if (!p.nodePort && kept) p.nodePort = kept;
          else if (!p.nodePort) {
            const np = ports.allocateNext();
            p.nodePort = np;
            undo.push(() => ports.release(np));
          } else if (p.nodePort !== kept) {
            ports.allocate(p.nodePort);
            const np = p.nodePort;
            undo.push(() => ports.release(np));
          }
        }
      }
    } catch (err) {
      for (const u of undo) u();
      throw err;
    }
    return () => {
      for (const u of undo) u();
    };
  };
  return {
    beforeCreate: (obj) => allocateFor(obj, undefined),
    beforeUpdate: (obj, old) => allocateFor(obj, old),
    afterDelete(obj) {
      const spec = (obj as ServiceShape).spec;
      if (spec?.clusterIP && spec.clusterIP !== "None") ips.release(spec.clusterIP);
      for (const p of spec?.ports ?? []) if (p.nodePort) ports.release(p.nodePort);
    },
  };
}

/** Marks allocations of existing services (after a restart from persisted state). */
export function recordExistingService(obj: KubeObject, ips: IPAllocator, ports: PortAllocator): void {
  const spec = (obj as ServiceShape).spec;
  if (spec?.clusterIP && spec.clusterIP !== "None" && ips.contains(spec.clusterIP) && !ips.isAllocated(spec.clusterIP)) ips.allocate(spec.clusterIP);
  for (const p of spec?.ports ?? []) {
    if (p.nodePort) {
      try {
        ports.allocate(p.nodePort);
      } catch {
        // already recorded
      }
    }
  }
}
