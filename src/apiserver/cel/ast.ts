/**
 * The CEL abstract syntax tree after macro expansion, in cel-go's shape (common/ast): macros
 * such as `all`, `exists`, `map` and `cel.bind` are comprehensions with the same accumulator
 * variable, init, condition, step and result cel-go builds, so the static cost estimate walks
 * the same tree upstream does. Operators are calls named as cel-go names them (`_+_`, `_[_]`,
 * `@in`, `_?_:_`, `_?._`).
 *
 * `offset` is the source offset (UTF-16 units) of the token the node is reported at.
 */
import type { Val } from "./values.js";

interface Base {
  readonly id: number;
  readonly offset: number;
}

export type Expr =
  | (Base & { readonly kind: "const"; readonly value: Val })
  | (Base & { readonly kind: "ident"; readonly name: string })
  | (Base & { readonly kind: "select"; readonly operand: Expr; readonly field: string; readonly testOnly: boolean })
  | (Base & { kind: "call"; fn: string; target?: Expr; readonly args: Expr[] })
  | (Base & { readonly kind: "list"; readonly elems: Expr[]; readonly optionalIndices: readonly number[] })
  | (Base & { readonly kind: "map"; readonly entries: MapEntry[] })
  | (Base & { readonly kind: "struct"; readonly typeName: string; readonly fields: StructField[] })
  | (Base & {
      readonly kind: "comprehension";
      readonly iterVar: string;
      readonly iterVar2?: string;
      readonly iterRange: Expr;
      readonly accuVar: string;
      readonly accuInit: Expr;
      readonly loopCondition: Expr;
      readonly loopStep: Expr;
      readonly result: Expr;
    });

export interface MapEntry {
  readonly id: number;
  readonly offset: number;
  readonly key: Expr;
  readonly value: Expr;
  readonly optional: boolean;
}

export interface StructField {
  readonly id: number;
  readonly name: string;
  readonly value: Expr;
  readonly optional: boolean;
}

/** The accumulator cel-go's macros use. */
export const ACCUMULATOR = "@result";

/** Pushes the direct children of a node (for iterative walks). */
export function pushChildren(e: Expr, out: Expr[]): void {
  switch (e.kind) {
    case "select":
      out.push(e.operand);
      break;
    case "call":
      if (e.target) out.push(e.target);
      out.push(...e.args);
      break;
    case "list":
      out.push(...e.elems);
      break;
    case "map":
      for (const en of e.entries) out.push(en.key, en.value);
      break;
    case "struct":
      for (const f of e.fields) out.push(f.value);
      break;
    case "comprehension":
      out.push(e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result);
      break;
    default:
      break;
  }
}

/** Every node of a tree, depth first (parents before children). */
export function* walk(e: Expr): Generator<Expr> {
  yield e;
  switch (e.kind) {
    case "select":
      yield* walk(e.operand);
      break;
    case "call":
      if (e.target) yield* walk(e.target);
      for (const a of e.args) yield* walk(a);
      break;
    case "list":
      for (const a of e.elems) yield* walk(a);
      break;
    case "map":
      for (const en of e.entries) {
        yield* walk(en.key);
        yield* walk(en.value);
      }
      break;
    case "struct":
      for (const f of e.fields) yield* walk(f.value);
      break;
    case "comprehension":
      yield* walk(e.iterRange);
      yield* walk(e.accuInit);
      yield* walk(e.loopCondition);
      yield* walk(e.loopStep);
      yield* walk(e.result);
      break;
    default:
      break;
  }
}
