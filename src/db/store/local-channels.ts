import type { NotificationHandler } from './types.js';

/**
 * Notifications within one process, for the SQLite store: one file has one server process, so every
 * listener is here. Handlers run on a later tick, as a PostgreSQL notification would arrive.
 */
export class LocalChannels {
  private readonly handlers = new Map<string, Set<NotificationHandler>>();

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    // A handler listening twice is two listeners, as with PostgreSQL.
    const entry: NotificationHandler = (payload) => handler(payload);
    set.add(entry);
    return async () => {
      set.delete(entry);
    };
  }

  async notify(channel: string, payload: string): Promise<void> {
    const set = this.handlers.get(channel);
    if (!set?.size) return;
    for (const handler of [...set]) setImmediate(() => handler(payload));
  }
}
