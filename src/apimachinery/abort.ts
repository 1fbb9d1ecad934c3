/**
 * Waiting on a shared AbortSignal. A manager's signal is shared by every watch, request and cache
 * wait of its informers and controllers; `onAbortOf` keeps one listener per signal and fans out
 * to the callbacks waiting on it, so a busy signal does not collect one listener per waiter (and
 * trip Node's MaxListenersExceededWarning at eleven).
 *
 * Invariant: `abortWaiters` holds a signal only while it has not aborted; its set holds exactly
 * the callbacks registered and not yet released. The map is weak, so an unaborted signal nobody
 * holds goes with its waiters.
 */
const abortWaiters = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `fn` once when `signal` aborts (never if it already has); returns the function that stops waiting. */
export function onAbortOf(signal: AbortSignal, fn: () => void): () => void {
  let waiters = abortWaiters.get(signal);
  if (!waiters) {
    const set = new Set<() => void>();
    waiters = set;
    abortWaiters.set(signal, set);
    signal.addEventListener(
      "abort",
      () => {
        abortWaiters.delete(signal);
        for (const w of set) w();
      },
      { once: true },
    );
  }
  const set = waiters;
  set.add(fn);
  return () => set.delete(fn);
}
