import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { INITIAL_CREDITS, REQUEST_LOG_LIMIT, WEBHOOK_DELIVERY_LIMIT } from '../constants.js';
import { Faults } from '../faults.js';
import { SPEED_PROFILES, type Speed, type SpeedProfile } from '../speed.js';
import { CreationOrderSet } from './creation-order-set.js';
import type {
  Credential,
  ExpertRecord,
  RequestLogEntry,
  RunRecord,
  ScheduleRecord,
  ScheduleRunRecord,
  SearchRecord,
  WebhookDelivery,
} from './types.js';

/**
 * One credential's records in creation order. Lists and usage read only these, so a request's cost
 * depends on the caller's records, not on every credential's. Records are shared with the id maps, not
 * copied.
 */
export interface Owned {
  readonly keyword: readonly SearchRecord[];
  readonly user: readonly SearchRecord[];
  readonly expert: readonly ExpertRecord[];
  readonly runs: readonly RunRecord[];
  /** A set because schedules can be deleted (iteration is still creation order). */
  readonly schedules: ReadonlySet<ScheduleRecord>;
}

interface OwnedLists {
  keyword: SearchRecord[];
  user: SearchRecord[];
  expert: ExpertRecord[];
  runs: RunRecord[];
  schedules: Set<ScheduleRecord>;
}

export interface StoreCounters {
  seq: number;
  searchId: number;
  expertId: number;
  deliveryId: number;
  credentials: number;
}

const NOTHING_OWNED: Owned = { keyword: [], user: [], expert: [], runs: [], schedules: new Set() };

/** All sandbox state, in memory. One instance per sandbox app. */
export class Store {
  readonly credentials = new Map<string, Credential>();
  readonly keywordSearches = new Map<number, SearchRecord>();
  readonly userSearches = new Map<number, SearchRecord>();
  readonly expertSearches = new Map<number, ExpertRecord>();
  readonly runs = new Map<string, RunRecord>();
  readonly schedules = new Map<string, ScheduleRecord>();
  readonly scheduleRuns = new Map<string, ScheduleRunRecord>();
  /** The most recent WEBHOOK_DELIVERY_LIMIT deliveries, oldest first (see recordDelivery). */
  readonly deliveries: WebhookDelivery[] = [];
  readonly requests = new Map<string, RequestLogEntry[]>();
  readonly faults = new Faults();
  /** Runs not yet completed or failed: the only ones settling looks at. */
  readonly activeRuns = new CreationOrderSet<RunRecord>();
  /** Schedules that are not paused and have a next occurrence: the only ones settling looks at. */
  readonly armedSchedules = new CreationOrderSet<ScheduleRecord>();
  /** Each schedule's runs, in the order they fired. */
  private readonly scheduleRunLists = new Map<string, ScheduleRunRecord[]>();
  /**
   * Searches and expert searches whose webhook has not gone out yet, each with the instant it is due
   * (searches.ts webhookDueAt). Every search leaves at that instant, whether it sends anything or not.
   */
  readonly pendingWebhooks = new Map<SearchRecord | ExpertRecord, number>();
  private readonly owned = new Map<string, OwnedLists>();
  private nextSeq = 1;
  private nextSearchId = 1;
  private nextExpertId = 1;
  private nextDeliveryId = 1;
  private credentialCount = 0;

  constructor(
    readonly clock: Clock,
    public speed: Speed,
  ) {}

  now(): number {
    return this.clock.now();
  }

  profileFor(token: string): SpeedProfile {
    return SPEED_PROFILES[this.credentials.get(token)?.speed ?? this.speed];
  }

  createCredential(opts: {
    credits?: number;
    producer?: boolean;
    speed?: Speed | null;
    name?: string;
    synth_posts?: number | null;
  }): Credential {
    this.credentialCount += 1;
    const cred: Credential = {
      token: `sbx_${randomBytes(24).toString('base64url')}`,
      name: opts.name ?? `Sandbox account ${this.credentialCount}`,
      credits: opts.credits ?? INITIAL_CREDITS,
      producer: opts.producer ?? false,
      createdAt: this.now(),
      speed: opts.speed ?? null,
      returnUrl: null,
      synthPosts: opts.synth_posts ?? null,
    };
    this.credentials.set(cred.token, cred);
    return cred;
  }

  /** The credential's records, read-only (empty lists for a token that owns nothing). */
  ownedBy(token: string): Owned {
    return this.owned.get(token) ?? NOTHING_OWNED;
  }

  private own(token: string): OwnedLists {
    let owned = this.owned.get(token);
    if (owned === undefined) {
      owned = { keyword: [], user: [], expert: [], runs: [], schedules: new Set() };
      this.owned.set(token, owned);
    }
    return owned;
  }

  addSearch(rec: SearchRecord): void {
    (rec.kind === 'keyword' ? this.keywordSearches : this.userSearches).set(rec.id, rec);
    this.own(rec.token)[rec.kind].push(rec);
  }

  addExpertSearch(rec: ExpertRecord): void {
    this.expertSearches.set(rec.id, rec);
    this.own(rec.token).expert.push(rec);
  }

  addRun(run: RunRecord): void {
    this.runs.set(run.id, run);
    this.own(run.token).runs.push(run);
  }

  addSchedule(s: ScheduleRecord): void {
    this.schedules.set(s.id, s);
    this.own(s.token).schedules.add(s);
  }

  /** Removes the schedule and its history (the agent runs it created stay). */
  deleteSchedule(s: ScheduleRecord): void {
    this.schedules.delete(s.id);
    this.own(s.token).schedules.delete(s);
    this.armedSchedules.delete(s);
    for (const r of this.scheduleRunLists.get(s.id) ?? []) this.scheduleRuns.delete(r.id);
    this.scheduleRunLists.delete(s.id);
  }

  addScheduleRun(record: ScheduleRunRecord): void {
    this.scheduleRuns.set(record.id, record);
    const list = this.scheduleRunLists.get(record.scheduleId);
    if (list === undefined) this.scheduleRunLists.set(record.scheduleId, [record]);
    else list.push(record);
  }

  scheduleHistory(scheduleId: string): readonly ScheduleRunRecord[] {
    return this.scheduleRunLists.get(scheduleId) ?? [];
  }

  /** Creation order of runs and schedules. */
  sequence(): number {
    return this.nextSeq++;
  }

  searchId(): number {
    return this.nextSearchId++;
  }

  expertId(): number {
    return this.nextExpertId++;
  }

  deliveryId(): number {
    return this.nextDeliveryId++;
  }

  /** Keeps the delivery, forgetting the oldest beyond WEBHOOK_DELIVERY_LIMIT so memory stays flat. */
  recordDelivery(delivery: WebhookDelivery): void {
    this.deliveries.push(delivery);
    if (this.deliveries.length > WEBHOOK_DELIVERY_LIMIT) {
      this.deliveries.splice(0, this.deliveries.length - WEBHOOK_DELIVERY_LIMIT);
    }
  }

  /** The id counters, for a snapshot (state/persist.ts). */
  counters(): StoreCounters {
    return {
      seq: this.nextSeq,
      searchId: this.nextSearchId,
      expertId: this.nextExpertId,
      deliveryId: this.nextDeliveryId,
      credentials: this.credentialCount,
    };
  }

  /** Continues the counters of a restored snapshot, so no id is handed out twice. */
  restoreCounters(c: StoreCounters): void {
    this.nextSeq = Math.max(this.nextSeq, c.seq);
    this.nextSearchId = Math.max(this.nextSearchId, c.searchId);
    this.nextExpertId = Math.max(this.nextExpertId, c.expertId);
    this.nextDeliveryId = Math.max(this.nextDeliveryId, c.deliveryId);
    this.credentialCount = Math.max(this.credentialCount, c.credentials);
  }

  logRequest(token: string, entry: RequestLogEntry): void {
    const log = this.requests.get(token) ?? [];
    log.push(entry);
    if (log.length > REQUEST_LOG_LIMIT) log.splice(0, log.length - REQUEST_LOG_LIMIT);
    this.requests.set(token, log);
  }
}
