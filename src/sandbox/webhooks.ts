import { iso } from './clock.js';
import { WEBHOOK_TIMEOUT_MS } from './constants.js';
import { expertDetails, searchDetails } from './state/search-views.js';
import type { Store } from './state/store.js';
import type { ExpertRecord, SearchRecord, WebhookDelivery } from './state/types.js';
import type { JsonObject } from './synthetic/shapes.js';
import type { WebhookPost } from './webhook-post.js';

/** The body POSTed: the search's GET payload at the instant of the attempt. */
function payloadOf(rec: SearchRecord | ExpertRecord, at: number): JsonObject {
  return 'kind' in rec ? searchDetails(rec, at) : expertDetails(rec, at);
}

/**
 * A recorded delivery as GET /__sandbox/webhooks shows it. The payload is rebuilt from the search and
 * the attempt's instant (both fixed, so it is the body that was sent) rather than kept: a kept payload
 * holds a search's data (tens of KB) for as long as the delivery is remembered.
 */
export function deliveryView(d: WebhookDelivery): JsonObject {
  return {
    id: d.id,
    token: d.token,
    kind: d.kind,
    search_id: d.search_id,
    url: d.url,
    attempted_at: d.attempted_at,
    status: d.status,
    error: d.error,
    duration_ms: d.duration_ms,
    payload: payloadOf(d.search, d.attemptedAtMs),
  };
}

/**
 * Sends the completed search's GET payload to the credential's return_url: one attempt,
 * JSON, 10 s timeout (assumed), by `post` (webhook-post.ts: public addresses only, no redirect). Every attempt is recorded, success or not. The return_url is the one
 * set when the search finishes: a search that finished while none was set sends nothing, even if one
 * is set later. Failed searches send nothing.
 */
export function settleWebhooks(store: Store, inflight: Set<Promise<void>>, post: WebhookPost): void {
  const now = store.now();
  for (const [rec, dueAt] of store.pendingWebhooks) {
    if (now < dueAt) continue;
    store.pendingWebhooks.delete(rec);
    if (rec.plan.fail) continue;
    rec.webhookSent = true;
    const url = store.credentials.get(rec.token)?.returnUrl ?? null;
    if (url === null) continue;
    const delivery: WebhookDelivery = {
      id: store.deliveryId(),
      token: rec.token,
      kind: 'kind' in rec ? rec.kind : 'expert',
      search_id: rec.id,
      url,
      attempted_at: iso(now),
      status: null,
      error: null,
      duration_ms: null,
      search: rec,
      attemptedAtMs: now,
    };
    store.recordDelivery(delivery);
    const started = Date.now();
    const p = post(url, JSON.stringify(payloadOf(rec, now)), AbortSignal.timeout(WEBHOOK_TIMEOUT_MS))
      .then((status) => {
        delivery.status = status;
      })
      .catch((err: unknown) => {
        delivery.error = err instanceof Error ? err.message : String(err);
      })
      .finally(() => {
        delivery.duration_ms = Date.now() - started;
        inflight.delete(p);
      });
    inflight.add(p);
  }
}
