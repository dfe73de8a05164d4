import { iso } from './clock.js';
import { WEBHOOK_TIMEOUT_MS } from './constants.js';
import { expertDetails, searchDetails } from './state/search-views.js';
import { stageOf, webhookDue } from './state/searches.js';
import type { Store } from './state/store.js';
import type { ExpertRecord, SearchRecord, WebhookDelivery } from './state/types.js';

/**
 * Sends the completed search's GET payload to the credential's return_url: one attempt,
 * JSON, 10 s timeout (assumed). Every attempt is recorded, success or not.
 */
export function settleWebhooks(store: Store, inflight: Set<Promise<void>>): void {
  const now = store.now();
  for (const rec of store.pendingWebhooks) {
    if (stageOf(rec, now).status === 'failed') {
      store.pendingWebhooks.delete(rec);
      continue;
    }
    if (!webhookDue(rec, now)) continue;
    store.pendingWebhooks.delete(rec);
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
      payload:
        'kind' in rec ? searchDetails(rec as SearchRecord, now) : expertDetails(rec as ExpertRecord, now),
    };
    store.deliveries.push(delivery);
    const started = Date.now();
    const p = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(delivery.payload),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    })
      .then(async (res) => {
        delivery.status = res.status;
        await res.body?.cancel();
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
