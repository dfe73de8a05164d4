/**
 * The set of things still in progress (runs not yet terminal, schedules still due to fire), so settling
 * costs what is in progress rather than everything that ever existed. It iterates in creation order
 * (`seq`), as a scan of all records did: when several runs finish in one settle, the order decides which
 * ones get the last credits. An item re-added out of order (a rerun) is put back in its place.
 */
export class CreationOrderSet<T extends { readonly seq: number }> implements Iterable<T> {
  private items = new Set<T>();
  /** Highest seq ever added: anything newer can simply be appended. */
  private maxSeq = -Infinity;

  get size(): number {
    return this.items.size;
  }

  has(item: T): boolean {
    return this.items.has(item);
  }

  add(item: T): void {
    if (this.items.has(item)) return;
    if (item.seq > this.maxSeq) {
      this.items.add(item);
      this.maxSeq = item.seq;
      return;
    }
    // Rare (reruns, resumed schedules): rebuild in order. Iterators already running keep the old set.
    this.items = new Set([...this.items, item].sort((a, b) => a.seq - b.seq));
  }

  delete(item: T): void {
    this.items.delete(item);
  }

  [Symbol.iterator](): Iterator<T> {
    return this.items[Symbol.iterator]();
  }
}
