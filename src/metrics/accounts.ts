import { Counter } from 'prom-client';
import { registry } from './registry.js';

export const signInFailures = new Counter({
  name: 'sign_in_failures_total',
  help: 'Failed browser sign-ins, by reason (invalid: wrong email or password; throttled: rate limited).',
  labelNames: ['reason'] as const,
  registers: [registry],
});
