/** The longest upstream explanation passed on: enough for a sentence, too short to carry a payload. */
export const DETAIL_MAX_LENGTH = 300;

/** Values shorter than this carry no secret, and removing them would mangle ordinary words. */
const SHORTEST_SECRET = 4;

/**
 * `text` with every credential the request carried removed, in each form an upstream may echo it:
 * raw, URL-encoded (either case of hex, `+` for spaces), JSON-escaped, and base64 or base64url at any
 * byte alignment (a header echoed inside a larger encoded blob, e.g. `Basic base64(user:token)`).
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < SHORTEST_SECRET) continue;
    for (const form of formsOf(secret)) {
      if (form.length < SHORTEST_SECRET) continue;
      out = replaceAllCaseSensitive(out, form);
    }
  }
  return out;
}

/** Scrubbed, whitespace flattened, cut to DETAIL_MAX_LENGTH; null stays null. */
export function scrubbedDetail(detail: string | null, secrets: readonly string[]): string | null {
  if (detail === null) return null;
  const flat = scrubSecrets(detail, secrets).replace(/\s+/g, ' ').trim();
  return flat.length > DETAIL_MAX_LENGTH ? `${flat.slice(0, DETAIL_MAX_LENGTH - 1)}…` : flat;
}

function formsOf(secret: string): string[] {
  const url = encodeURIComponent(secret);
  const forms = new Set([
    secret,
    url,
    url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    url.replace(/%20/g, '+'),
    JSON.stringify(secret).slice(1, -1),
    ...base64Forms(Buffer.from(secret, 'utf8')),
  ]);
  // Longest first: a shorter form inside a longer one must not break the longer one's match.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** The base64 characters that depend only on the secret's bytes, at each of the three alignments. */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const encoded = Buffer.concat([Buffer.alloc(lead), bytes]).toString('base64');
    const start = Math.ceil((lead * 8) / 6);
    const end = Math.floor(((lead + bytes.length) * 8) / 6);
    const inner = encoded.slice(start, end);
    forms.push(inner, inner.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

function replaceAllCaseSensitive(text: string, form: string): string {
  return text.split(form).join('[redacted]');
}
