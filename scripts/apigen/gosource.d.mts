/** Types of scripts/apigen/gosource.mjs for the tests (the generator itself is plain ESM). */
export interface Token { t: "ident" | "string" | "rawstring" | "number" | "rune" | "op"; v: string; line: number; nl: boolean }
export type TypeExpr =
  | { k: "ident"; name: string }
  | { k: "qual"; pkg: string; name: string }
  | { k: "ptr"; elem: TypeExpr }
  | { k: "slice"; elem: TypeExpr }
  | { k: "array"; len: string; elem: TypeExpr }
  | { k: "map"; key: TypeExpr; elem: TypeExpr }
  | { k: "struct"; fields: GoField[] }
  | { k: "interface" }
  | { k: "func" };
export interface GoField { names: string[]; embedded: boolean; type: TypeExpr; tag: string; doc: string[]; line: number }
export interface TypeDecl { kind: "type"; name: string; alias: boolean; type: TypeExpr; doc: string[]; doc2: string[]; line: number }
export interface ConstDecl { kind: "const"; name: string; type?: TypeExpr; value: Token[]; doc: string[]; line: number }
export interface VarDecl { kind: "var"; name: string; type?: TypeExpr; value: Token[]; doc: string[]; line: number }
export interface FuncDecl { kind: "func"; name: string; receiver?: string; body: Token[]; doc: string[]; line: number }
export interface GoFile { file: string; pkg: string; pkgDoc: string[]; imports: Map<string, string>; types: TypeDecl[]; consts: ConstDecl[]; vars: VarDecl[]; funcs: FuncDecl[] }
export class GoParseError extends Error {}
export function parseGoFile(src: string, file: string): GoFile;
export function tagLookup(tag: string, key: string): string | undefined;
export function mapStringLiteral(value: Token[]): Record<string, string> | undefined;
export function stringValue(tok: Token): string;
