// A persistent map for the decision state's records (live spots, live jobs, kept videos): every
// change gives a new version and leaves every older one readable, and a change or a read of the
// newest version costs O(1) whatever the size (issue 22: copying the key's live-jobs record on
// each submission made a submission O(live jobs)).
//
// How (Baker's "rerooting"): one Map holds the contents of one version, the root; every other
// version is a diff (one key's value, or its absence) on top of a neighbour, a chain that ends at
// the root. Reading a version that is not the root first moves the root to it, reversing the diffs
// on the way, so a read costs the number of changes between the version read and the root: O(1)
// for the newest (where commands read), a few for a state a request kept across a few commits.
// Versions nobody references are collected like any object (diffs point from old to new only,
// until a reroot turns them around).
const ABSENT = Symbol('absent');

type Node<V> = { map: Map<string, V> } | { key: string; value: V | typeof ABSENT; next: PMap<V> };

export class PMap<V> {
  private node: Node<V>;

  private constructor(node: Node<V>) {
    this.node = node;
  }

  static empty<V>(): PMap<V> {
    return new PMap<V>({ map: new Map() });
  }

  static of<V>(entries: Iterable<readonly [string, V]>): PMap<V> {
    return new PMap<V>({ map: new Map(entries) });
  }

  /** This version's contents, moved here from wherever the root was. */
  private contents(): Map<string, V> {
    if ('map' in this.node) return this.node.map;
    const path: PMap<V>[] = [];
    let v: PMap<V> = this;
    while (!('map' in v.node)) {
      path.push(v);
      v = v.node.next;
    }
    const map = v.node.map;
    // From the root back to this version: apply each diff to the map, and leave behind the diff
    // that undoes it, so the version the map leaves still reads what it read.
    for (let i = path.length - 1; i >= 0; i--) {
      const here = path[i]!;
      const diff = here.node as Extract<Node<V>, { key: string }>;
      const before = map.has(diff.key) ? map.get(diff.key)! : ABSENT;
      if (diff.value === ABSENT) map.delete(diff.key);
      else map.set(diff.key, diff.value);
      diff.next.node = { key: diff.key, value: before, next: here };
      here.node = { map };
    }
    return map;
  }

  get(key: string): V | undefined {
    return this.contents().get(key);
  }

  has(key: string): boolean {
    return this.contents().has(key);
  }

  get size(): number {
    return this.contents().size;
  }

  /** A copy of the entries (a later reroot cannot change what the caller iterates). */
  entries(): [string, V][] {
    return [...this.contents()];
  }

  keys(): string[] {
    return [...this.contents().keys()];
  }

  set(key: string, value: V): PMap<V> {
    return this.change(key, value);
  }

  delete(key: string): PMap<V> {
    return this.has(key) ? this.change(key, ABSENT) : this;
  }

  private change(key: string, value: V | typeof ABSENT): PMap<V> {
    const map = this.contents();
    const before = map.has(key) ? map.get(key)! : ABSENT;
    if (value === ABSENT) map.delete(key);
    else map.set(key, value);
    const next = new PMap<V>({ map });
    this.node = { key, value: before, next };
    return next;
  }

  /** Plain object (tests, debugging). */
  toJSON(): Record<string, V> {
    return Object.fromEntries(this.contents());
  }
}
