/**
 * createOrUpdate and createOrPatch (controller-runtime's controllerutil): bring one object to the
 * state a mutate function describes, writing only when something changed.
 *
 *   const { operation } = await createOrUpdate(ctx.client.resource(builtin.configMaps, ns),
 *     { metadata: { name: "settings", namespace: ns } }, (cm) => { cm.data = { mode: "fast" }; });
 *
 * Both read the live object (a GET, or `opts.current` when the caller has it from a cache — pass
 * `null` for "known absent"), run `mutate` on a copy of it (on a copy of `object` when it does not
 * exist, then create it), and refuse a mutate that changes the name or namespace:
 * - createOrUpdate: an update when the mutated copy differs semantically (equality.Semantic) —
 *   "created", "updated" or "unchanged";
 * - createOrPatch: a JSON merge patch of everything but status when that changed, and a merge
 *   patch of the status subresource when status changed — "created", "updated",
 *   "updatedStatus" (both), "updatedStatusOnly" or "unchanged".
 * Neither modifies `object` or `opts.current`. The written object (as the server returned it) is
 * returned beside the operation.
 */
import { deepCopy } from "../apimachinery/deepcopy.js";
import { deepEqual, semanticEqual } from "../apimachinery/equality.js";
import { isNotFound } from "../apimachinery/errors.js";
import { createMergePatch } from "../apimachinery/patch/mergepatch.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClient, WriteOptions } from "../client/interfaces.js";

export type OperationResult = "unchanged" | "created" | "updated" | "updatedStatus" | "updatedStatusOnly";

export type MutateFn<T> = (object: T) => void | Promise<void>;

export interface CreateOrUpdateOptions<T> {
  /** The live object, when the caller has it (from a cache); null: known not to exist. Absent: GET. */
  current?: T | null;
  /** fieldManager and friends for the write. */
  write?: WriteOptions;
}

export class MutateChangedKeyError extends Error {
  constructor() {
    super("MutateFn cannot mutate object name and/or object namespace");
    this.name = "MutateChangedKeyError";
  }
}

async function current<T extends TypedObject>(client: ResourceClient<T>, name: string, opts: CreateOrUpdateOptions<T>): Promise<T | undefined> {
  if (opts.current !== undefined) return opts.current ?? undefined;
  try {
    return await client.get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function mutated<T extends TypedObject>(base: T, mutate: MutateFn<T>): Promise<T> {
  const copy = deepCopy(base);
  const name = copy.metadata?.name ?? "";
  const namespace = copy.metadata?.namespace ?? "";
  await mutate(copy);
  if ((copy.metadata?.name ?? "") !== name || (copy.metadata?.namespace ?? "") !== namespace) throw new MutateChangedKeyError();
  return copy;
}

function nameOf(object: TypedObject): string {
  const name = object.metadata?.name;
  if (!name) throw new Error("createOrUpdate: the object needs metadata.name");
  return name;
}

/** The shared first half: read, and either create the mutated object or return live and mutated copies. */
async function readAndMutate<T extends TypedObject>(
  client: ResourceClient<T>,
  object: T,
  mutate: MutateFn<T>,
  opts: CreateOrUpdateOptions<T>,
): Promise<{ exists: false; created: T } | { exists: true; name: string; live: T; want: T }> {
  const name = nameOf(object);
  const live = await current(client, name, opts);
  if (!live) return { exists: false, created: await client.create(await mutated(object, mutate), opts.write) };
  return { exists: true, name, live, want: await mutated(live, mutate) };
}

/** controllerutil.CreateOrUpdate (module comment). */
export async function createOrUpdate<T extends TypedObject>(
  client: ResourceClient<T>,
  object: T,
  mutate: MutateFn<T>,
  opts: CreateOrUpdateOptions<T> = {},
): Promise<{ operation: OperationResult; object: T }> {
  const r = await readAndMutate(client, object, mutate, opts);
  if (!r.exists) return { operation: "created", object: r.created };
  const { live, want } = r;
  if (semanticEqual(live, want)) return { operation: "unchanged", object: live };
  return { operation: "updated", object: await client.update(want, opts.write) };
}

/** controllerutil.CreateOrPatch (module comment). */
export async function createOrPatch<T extends TypedObject>(
  client: ResourceClient<T>,
  object: T,
  mutate: MutateFn<T>,
  opts: CreateOrUpdateOptions<T> = {},
): Promise<{ operation: OperationResult; object: T }> {
  const r = await readAndMutate(client, object, mutate, opts);
  if (!r.exists) return { operation: "created", object: r.created };
  const { name, live, want } = r;
  const { status: beforeStatus, ...before } = live as T & { status?: unknown };
  const { status: afterStatus, ...after } = want as T & { status?: unknown };
  let operation: OperationResult = "unchanged";
  let written: T = live;
  if (!deepEqual(before, after)) {
    written = await client.patch(name, "merge", createMergePatch(before, after), opts.write);
    operation = "updated";
  }
  if ((beforeStatus !== undefined || afterStatus !== undefined) && !deepEqual(beforeStatus, afterStatus)) {
    const patch = createMergePatch({ status: beforeStatus ?? null }, { status: afterStatus ?? null });
    written = await client.patch(name, "merge", patch, { ...opts.write, subresource: "status" });
    operation = operation === "updated" ? "updatedStatus" : "updatedStatusOnly";
  }
  return { operation, object: written };
}
