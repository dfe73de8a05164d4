import { Counter } from 'prom-client';
import { registry } from './registry.js';

export const signInFailures = new Counter({
  name: 'sign_in_failures_total',
  help: 'Failed browser sign-ins, by reason (invalid: wrong email or password; throttled: rate limited).',
  labelNames: ['reason'] as const,
  registers: [registry],
});

/** Counts the account events that are sign-in failures; called for every account event. */
export function countAccountEvent(kind: string): void {
  if (kind === 'sign_in_failed') signInFailures.labels('invalid').inc();
  else if (kind === 'sign_in_throttled') signInFailures.labels('throttled').inc();
}
