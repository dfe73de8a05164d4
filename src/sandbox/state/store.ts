import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { INITIAL_CREDITS, REQUEST_LOG_LIMIT } from '../constants.js';
import { Faults } from '../faults.js';
import { SPEED_PROFILES, type Speed, type SpeedProfile } from '../speed.js';
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

/** All sandbox state, in memory. One instance per sandbox app. */
export class Store {
  readonly credentials = new Map<string, Credential>();
  readonly keywordSearches = new Map<number, SearchRecord>();
  readonly userSearches = new Map<number, SearchRecord>();
  readonly expertSearches = new Map<number, ExpertRecord>();
  readonly runs = new Map<string, RunRecord>();
  readonly schedules = new Map<string, ScheduleRecord>();
  readonly scheduleRuns = new Map<string, ScheduleRunRecord>();
  readonly deliveries: WebhookDelivery[] = [];
  readonly requests = new Map<string, RequestLogEntry[]>();
  readonly faults = new Faults();
  /** Searches and expert searches whose webhook has not gone out yet. */
  readonly pendingWebhooks = new Set<SearchRecord | ExpertRecord>();
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
    };
    this.credentials.set(cred.token, cred);
    return cred;
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

  logRequest(token: string, entry: RequestLogEntry): void {
    const log = this.requests.get(token) ?? [];
    log.push(entry);
    if (log.length > REQUEST_LOG_LIMIT) log.splice(0, log.length - REQUEST_LOG_LIMIT);
    this.requests.set(token, log);
  }
}
