/**
 * Who may use the SQLite connection now. Closed for everything while a transaction of this connection
 * runs (a statement sent meanwhile would become part of it); closed for writes only while another
 * connection of this process on the same file writes in a turn this one lent it (reads go on: WAL
 * readers never wait for a writer, and a write sent meanwhile would wait for SQLite's lock by sleeping
 * on the event loop).
 */
export class ConnectionGate {
  private ended: Promise<void> | null = null;
  private writesOnly = false;

  /** Closed in any way: a transaction or a lent turn must wait. */
  get busy(): boolean {
    return this.ended !== null;
  }

  /** Whether a statement must wait: every one during a transaction, writes during a lent turn. */
  holds(readonly: boolean): boolean {
    return this.ended !== null && !(readonly && this.writesOnly);
  }

  idle(): Promise<void> {
    return this.ended ?? Promise.resolve();
  }

  /** Closes the gate (`writes`: for writes only); the returned function opens it again. */
  close(mode: 'all' | 'writes' = 'all'): () => void {
    let open!: () => void;
    this.ended = new Promise((resolve) => {
      open = resolve;
    });
    this.writesOnly = mode === 'writes';
    return () => {
      this.ended = null;
      this.writesOnly = false;
      open();
    };
  }
}
