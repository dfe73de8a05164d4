import { eq } from 'drizzle-orm';
import type { ToolUsageRow } from '../audit/tool-usage.js';
import { first, type Store } from '../db/store/index.js';
import { metrics } from '../metrics/index.js';
import type { SecretBox } from '../security/secrets.js';
import { createUpstreamClient } from '../upstream/client.js';
import { UpstreamError } from '../upstream/errors.js';

export const USAGE_DAYS = [7, 30, 90] as const;

/** Totals per member and tool over the same period. */
export function totalsByMemberAndTool(rows: ToolUsageRow[]) {
  const totals = new Map<string, { userEmail: string | null; tool: string; calls: number; failed: number }>();
  for (const r of rows) {
    const key = `${r.userId}\0${r.tool}`;
    const t = totals.get(key) ?? { userEmail: r.userEmail, tool: r.tool, calls: 0, failed: 0 };
    t.calls += r.calls;
    t.failed += r.failed;
    totals.set(key, t);
  }
  return [...totals.values()].sort(
    (a, b) => (a.userEmail ?? '').localeCompare(b.userEmail ?? '') || a.tool.localeCompare(b.tool),
  );
}

export type UpstreamUsage = { ok: true; record: Record<string, unknown> } | { ok: false; message: string };

/**
 * GET /api/usage on the upstream with the workspace's token (only the token header: the usage
 * endpoint takes no user id). Never throws; a failure is a sentence for the page.
 */
export async function fetchUpstreamUsage(
  deps: {
    db: Store;
    secrets: SecretBox;
    upstream: { searchUrl: string; agentUrl: string };
    tokenHeader: string;
    userHeader: string;
  },
  workspaceId: string,
  month?: string,
): Promise<UpstreamUsage> {
  const { upstreamCredentials } = deps.db.t;
  const row = await first(
    deps.db.orm
      .select({ tokenCiphertext: upstreamCredentials.tokenCiphertext })
      .from(upstreamCredentials)
      .where(eq(upstreamCredentials.workspaceId, workspaceId)),
  );
  if (!row)
    return {
      ok: false,
      message: 'No API credentials are linked to this workspace, so there are no upstream figures.',
    };
  const client = createUpstreamClient({
    searchUrl: deps.upstream.searchUrl,
    agentUrl: deps.upstream.agentUrl,
    tokenHeader: deps.tokenHeader,
    userHeader: deps.userHeader,
    timeoutMs: 10_000,
    maxRetries: 0,
    observe: metrics.observeUpstream,
  });
  try {
    const token = deps.secrets.open(row.tokenCiphertext, workspaceId);
    const record = await client.getUsage({ token, userId: '' }, month);
    return { ok: true, record: record as Record<string, unknown> };
  } catch (error) {
    const status = error instanceof UpstreamError && error.status !== null ? ` (HTTP ${error.status})` : '';
    return {
      ok: false,
      message: `The API's usage figures could not be fetched just now${status}. Try again later.`,
    };
  }
}
