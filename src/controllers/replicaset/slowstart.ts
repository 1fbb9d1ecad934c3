/**
 * slowStartBatch (replica_set.go): call `fn` `count` times in batches of 1, 2, 4, … (starting at
 * `initialBatchSize`), the calls of one batch concurrently. A batch with any failure ends the run
 * after the whole batch settles: no later batch starts. This keeps a controller that would fail
 * every create (quota, admission) from sending hundreds of doomed requests — and hundreds of events.
 */

/** The initial batch size of slow start (controller.SlowStartInitialBatchSize). */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

export interface SlowStartResult {
  /** Calls that succeeded. count − successes were either failed or never attempted. */
  successes: number;
  /** The first error of the failing batch, if any. */
  error?: unknown;
}

export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>): Promise<SlowStartResult> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => callAsync(fn)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    successes += batch - failures.length;
    if (failures.length > 0) return { successes, error: failures[0].reason };
    remaining -= batch;
  }
  return { successes };
}

/** Calls fn, turning a synchronous throw into a rejection. */
function callAsync(fn: () => Promise<void>): Promise<void> {
  try {
    return fn();
  } catch (err) {
    return Promise.reject(err);
  }
}
