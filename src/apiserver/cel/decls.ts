/**
 * Function declarations: a function is a name with overloads; an overload has cel-go's
 * overload id (the cost estimators key on it), its parameter types (the receiver first for
 * member functions), a result type and an implementation. Libraries are sets of functions
 * merged into an environment.
 */
import { dispatchName, type Val } from "./values.js";
import { T, type CelType } from "./types.js";

/** An overload's implementation; `args` holds the receiver first for member overloads. */
export type Impl = (args: readonly Val[]) => Val;

export interface Overload {
  readonly id: string;
  readonly member: boolean;
  readonly params: readonly CelType[];
  readonly result: CelType;
  /** Absent for the special forms the interpreter evaluates itself (&&, ||, ?:, ...). */
  readonly impl?: Impl;
  /** Runtime dispatch: the type name each argument must have (undefined: any). */
  readonly dispatch: readonly (string | undefined)[];
}

export interface FunctionDecl {
  readonly name: string;
  readonly overloads: readonly Overload[];
}

export function overload(id: string, params: CelType[], result: CelType, impl?: Impl): Overload {
  return { id, member: false, params, result, impl, dispatch: params.map(dispatchName) };
}

export function memberOverload(id: string, params: CelType[], result: CelType, impl?: Impl): Overload {
  return { id, member: true, params, result, impl, dispatch: params.map(dispatchName) };
}

/** A set of function declarations (one library: the standard one, strings, lists, ...). */
export class Library {
  readonly functions = new Map<string, Overload[]>();
  /** Identifiers that name types (`int`, `list`, `net.IP`, ...). */
  readonly typeNames = new Map<string, CelType>();

  add(name: string, ...overloads: Overload[]): this {
    const list = this.functions.get(name) ?? [];
    for (const o of overloads) {
      const at = list.findIndex((x) => x.id === o.id);
      if (at >= 0) list[at] = o;
      else list.push(o);
    }
    this.functions.set(name, list);
    return this;
  }

  typeName(name: string, t: CelType): this {
    this.typeNames.set(name, t);
    return this;
  }

  merge(other: Library): this {
    for (const [name, ovs] of other.functions) this.add(name, ...ovs);
    for (const [n, t] of other.typeNames) this.typeNames.set(n, t);
    return this;
  }
}

/** Type parameters used in signatures. */
export const A = T.param("A");
export const B = T.param("B");
export const K = T.param("K");
export const V = T.param("V");
