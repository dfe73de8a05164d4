/**
 * Token endpoint: refresh_token grants per second. Every connection runs its own rotation chain:
 * it starts from a pre-minted refresh token and sends each next request with the refresh token the
 * previous response returned, as a real client does. (autocannon resets a request's context after
 * each loop over its request list, so the chain lives in a closure made per connection.)
 */
import { cpuPerRequest } from '../lib/cpu.js';
import { load } from '../lib/load.js';

export const TOKEN_CONNECTIONS = 16;

export async function tokenRound(
  gatewayUrl: string,
  clientId: string,
  pool: string[],
  seconds: number,
  gatewayPid: number,
  connections = TOKEN_CONNECTIONS,
) {
  const result = await cpuPerRequest(gatewayPid, () =>
    load({
      url: `${gatewayUrl}/token`,
      connections,
      duration: seconds,
      setupClient: (client) => {
        const chain = { refresh: pool.pop() };
        if (!chain.refresh) throw new Error('the refresh token pool is empty');
        client.setRequests([
          {
            method: 'POST',
            path: '/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            setupRequest: (req) => ({
              ...req,
              body: new URLSearchParams({
                grant_type: 'refresh_token',
                refresh_token: chain.refresh as string,
                client_id: clientId,
              }).toString(),
            }),
            onResponse: (status, body) => {
              if (status === 200)
                chain.refresh = (JSON.parse(body) as { refresh_token: string }).refresh_token;
            },
          },
        ]);
      },
    }),
  );
  return {
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    cpuUs: result.cpuUsPerRequest,
    requests: result.requests,
  };
}
