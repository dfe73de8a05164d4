import type { ResourceLink } from './links.js';
import type { Truncation } from './shape.js';

/**
 * What a result builder hands the catalog: `structuredContent`, the markdown for the model and how
 * the two go on the wire. The tools' `run` returns it (as `ToolOutput`); the catalog caps and sends it.
 */
export interface ResultOutput {
  /** `structuredContent`, matching the tool's output schema. */
  data: Record<string, unknown>;
  /** Markdown for the model: the whole answer, or (with `json`) the sentences before the JSON. */
  text: string;
  /** Append the (budgeted) JSON of `data` to the text: lists, settings, `detail: "full"`. */
  json?: boolean;
  /**
   * `data` holds user-generated content (posts, handles, profiles): appended JSON gets the
   * untrusted-content notice before it, and so does a resource read of it.
   */
  untrusted?: boolean;
  /** `resource_link` items after the text: where the full data can be read. */
  links?: ResourceLink[];
  /** Where the rest of an array the token budget cut can be read (a tool and its arguments). */
  rest?: (trimmed: Truncation) => string | null;
}

/** `detail` of the tools that return a search or a run: the summary, or the full record on request. */
export const DETAILS = ['summary', 'full'] as const;
export type Detail = (typeof DETAILS)[number];

/** Top posts shown in a search summary, by interactions. */
export const TOP_POSTS_DEFAULT = 10;

/** Posts per page of the posts tools when the caller gives no limit. */
export const POSTS_LIMIT_DEFAULT = 20;
