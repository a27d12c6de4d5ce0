// Rows read from the read models, reused while the read models are unchanged (issue 22).
//
// LiveReadModels.version() (live.ts) moves on any commit to the file, by this process or another
// (the admin CLI's revocation, a second API node, a worker process), and on a swap; the map is
// emptied the first time a changed version is seen. So a row served from here is what a read at
// this moment would return, and a poll that finds nothing changed costs the version check instead
// of a point read. Under a steady stream of events the map is emptied often and reads go to SQLite
// as before. Misses (undefined) are never held.
export function whileUnchanged<K, V extends object>(version: () => number, maxEntries: number): (key: K, read: () => V | undefined) => V | undefined {
  const held = new Map<K, V>();
  let heldAt = -1;
  return (key, read) => {
    // Taken before the read: a change racing the read only empties the map sooner.
    const now = version();
    if (now !== heldAt) {
      held.clear();
      heldAt = now;
    }
    const hit = held.get(key);
    if (hit !== undefined) return hit;
    const row = read();
    if (row !== undefined && held.size < maxEntries) held.set(key, Object.freeze(row));
    return row;
  };
}
