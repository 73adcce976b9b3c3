// Exports to one file are serialised inside this process. Two processes (e.g. two workers) exporting
// to the same file are kept apart by the engine's per-connected-system lock, not by this map.
const fileLocks = new Map<string, Promise<void>>();

/**
 * Waits for the in-process lock of `key` (FIFO) and resolves to the function that releases it.
 * The holder must release it exactly once, whatever happens (later callers wait until then).
 */
export async function acquireFileLock(key: string): Promise<() => void> {
  const previous = fileLocks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const chained = previous.then(() => current);
  fileLocks.set(key, chained);
  await previous;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
    if (fileLocks.get(key) === chained) fileLocks.delete(key);
  };
}
