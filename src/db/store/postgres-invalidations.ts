import postgres from 'postgres';
import { EVERYTHING, INVALIDATION_CHANNEL, type LocalWatchers } from './invalidation.js';

/** Waits between attempts to listen again after the connection dropped: doubling up to the last. */
const RETRY_MS = [50, 100, 250, 500, 1_000, 2_000, 5_000];

/**
 * The other instances' invalidations, on a connection of its own that does nothing but LISTEN. Unlike
 * postgres.js's own listen() (which the store's listen() uses), it says when it is not listening: a
 * notification sent while the connection is down is lost for good, so caches must not answer until it
 * listens again, and then must drop everything (EVERYTHING is delivered on each (re)start).
 */
export class InvalidationListener {
  private readonly sql: postgres.Sql;
  private up = false;
  private stopped = false;
  private starting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private attempts = 0;
  private markListening!: () => void;
  /** Resolves at the first successful LISTEN. */
  readonly listening = new Promise<void>((resolve) => {
    this.markListening = resolve;
  });

  constructor(
    url: string,
    private readonly watchers: LocalWatchers,
  ) {
    // `onnotify` is the option postgres.js's own listen() is built on (its connection hands every
    // NotificationResponse to it); it is missing from the package's types only.
    const onnotify = (channel: string, payload: string) => {
      if (channel === INVALIDATION_CHANNEL) watchers.receive(payload);
    };
    this.sql = postgres(url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: 'social-intel-mcp invalidations' },
      onclose: () => this.lost(),
      ...({ onnotify } as object),
    });
  }

  /** True while notifications are being received. */
  get live(): boolean {
    return this.up && !this.stopped;
  }

  /** Starts listening (once; again after a drop). Never rejects: failures are retried. */
  start(): Promise<void> {
    if (this.stopped || this.up) return Promise.resolve();
    this.starting ??= this.sql`LISTEN ${this.sql(INVALIDATION_CHANNEL)}`.then(
      () => {
        this.starting = null;
        if (this.stopped) return;
        this.attempts = 0;
        this.up = true;
        this.markListening();
        // Whatever was sent while nobody listened is unknown.
        this.watchers.deliver(EVERYTHING);
      },
      () => {
        this.starting = null;
        this.scheduleRetry();
      },
    );
    return this.starting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.up = false;
    if (this.retry) clearTimeout(this.retry);
    await this.sql.end({ timeout: 1 });
  }

  private lost(): void {
    if (!this.up) return;
    this.up = false;
    this.watchers.deliver(EVERYTHING);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retry) return;
    const wait = RETRY_MS[Math.min(this.attempts++, RETRY_MS.length - 1)] as number;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.start();
    }, wait);
    this.retry.unref();
  }
}
