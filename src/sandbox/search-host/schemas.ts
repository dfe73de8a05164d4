import { z } from 'zod';
import {
  KEYWORD_PLATFORMS,
  MAX_POST_MAX,
  MAX_POST_MIN,
  QUERY_MAX_LENGTH,
  QUERY_MIN_LENGTH,
  RETURN_URL_MAX_LENGTH,
  USER_PLATFORMS,
} from '../constants.js';
import { isCalendarDate } from '../http.js';

const date = z
  .string()
  .refine(isCalendarDate, { message: 'must be a valid date in YYYY-MM-DD format' })
  .nullish();
const query = z.string().trim().min(QUERY_MIN_LENGTH).max(QUERY_MAX_LENGTH);
const maxPost = z.number().int().min(MAX_POST_MIN).max(MAX_POST_MAX).nullish();

export const keywordCreateSchema = z
  .object({
    query,
    start_date: date,
    end_date: date,
    platforms: z.array(z.enum(KEYWORD_PLATFORMS)).min(1).nullish(),
    max_post: maxPost,
  })
  .refine((b) => !(b.platforms?.includes('linkedin') && b.platforms.some((p) => p !== 'linkedin')), {
    message: 'linkedin must be requested alone, in its own search',
    path: ['platforms'],
  });

export const userCreateSchema = z.object({
  query,
  platform: z.enum(USER_PLATFORMS),
  start_date: date,
  end_date: date,
  max_post: maxPost,
});

export const expertCreateSchema = z.object({ query });

export const setupSchema = z.object({
  return_url: z
    .string()
    .max(RETURN_URL_MAX_LENGTH)
    .refine(
      (u) => {
        try {
          const url = new URL(u);
          return url.protocol === 'http:' || url.protocol === 'https:';
        } catch {
          return false;
        }
      },
      { message: 'must be an http or https URL' },
    ),
  name: z.string().trim().min(1).max(200).optional(),
});

export const listQuerySchema = z.object({
  show: z.enum(['all', 'pending', 'started', 'finished', 'failed']).default('all'),
  page: z.coerce.number().int().min(1).default(1),
});

export const expertListQuerySchema = z.object({
  show: z.enum(['all', 'running', 'completed', 'failed']).default('all'),
  page: z.coerce.number().int().min(1).default(1),
});
