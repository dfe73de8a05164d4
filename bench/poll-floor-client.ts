/**
 * `node --import tsx bench/poll-floor-client.ts <url> <headers JSON> <polls>`: the floor of one upstream
 * poll (bench/figures/poll-floor.ts): GETs `url` `polls` times, 16 at once, through an undici pool
 * sized as the gateway's (src/upstream/transport.ts), parsing each body as JSON and nothing else.
 * Prints one JSON line: this process's CPU per poll (user + system, µs) and the body's size.
 */
import { Agent, request } from 'undici';
import { UPSTREAM_CONNECTIONS_PER_ORIGIN } from '../src/upstream/transport.js';

const [url = '', headersJson = '{}', pollsArg = '3000'] = process.argv.slice(2);
const headers = JSON.parse(headersJson) as Record<string, string>;
const polls = Number(pollsArg);
const pool = new Agent({ connections: UPSTREAM_CONNECTIONS_PER_ORIGIN });
let bytes = 0;

async function poll(): Promise<void> {
  const res = await request(url, { dispatcher: pool, headers });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  bytes = text.length;
  JSON.parse(text);
}

async function run(count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < count) await poll();
    }),
  );
}

// The first polls warm the JIT and open the connections; only the rest are counted.
await run(Math.min(500, polls));
const cpu0 = process.cpuUsage();
await run(polls);
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${JSON.stringify({ cpuUsPerPoll: (cpu.user + cpu.system) / polls, bytes })}\n`);
await pool.close();
