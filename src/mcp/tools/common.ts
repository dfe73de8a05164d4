import { z } from 'zod';
import { KEYWORD_SEARCH_PLATFORMS, POST_KINDS, USER_SEARCH_PLATFORMS } from '../../upstream/platforms.js';
import { DETAILS, POSTS_LIMIT_DEFAULT } from '../results/result-output.js';

/**
 * Shared argument and output shapes of the tool groups, defined once. Argument descriptions are short:
 * every word is in every model's context on every connect, so a name and type that say it
 * all get no description, and long checks (UUIDs, dates) are listed as `format` while the server
 * checks them with the messages given here.
 */

/**
 * Free text with a length limit far past what anyone writes (names, questions, labels): checked here,
 * with a message, but not listed as `maxLength`, which would cost every model tokens for nothing.
 */
export const text = (max: number, min = 1) =>
  z
    .string()
    .refine((v) => v.length >= min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .refine((v) => v.length <= max, `must be at most ${max} characters`);

const POSITIVE_ID = 'must be a positive whole number, e.g. 42';

/**
 * A search id: a number, or the same number written as a string (`"42"`, an obvious id a model may
 * quote). The schema lists both, and the server checks either with one message.
 */
export const searchIdArg = z.union(
  [
    z
      .number()
      .int(POSITIVE_ID)
      .refine((v) => v >= 1, POSITIVE_ID),
    z
      .string()
      .refine((v) => /^\s*[1-9]\d{0,14}\s*$/.test(v), POSITIVE_ID)
      .transform(Number),
  ],
  { error: POSITIVE_ID },
);

export const uuidArg = z.uuid({ message: 'must be a UUID, e.g. 0b9a2c4e-5d6f-4a1b-8c3d-2e4f6a8b0c1d' });

export const dateArg = z.iso.date({ message: 'must be a date written YYYY-MM-DD' });

export const dateTimeArg = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-03-01T09:00:00Z',
});

/** The platform lists are the upstream's (src/upstream/platforms.ts), defined there once. */
export const KEYWORD_PLATFORMS = KEYWORD_SEARCH_PLATFORMS;
export const USER_PLATFORMS = USER_SEARCH_PLATFORMS;

export const SEARCH_STATUSES = ['all', 'pending', 'started', 'finished', 'failed'] as const;

export const maxPostArg = z.number().int().min(1).max(10_000).describe('Per platform.');

export const pageArg = z.number().int().min(1).describe('100 per page.');

/** A list's status filter: `show` alone could be read as which fields to show. */
export const showArg = <T extends readonly [string, ...string[]]>(statuses: T) =>
  z.enum(statuses).describe('Status filter.');

/** `full` is the raw record, not a longer summary: a model could read it either way. */
export const detailArg = z.enum(DETAILS).describe('full: the record as JSON.');

export const POSTS_LIMIT_MAX = 500;
export const postsPaging = {
  offset: z.number().int().min(0),
  limit: z.number().int().min(1).max(POSTS_LIMIT_MAX),
};

/** Output schemas are loose objects: they name the fields a model can rely on, and keep the rest. */
export const truncationOutput = z
  .array(
    z.looseObject({
      path: z.string(),
      kind: z.string(),
      kept: z.number(),
      total: z.number(),
      rest: z.string().optional().describe('Where the rest can be read.'),
    }),
  )
  .optional()
  .describe(
    'Present when the token budget cut arrays or strings: which, how much was kept, where the rest is.',
  );

export const pendingFields = {
  completed: z.boolean().describe('False when the wait ended first; call next_step later.'),
  next_step: z.string().optional(),
};

export const detailOutput = z.enum(DETAILS).optional();

/** Drops undefined entries so request bodies carry only what the model gave. */
export function compact<T extends Record<string, unknown>>(value: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out;
}

/** The posts tools' arguments: which search, which page, and how much detail. */
const pageInput = {
  search_id: searchIdArg,
  offset: postsPaging.offset.optional(),
  limit: postsPaging.limit.optional().describe(`Default ${POSTS_LIMIT_DEFAULT}.`),
  detail: detailArg.optional(),
};

/** A keyword search's posts, of one kind or all: every kind its summary counts. */
export const keywordPostsInput = z.strictObject({
  ...pageInput,
  platform: z
    .enum(['all', ...POST_KINDS])
    .optional()
    .describe('youtube_comment: comments on the videos.'),
});

/** A user search's posts are one account's, on the one platform searched: no filter to give. */
export const userPostsInput = z.strictObject(pageInput);
