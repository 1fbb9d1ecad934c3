/**
 * CEL environments and programs — the one CEL layer of the API server. An Env holds the
 * function libraries, the declared variables and the language options; `compile` parses and
 * type-checks an expression once (throwing CompileError with cel-go's issue text), `program`
 * plans it into closures once, and `Program.eval` runs it against variables with a runtime
 * cost limit. `estimateCost` gives the static worst case that CRD, ValidatingAdmissionPolicy
 * and webhook matchCondition validation compare with their budgets.
 *
 *   const env = kubernetesEnv().extend({ variables: { self: selfType } });
 *   const ast = env.compile("self.replicas <= self.maxReplicas");
 *   const prg = env.program(ast);
 *   prg.eval({ self }, { costLimit: 1_000_000 }) // → { value: true, cost: 5 }
 */
import { Checker, type CheckedAst } from "./checker.js";
import { estimateCost, runtimeCallCoster, type Range, type SizeEstimator } from "./cost.js";
import { Library, type Overload } from "./decls.js";
import { Activation, Planner, type Evaluator } from "./interpreter.js";
import { parse } from "./parser.js";
import { regexError } from "./regex.js";
import { CompileError, type Issue, type Source } from "./source.js";
import type { CelType } from "./types.js";
import { pushChildren, type Expr } from "./ast.js";
import { parseDuration, parseTimestamp } from "./time.js";
import { CelError, type Val } from "./values.js";

export interface EnvOptions {
  /** List and map literals must hold one type (cel.HomogeneousAggregateLiterals). */
  homogeneousLiterals?: boolean;
  /** `.?`, `[?`, optional list/map entries and optMap/optFlatMap (cel.OptionalTypes). */
  optionalSyntax?: boolean;
  /** all/exists/existsOne/transformList/transformMap with two variables (ext.TwoVarComprehensions). */
  twoVarComprehensions?: boolean;
  /** Reject constant arguments that cannot be valid (cel.ValidateDurationLiterals etc.). */
  validateLiterals?: boolean;
  /**
   * Message types that `Name{field: value}` may construct, as a name → type lookup (undefined:
   * not a type); values are StructValues (MutatingAdmissionPolicy's Object{...}, JSONPatch{...}).
   */
  structTypes?: (name: string) => CelType | undefined;
}

export interface CompiledExpr extends CheckedAst {
  readonly source: Source;
  readonly text: string;
}

export interface EvalOptions {
  /** The runtime cost limit; evaluation fails with "operation cancelled: actual cost limit exceeded" past it. */
  costLimit?: number;
}

export interface EvalResult {
  value?: Val;
  error?: CelError;
  /** The runtime cost spent (also when evaluation failed). */
  cost: number;
}

export class Program {
  constructor(
    private readonly root: Evaluator,
    private readonly slots: number,
    private readonly defaultLimit: number,
  ) {}

  eval(vars: Readonly<Record<string, Val | undefined>>, opts: EvalOptions = {}): EvalResult {
    const a = new Activation(vars, this.slots, opts.costLimit ?? this.defaultLimit);
    try {
      const value = this.root(a);
      return { value, cost: a.cost };
    } catch (e) {
      if (e instanceof CelError) return { error: e, cost: a.cost };
      throw e;
    }
  }
}

export class Env {
  private constructor(
    private readonly lib: Library,
    private readonly vars: ReadonlyMap<string, CelType>,
    readonly options: Readonly<EnvOptions>,
  ) {}

  static create(libraries: readonly Library[], options: EnvOptions = {}): Env {
    const lib = new Library();
    for (const l of libraries) lib.merge(l);
    return new Env(lib, new Map(), options);
  }

  /** A new environment with more variables and libraries; this one is unchanged. */
  extend(ext: { variables?: Record<string, CelType>; libraries?: readonly Library[]; options?: EnvOptions }): Env {
    let lib = this.lib;
    if (ext.libraries?.length) {
      lib = new Library().merge(this.lib);
      for (const l of ext.libraries) lib.merge(l);
    }
    const vars = new Map(this.vars);
    for (const [k, v] of Object.entries(ext.variables ?? {})) vars.set(k, v);
    return new Env(lib, vars, { ...this.options, ...ext.options });
  }

  variable(name: string): CelType | undefined {
    return this.vars.get(name);
  }

  functions(name: string): readonly Overload[] | undefined {
    return this.lib.functions.get(name);
  }

  /** The type an identifier such as `int` or `net.IP` names, if any. */
  typeName(name: string): CelType | undefined {
    return this.lib.typeNames.get(name);
  }

  hasFunction(name: string): boolean {
    return this.lib.functions.has(name);
  }

  /** Parses and type-checks; throws CompileError ("ERROR: <input>:1:6: ..."). */
  compile(text: string, opts: { dynamic?: boolean } = {}): CompiledExpr {
    const { expr, source } = parse(text, { optionalSyntax: this.options.optionalSyntax, twoVarComprehensions: this.options.twoVarComprehensions });
    const lib = this.lib;
    const checker = new Checker({
      variable: (n) => this.vars.get(n),
      functions: (n) => lib.functions.get(n),
      typeName: (n) => lib.typeNames.get(n),
      homogeneousLiterals: this.options.homogeneousLiterals === true && opts.dynamic !== true,
      dynamic: opts.dynamic,
      structType: this.options.structTypes,
    });
    const checked = checker.check(expr);
    const issues: Issue[] = [...checker.issues];
    if (issues.length === 0 && this.options.validateLiterals) issues.push(...validateLiterals(expr));
    if (issues.length) throw new CompileError(source, issues);
    return { ...checked, source, text };
  }

  /** Plans a compiled expression into a reusable program. */
  program(ast: CompiledExpr, opts: { costLimit?: number } = {}): Program {
    const planner = new Planner(ast, runtimeCallCoster);
    const root = planner.plan(ast.expr);
    return new Program(root, planner.slotCount, opts.costLimit ?? Number.MAX_SAFE_INTEGER);
  }

  /** The static cost range (cel.Env.EstimateCost). */
  estimateCost(ast: CompiledExpr, sizes?: SizeEstimator): Range {
    return estimateCost(ast, sizes);
  }
}

/** cel.ValidateDurationLiterals, ValidateTimestampLiterals and ValidateRegexLiterals. */
function validateLiterals(root: Expr): Issue[] {
  const issues: Issue[] = [];
  const stack: Expr[] = [root];
  while (stack.length) {
    const e = stack.pop()!;
    pushChildren(e, stack);
    if (e.kind !== "call") continue;
    const arg = e.args[0];
    if (!arg || arg.kind !== "const" || typeof arg.value !== "string") continue;
    const value = arg.value;
    try {
      if (e.fn === "duration" && e.args.length === 1) parseDuration(value);
      else if (e.fn === "timestamp" && e.args.length === 1) parseTimestamp(value);
      else if ((e.fn === "matches" && e.target) || ((e.fn === "find" || e.fn === "findAll") && e.target)) {
        if (regexError(value) !== undefined) throw new CelError("bad regex");
      }
    } catch {
      issues.push({ offset: arg.offset, message: `invalid ${e.fn} argument` });
    }
  }
  return issues;
}
