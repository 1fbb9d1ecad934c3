/** The type nodes of server-side apply (structured-merge-diff's schema atoms). */

export type ListType = "atomic" | "set" | "map";

export type TypeNode =
  | { readonly kind: "scalar" }
  | { readonly kind: "deduced" }
  | {
      readonly kind: "struct";
      readonly atomic: boolean;
      field(name: string): TypeNode | undefined;
      /** Required fields (Go fields without omitempty: present, if empty, in every object). */
      readonly required: ReadonlySet<string>;
    }
  | { readonly kind: "map"; readonly atomic: boolean; readonly element: TypeNode }
  | {
      readonly kind: "list";
      readonly listType: ListType;
      readonly keys: readonly string[];
      readonly element: TypeNode;
      /** Values of key fields an item may omit (the schema's defaults, e.g. protocol "TCP"). */
      readonly keyDefaults?: Readonly<Record<string, unknown>>;
    };

export const scalarType: TypeNode = { kind: "scalar" };
export const deducedType: TypeNode = { kind: "deduced" };

