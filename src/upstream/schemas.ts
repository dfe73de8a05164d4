import { z } from 'zod';

/**
 * Lenient response schemas: only the fields our code relies on are checked, every other field is kept
 * as it came (loose objects), and numbers may arrive as numeric strings. A response failing these is
 * `malformed` — the upstream changed in a way we must look at, not something to guess around.
 */

/** A number, or a string holding one (`"100"`), as a number. */
export const looseNumber = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

/** An id the search host sends as an integer (or, leniently, a numeric string). */
export const searchId = looseNumber.pipe(z.number().int());

const optionalString = z.string().nullish();

export const searchCreated = z.looseObject({
  id: searchId,
  query: optionalString,
  created_at: optionalString,
  updated_at: optionalString,
});
export type SearchCreated = z.infer<typeof searchCreated>;

export const searchDetails = z.looseObject({
  id: searchId,
  query: optionalString,
  status: optionalString,
  status_text: optionalString,
  status_percentage: looseNumber.nullish(),
  results: z.unknown().optional(),
  tweet_preview: z.array(z.unknown()).nullish(),
  platform: optionalString,
});
export type SearchDetails = z.infer<typeof searchDetails>;

export const expertSearchCreated = z.looseObject({
  id: searchId,
  query: optionalString,
  created_at: optionalString,
  search_url: optionalString,
});
export type ExpertSearchCreated = z.infer<typeof expertSearchCreated>;

export const expertSearchDetails = z.looseObject({
  id: searchId,
  query: optionalString,
  status: optionalString,
  expert_results: z.array(z.unknown()).nullish(),
});
export type ExpertSearchDetails = z.infer<typeof expertSearchDetails>;

/** Any JSON object; lists and other records whose shape we pass through. */
export const anyObject = z.looseObject({});
export type AnyObject = z.infer<typeof anyObject>;

export const postsData = z.looseObject({ posts: z.array(z.looseObject({ platform: optionalString })) });
export type PostsData = z.infer<typeof postsData>;

export const runRecord = z.looseObject({
  id: z.string(),
  status: z.string(),
  question: optionalString,
  progress: z
    .looseObject({
      percentage: looseNumber.nullish(),
      phase: optionalString,
      step_label: optionalString,
      current_tool: optionalString,
    })
    .nullish(),
  result: z.looseObject({}).nullish(),
  usage: z.looseObject({}).nullish(),
  error: z.unknown().optional(),
});
export type RunRecord = z.infer<typeof runRecord>;

export const runList = z.looseObject({
  runs: z.array(z.looseObject({ id: z.string() })),
  total: looseNumber.nullish(),
  limit: looseNumber.nullish(),
  offset: looseNumber.nullish(),
});
export type RunList = z.infer<typeof runList>;

export const scheduleRecord = z.looseObject({ id: z.string() });
export type ScheduleRecord = z.infer<typeof scheduleRecord>;

export const scheduleList = z.looseObject({
  schedules: z.array(z.looseObject({ id: z.string() })),
  total: looseNumber.nullish(),
});
export const scheduleRunList = z.looseObject({
  runs: z.array(z.looseObject({})),
  total: looseNumber.nullish(),
});

export const credits = z.looseObject({
  available_credits: looseNumber.nullish(),
  credits_limit: looseNumber.nullish(),
  period_reset_date: optionalString,
});
export type Credits = z.infer<typeof credits>;
