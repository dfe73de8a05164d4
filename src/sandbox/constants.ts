/**
 * Every value the sandbox assumes where docs/upstream.md says "not shown" lives here, so it can change
 * in one place once the real behaviour is learned (see docs/upstream.md).
 */

/** Credits a new sandbox credential starts with. */
export const INITIAL_CREDITS = 100;
/** Credits spent when a keyword, user or expert search is created. */
export const SEARCH_CREDIT_COST = 1;

/** Inclusive bounds of `max_post` on searches, runs and schedules. */
export const MAX_POST_MIN = 1;
export const MAX_POST_MAX = 10_000;
/** Default posts per platform (keyword) or in total (user) since the documented change from 50. */
export const MAX_POST_DEFAULT = 100;
/** Inclusive bounds of a search query's length in characters. */
export const QUERY_MIN_LENGTH = 1;
export const QUERY_MAX_LENGTH = 500;
/** An agent question is longer prose than a search query. */
export const QUESTION_MAX_LENGTH = 2_000;
/** Longest accepted webhook URL (observed). */
export const RETURN_URL_MAX_LENGTH = 2_048;

/** Default windows of searches when dates are omitted (documented). */
export const KEYWORD_WINDOW_DAYS = 7;
export const USER_WINDOW_MONTHS = 1;
/** GET /api/usage without a month covers this many months (documented). */
export const USAGE_MONTHS = 12;

/** Search lists are paged 100 per page (observed). */
export const SEARCH_PAGE_SIZE = 100;
/** Agent run and schedule lists (documented). */
export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 100;

/** Agent run credit budget: default 4 since the documented change, allowed 1–4 (observed). */
export const AGENT_CREDITS_DEFAULT = 4;
export const AGENT_CREDITS_MIN = 1;
export const AGENT_CREDITS_MAX = 4;
/** A waiting run retries every 2 minutes, at most 10 times, then fails (assumed terminal state). */
export const RESUME_INTERVAL_MS = 2 * 60_000;
export const RESUME_MAX_ATTEMPTS = 10;
/** GET /api/v1/schedules/{id} shows this many recent schedule runs (observed). */
export const SCHEDULE_RECENT_RUNS = 10;
/** After a long clock jump a schedule fires at most this many missed occurrences per settle. */
export const SCHEDULE_MAX_CATCHUP = 50;
/** Length of a schedule run's result_preview (documented as "about 300"). */
export const RESULT_PREVIEW_CHARS = 300;

/** Webhook delivery: one attempt, this timeout (assumed). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How often the background tick settles state (schedules fire, webhooks go out). */
export const TICK_INTERVAL_MS = 200;
/** Requests remembered per credential for /__sandbox/credentials/{token}/requests. */
export const REQUEST_LOG_LIMIT = 1_000;
/** Webhook deliveries remembered for /__sandbox/webhooks (the most recent ones, all credentials). */
export const WEBHOOK_DELIVERY_LIMIT = 1_000;
/** Synthetic datasets kept built (least recently used dropped); the rest are rebuilt when read. */
export const DATASET_CACHE_SIZE = 64;

/** Synthetic posts generated per platform before max_post trims them (keeps responses small). */
export const SYNTH_POSTS_MIN = 12;
export const SYNTH_POSTS_MAX = 30;
/** Largest per-credential `synth_posts` (control API): big enough to page through, bounded all the same. */
export const SYNTH_POSTS_LIMIT = 1_000;
/** Compact posts in tweet_preview. */
export const TWEET_PREVIEW_SIZE = 10;

/** Header names (case-insensitive on the wire). */
export const TOKEN_HEADER = 'x-service-token';
export const USER_HEADER = 'x-service-user-id';

/** Path prefix of the agent host on the sandbox's single port. */
export const AGENT_PREFIX = '/agent';
/** Path prefix of the control API on the search host. */
export const CONTROL_PREFIX = '/__sandbox';

export const DEFAULT_PORT = 8788;
export const DEFAULT_HOST = '127.0.0.1';

export const KEYWORD_PLATFORMS = [
  'twitter',
  'reddit',
  'bluesky',
  'youtube',
  'threads',
  'facebook',
  'weibo',
  'linkedin',
] as const;
export type KeywordPlatform = (typeof KEYWORD_PLATFORMS)[number];
export const DEFAULT_KEYWORD_PLATFORMS: KeywordPlatform[] = ['twitter', 'reddit', 'bluesky', 'youtube'];
/** The posts_data `platform` filter, exactly as documented: no `threads`, no `youtube_comment`. */
export const POSTS_DATA_PLATFORMS = [
  'all',
  'twitter',
  'reddit',
  'bluesky',
  'youtube',
  'instagram',
  'facebook',
  'weibo',
  'linkedin',
] as const;
/** The topic_tree `platform` filter (assumed): any platform a tree is made for, every one but LinkedIn. */
export const TOPIC_TREE_PLATFORMS = ['all', ...KEYWORD_PLATFORMS.filter((p) => p !== 'linkedin')] as const;
/**
 * Every kind of post the sandbox returns, as posts_data's `platform` and results.posts' keys: the
 * searchable platforms, YouTube's comments (`youtube_comment`, documented in results.posts) and
 * Instagram (user searches).
 */
export const POST_KINDS = [...KEYWORD_PLATFORMS, 'youtube_comment', 'instagram'] as const;
export const USER_PLATFORMS = ['twitter', 'facebook', 'instagram'] as const;
export type UserPlatform = (typeof USER_PLATFORMS)[number];

export const SEARCH_STATUSES = ['pending', 'started', 'finished', 'failed'] as const;
export type SearchStatus = (typeof SEARCH_STATUSES)[number];
export const EXPERT_STATUSES = ['running', 'completed', 'failed'] as const;
export type ExpertStatus = (typeof EXPERT_STATUSES)[number];
export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'waiting'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_MODES = ['trend_briefing', 'monitoring', 'competitive_intel'] as const;
export type RunMode = (typeof RUN_MODES)[number];
export const RUN_MODE_DEFAULT: RunMode = 'trend_briefing';
export const TIME_WINDOW_DEFAULT = '7d';
/** e.g. 24h, 7d, 30d (observed examples); we accept 1–999 hours or days. */
export const TIME_WINDOW_PATTERN = /^[1-9]\d{0,2}[hd]$/;
export const RUN_PHASES = ['planning', 'searching', 'analyzing', 'writing_report'] as const;
/** Fraction of the running time at which each phase ends (same order as RUN_PHASES). */
export const RUN_PHASE_ENDS = [0.15, 0.6, 0.85, 1] as const;
/** A new run's label defaults to the start of its question, so it is always a string. */
export const RUN_LABEL_DEFAULT_CHARS = 80;
/** Longest accepted run label and schedule name. */
export const LABEL_MAX_LENGTH = 200;
export const RECURRENCE_TYPES = ['daily', 'weekly', 'monthly', 'once'] as const;
export type RecurrenceType = (typeof RECURRENCE_TYPES)[number];
export const SCHEDULE_RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export type ScheduleRunStatus = (typeof SCHEDULE_RUN_STATUSES)[number];

/** Rough token price used to derive cost_usd from token counts. */
export const USD_PER_INPUT_TOKEN = 3 / 1_000_000;
export const USD_PER_OUTPUT_TOKEN = 15 / 1_000_000;
