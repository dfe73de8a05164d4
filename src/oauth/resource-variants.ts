/**
 * Variants of the /mcp resource: `/mcp?toolsets=…`, `/mcp?readonly=1` and `/mcp/readonly` (with or
 * without toolsets) are one protected resource seen through a narrower view. They share the canonical
 * resource's tokens: a grant is bound to the canonical URL (RFC 8707 audience), and a token issued
 * through any variant works at every variant, since a view only hides tools and never grants one.
 *
 * A client that connects at a variant reads that variant's metadata (RFC 9728 §3.1: the well-known
 * path inserted before the resource's path and query), whose `resource` is the variant itself (§3.3),
 * and names it in its authorization and token requests; the server accepts it as the canonical
 * resource, and the consent page starts from the view it asks for.
 */

/** The path a read-only variant adds to the canonical resource's path. */
export const READ_ONLY_SUFFIX = '/readonly';

/** What a variant asks to see: toolsets as written (null: every one) and read-only. */
export interface ResourceView {
  toolsets: string | null;
  readOnly: boolean;
}

const PARAMS = new Set(['toolsets', 'readonly']);
const TOOLSETS_VALUE = /^[a-z_, ]{1,200}$/;
const YES = /^(1|true|yes|on)$/i;
const BOOLEAN = /^(1|true|yes|on|0|false|no|off)$/i;

/**
 * The view `value` asks for when it is the canonical resource or one of its variants (same origin,
 * the canonical path or its read-only path, no fragment, no query but `toolsets` and `readonly`, each
 * once), else null.
 */
export function resourceView(value: string, canonical: string): ResourceView | null {
  let url: URL;
  let base: URL;
  try {
    url = new URL(value);
    base = new URL(canonical);
  } catch {
    return null;
  }
  if (url.hash || url.origin !== base.origin || url.username || url.password) return null;
  const readOnlyPath = url.pathname === `${base.pathname}${READ_ONLY_SUFFIX}`;
  if (url.pathname !== base.pathname && !readOnlyPath) return null;
  for (const key of new Set(url.searchParams.keys())) {
    if (!PARAMS.has(key) || url.searchParams.getAll(key).length > 1) return null;
  }
  const toolsets = url.searchParams.get('toolsets');
  const readOnly = url.searchParams.get('readonly');
  if (toolsets !== null && !TOOLSETS_VALUE.test(toolsets)) return null;
  if (readOnly !== null && !BOOLEAN.test(readOnly)) return null;
  return { toolsets, readOnly: readOnlyPath || (readOnly !== null && YES.test(readOnly)) };
}

/** Whether a view asks for anything narrower than the whole resource. */
export function asksForLess(view: ResourceView | null): view is ResourceView {
  return view !== null && (view.toolsets !== null || view.readOnly);
}

/**
 * The variant's path below the canonical resource's and its query, from what a request to /mcp asked
 * (its path, and its toolsets and read-only, by URL or header): '' for the canonical resource.
 */
export function variantTail(
  readOnlyPath: boolean,
  toolsets: readonly string[] | null,
  readOnly: boolean,
): string {
  const query = new URLSearchParams();
  if (toolsets !== null) query.set('toolsets', toolsets.join(','));
  if (readOnly && !readOnlyPath) query.set('readonly', '1');
  const text = query.toString().replaceAll('%2C', ',');
  return `${readOnlyPath ? READ_ONLY_SUFFIX : ''}${text ? `?${text}` : ''}`;
}
