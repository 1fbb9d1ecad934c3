/**
 * A small schema DSL for custom resources: each builder returns a `Field<T>` that holds a
 * structural OpenAPI v3 schema node (apiextensions.k8s.io/v1 JSONSchemaProps with the Kubernetes
 * vendor extensions) and, at the type level only, the TypeScript type of the values it admits.
 *
 *   const port = k.object({
 *     name: k.string({ maxLength: 15 }).optional(),
 *     containerPort: k.integer({ format: "int32", minimum: 1, maximum: 65535 }),
 *     protocol: k.enum(["TCP", "UDP", "SCTP"], { default: "TCP" }).optional(),
 *   });
 *   type Port = TypeOf<typeof port>; // { containerPort: number; name?: string; protocol?: "TCP" | "UDP" | "SCTP" }
 *
 * Why our own and not TypeBox/zod/valibot: see docs/crds.md (measured type-check and run-time
 * cost, and the Kubernetes extensions that are first-class here: list types with map keys typed
 * as keys of the item, int-or-string, embedded resources, preserve-unknown-fields, CEL rules).
 *
 * Invariants: a Field is immutable (every modifier returns a new Field; `schema` is frozen deep),
 * and every node it holds is structural (a `type` everywhere except int-or-string and
 * preserve-unknown nodes, no $ref, no value validations with a type of their own under
 * anyOf/allOf), so a CRD built from Fields passes the API server's structural-schema checks.
 */

/** One CEL rule (apiextensions.k8s.io/v1 ValidationRule), emitted as `x-kubernetes-validations`. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** apiextensions.k8s.io/v1 JSONSchemaProps, with the Kubernetes vendor extensions. */
export interface JSONSchemaProps {
  description?: string;
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: string;
  title?: string;
  nullable?: boolean;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  anyOf?: JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  "x-kubernetes-validations"?: ValidationRule[];
}

declare const valueTypeTag: unique symbol;

/** Options every builder takes. */
export interface CommonOptions {
  description?: string;
  title?: string;
  /** CEL rules on this node (`self` is the node's value). */
  validations?: (string | ValidationRule)[];
  /** `nullable: true`: null is kept (not pruned) and admitted. */
  nullable?: boolean;
}

/** A schema node and, as a type-level tag, the type `T` of its values; `O`: optional in its object. */
export class Field<T, O extends boolean = false> {
  /** The type of the values (compile time only; never set). */
  declare readonly [valueTypeTag]?: T;

  private constructor(
    /** The structural schema node (frozen). */
    readonly schema: Readonly<JSONSchemaProps>,
    /** Whether the field may be absent from its object (not in the object's `required`). */
    readonly isOptional: O,
  ) {}

  /** @internal The one way Fields are made (builders below). */
  static of<T>(schema: JSONSchemaProps): Field<T, false> {
    return new Field<T, false>(deepFreeze(compact(schema)), false);
  }

  /** The field may be absent: left out of its object's `required`, optional in the TS type. */
  optional(): Field<T, true> {
    return new Field<T, true>(this.schema, true);
  }

  /** The same node with `description`. */
  describe(description: string): Field<T, O> {
    const { description: _old, ...rest } = this.schema;
    return new Field<T, O>(deepFreeze({ description, ...rest }), this.isOptional);
  }

  /** The value the API server fills in when the field is absent (structural defaulting). */
  default(value: T): Field<T, O> {
    return this.with({ default: value });
  }

  /** Adds CEL rules (`x-kubernetes-validations`); `self` is this node's value. */
  validate(...rules: (string | ValidationRule)[]): Field<T, O> {
    return this.with({ "x-kubernetes-validations": [...(this.schema["x-kubernetes-validations"] ?? []), ...rules.map(toRule)] });
  }

  /** Admits (and keeps) null. */
  nullable(): Field<T | null, O> {
    return new Field<T | null, O>(deepFreeze({ ...this.schema, nullable: true }), this.isOptional);
  }

  /**
   * The same schema, typed as `U`: for a subtree that restates (part of) a type declared
   * elsewhere, e.g. core/v1 EnvVar, whose TS type the caller knows better than the schema says
   * (preserve-unknown parts). The schema, not `U`, is what the server enforces.
   */
  as<U>(): Field<U, O> {
    return new Field<U, O>(this.schema, this.isOptional);
  }

  private with(extra: JSONSchemaProps): Field<T, O> {
    return new Field<T, O>(deepFreeze(compact({ ...this.schema, ...extra })), this.isOptional);
  }
}

/** Any Field (of any value type, optional or not). */
export type AnyField = Field<unknown, boolean>;

/** The value type of a Field: `TypeOf<typeof k.string()>` is `string`. */
export type TypeOf<F> = F extends Field<infer T, boolean> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<P> = { [K in keyof P]: P[K] extends Field<unknown, false> ? K : never }[keyof P];
type OptionalKeys<P> = { [K in keyof P]: P[K] extends Field<unknown, false> ? never : K }[keyof P];

/** The object type of a property map: required keys as given, optional ones with `?`. */
export type ObjectType<P extends Record<string, AnyField>> = Simplify<
  { [K in RequiredKeys<P>]: TypeOf<P[K]> } & { [K in OptionalKeys<P>]?: TypeOf<P[K]> }
>;

function toRule(r: string | ValidationRule): ValidationRule {
  return typeof r === "string" ? { rule: r } : { ...r };
}

/** Drops undefined members, and moves the common options to their schema keys. */
function compact(s: JSONSchemaProps): JSONSchemaProps {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (v !== undefined) out[k] = v;
  return out as JSONSchemaProps;
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function common(o: CommonOptions | undefined): JSONSchemaProps {
  if (!o) return {};
  return {
    description: o.description,
    title: o.title,
    nullable: o.nullable,
    "x-kubernetes-validations": o.validations?.length ? o.validations.map(toRule) : undefined,
  };
}

/** Orders a node's keys the way CRDs are usually written (description, type, format, ...). */
function node(head: JSONSchemaProps, o: CommonOptions | undefined, tail: JSONSchemaProps = {}): JSONSchemaProps {
  const c = common(o);
  return { description: c.description, title: c.title, ...head, nullable: c.nullable, ...tail, "x-kubernetes-validations": c["x-kubernetes-validations"] };
}

export class InvalidSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidSchemaError";
  }
}

export interface StringOptions extends CommonOptions {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** An OpenAPI/Kubernetes format: date-time, date, byte, uri, uuid, int-or-string is k.intOrString(). */
  format?: string;
  default?: string;
}

export interface NumberOptions extends CommonOptions {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  default?: number;
}

export interface IntegerOptions extends NumberOptions {
  format?: "int32" | "int64";
}

export interface ObjectOptions extends CommonOptions {
  minProperties?: number;
  maxProperties?: number;
  /** `x-kubernetes-map-type`: atomic objects are replaced whole by server-side apply. */
  mapType?: "atomic" | "granular";
  /** Keep fields the schema does not name (x-kubernetes-preserve-unknown-fields). */
  preserveUnknownFields?: boolean;
  default?: Record<string, unknown>;
}

export interface ArrayOptions<I> extends CommonOptions {
  minItems?: number;
  maxItems?: number;
  /**
   * `x-kubernetes-list-type`: atomic (replaced whole), set (unique scalars, merged), map (items
   * keyed by `mapKeys`, merged by key). Absent: atomic, as upstream.
   */
  listType?: "atomic" | "set" | "map";
  /** For listType "map": the item fields that key the list (each required or defaulted in the item). */
  mapKeys?: (I extends object ? Extract<keyof I, string> : never)[];
  default?: I[];
}

export interface MapOptions extends CommonOptions {
  minProperties?: number;
  maxProperties?: number;
  mapType?: "atomic" | "granular";
}

function stringField<T extends string>(o: StringOptions | undefined, extra: JSONSchemaProps = {}): Field<T> {
  return Field.of<T>(
    node({ type: "string", format: o?.format, ...extra }, o, { minLength: o?.minLength, maxLength: o?.maxLength, pattern: o?.pattern, default: o?.default }),
  );
}

function numberField(type: "integer" | "number", o: (NumberOptions & { format?: string }) | undefined): Field<number> {
  if (type === "integer" && o?.default !== undefined && !Number.isInteger(o.default)) throw new InvalidSchemaError(`integer default ${o.default} is not an integer`);
  if (o?.minimum !== undefined && o.maximum !== undefined && o.minimum > o.maximum) throw new InvalidSchemaError(`minimum ${o.minimum} is above maximum ${o.maximum}`);
  return Field.of<number>(
    node({ type, format: o?.format }, o, {
      minimum: o?.minimum,
      exclusiveMinimum: o?.exclusiveMinimum,
      maximum: o?.maximum,
      exclusiveMaximum: o?.exclusiveMaximum,
      multipleOf: o?.multipleOf,
      default: o?.default,
    }),
  );
}

function intOrStringNode(o: CommonOptions | undefined, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return node({ anyOf: [{ type: "integer" }, { type: "string" }], ...extra, "x-kubernetes-int-or-string": true }, o);
}

/** The schema builders. */
export const k = {
  string: (o?: StringOptions): Field<string> => stringField<string>(o),

  /** A string from a fixed set; the TS type is the union of the values. */
  enum: <const V extends readonly string[]>(values: V, o?: Omit<StringOptions, "default"> & { default?: V[number] }): Field<V[number]> => {
    if (values.length === 0) throw new InvalidSchemaError("an enum needs at least one value");
    if (o?.default !== undefined && !values.includes(o.default)) throw new InvalidSchemaError(`default "${o.default}" is not one of the enum values ${values.join(", ")}`);
    return stringField<V[number]>(o, { enum: [...values] });
  },

  /** An RFC 3339 timestamp (metav1.Time on the wire). */
  dateTime: (o?: Omit<StringOptions, "format">): Field<string> => stringField<string>({ ...o, format: "date-time" }),

  integer: (o?: IntegerOptions): Field<number> => numberField("integer", o),
  number: (o?: NumberOptions & { format?: "float" | "double" }): Field<number> => numberField("number", o),
  boolean: (o?: CommonOptions & { default?: boolean }): Field<boolean> => Field.of<boolean>(node({ type: "boolean" }, o, { default: o?.default })),

  /** intstr.IntOrString: an integer or a string such as "25%". */
  intOrString: (o?: CommonOptions & { default?: number | string }): Field<number | string> => Field.of<number | string>({ ...intOrStringNode(o), default: o?.default }),

  /** An object with the given properties; `required` is every property not marked optional(). */
  object: <P extends Record<string, AnyField>>(properties: P, o?: ObjectOptions): Field<ObjectType<P>> => {
    const props: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    for (const [name, f] of Object.entries(properties)) {
      props[name] = f.schema;
      if (!f.isOptional) required.push(name);
    }
    return Field.of<ObjectType<P>>(
      node({ type: "object", required: required.length ? required : undefined, properties: props }, o, {
        minProperties: o?.minProperties,
        maxProperties: o?.maxProperties,
        "x-kubernetes-map-type": o?.mapType,
        "x-kubernetes-preserve-unknown-fields": o?.preserveUnknownFields || undefined,
        default: o?.default,
      }),
    );
  },

  /** A map from string keys to values of one schema (additionalProperties). */
  map: <V>(values: Field<V, boolean>, o?: MapOptions & { default?: Record<string, V> }): Field<Record<string, V>> =>
    Field.of<Record<string, V>>(
      node({ type: "object", additionalProperties: values.schema }, o, {
        minProperties: o?.minProperties,
        maxProperties: o?.maxProperties,
        "x-kubernetes-map-type": o?.mapType,
        default: o?.default,
      }),
    ),

  /** A list; with `listType: "map"`, `mapKeys` are checked to be required (or defaulted) scalar fields of the item. */
  array: <I>(items: Field<I, boolean>, o?: ArrayOptions<I>): Field<I[]> => {
    const listType = o?.listType;
    if (o?.mapKeys && listType !== "map") throw new InvalidSchemaError('mapKeys need listType "map"');
    if (listType === "map") {
      const keys = o?.mapKeys ?? [];
      if (keys.length === 0) throw new InvalidSchemaError('listType "map" needs mapKeys');
      const item = items.schema;
      if (item.type !== "object") throw new InvalidSchemaError('listType "map" needs object items');
      for (const key of keys) {
        const ks = item.properties?.[key];
        if (!ks) throw new InvalidSchemaError(`map key "${key}" is not a property of the items`);
        if (!item.required?.includes(key) && ks.default === undefined) throw new InvalidSchemaError(`map key "${key}" must be required or have a default`);
        if (ks.type !== "string" && ks.type !== "integer" && ks.type !== "boolean") throw new InvalidSchemaError(`map key "${key}" must be a scalar (string, integer or boolean)`);
      }
    }
    if (listType === "set") {
      const t = items.schema.type;
      if (t === "object" || t === "array") throw new InvalidSchemaError('listType "set" needs scalar items');
    }
    return Field.of<I[]>(
      node({ type: "array" }, o, {
        minItems: o?.minItems,
        maxItems: o?.maxItems,
        "x-kubernetes-list-type": listType,
        "x-kubernetes-list-map-keys": o?.mapKeys?.length ? [...o.mapKeys] : undefined,
        default: o?.default,
        items: items.schema,
      }),
    );
  },

  /**
   * Any JSON object the schema does not describe (x-kubernetes-preserve-unknown-fields); `T` is
   * what the caller knows of it (default: an unknown record).
   */
  preserveUnknown: <T = Record<string, unknown>>(o?: CommonOptions): Field<T> =>
    Field.of<T>(node({ type: "object" }, o, { "x-kubernetes-preserve-unknown-fields": true })),

  /**
   * A whole Kubernetes object inside this one (x-kubernetes-embedded-resource): apiVersion, kind
   * and metadata are validated as for a top-level object; the rest is kept as sent.
   */
  embedded: <T extends { apiVersion?: string; kind?: string } = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; [k: string]: unknown }>(
    o?: CommonOptions,
  ): Field<T> =>
    Field.of<T>(node({ type: "object" }, o, { "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true })),
};
