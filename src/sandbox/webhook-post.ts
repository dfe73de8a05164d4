import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress } from './public-address.js';

/** One webhook POST: the answer's status, or a thrown error saying why nothing was sent. */
export type WebhookPost = (url: string, body: string, signal: AbortSignal) => Promise<number>;

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The emulator's webhook sender. A return_url is anyone's text, so by default a webhook goes only to a
 * public address: the host's every DNS answer must be public, and the socket connects to the address
 * checked (a DNS answer that changes in between cannot slip through). A redirect is not followed: its
 * status is the delivery's answer. `privateTargets` (the emulator's own tests, whose receivers listen
 * on loopback) lifts the address rule, never the redirect one.
 */
export function webhookPoster(options: { privateTargets: boolean }): WebhookPost {
  const allowed = (address: string) => options.privateTargets || isPublicAddress(address);
  const lookup = (hostname: string, opts: { all?: boolean }, callback: LookupCallback) => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (addresses.length === 0 || !addresses.every((a) => allowed(a.address))) {
        return callback(notPublic(hostname), []);
      }
      // Node asks for every answer when it tries address families in turn (autoSelectFamily).
      if (opts.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
  return (url, body, signal) =>
    new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        return reject(new Error('a webhook goes only to http and https URLs'));
      }
      // An address literal is connected to without a lookup: judged here instead.
      const host = target.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !allowed(host)) return reject(notPublic(host));
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(
        target,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          lookup: lookup as never,
          signal,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

function notPublic(host: string): Error {
  return new Error(`${host} is not a public address: webhooks go only to public addresses`);
}
