import { UpstreamError } from '../../upstream/errors.js';
import type { Caller } from '../auth/caller.js';
import { CreateOutcomeUnknown, StillCreating } from '../tools/long-work.js';
import type { ToolDef } from '../tools/types.js';

/** Where the caller's upstream token comes from, so a refusal of it says where to correct it. */
export interface CredentialSource {
  /** The token, named for the reader: "The upstream API token linked to this workspace". */
  token: string;
  /** What the user does about a rejected token, as an instruction without its full stop. */
  fix: string;
}

/**
 * A member's token is the workspace's linked one (fixed on the credentials page); an upstream user's
 * is the one their client sends in the token header, or the stdio server's UPSTREAM_TOKEN.
 */
export function credentialSource(
  caller: Caller | undefined,
  publicUrl: string,
  tokenHeader: string,
): CredentialSource {
  if (caller?.kind === 'upstream' && caller.via === 'headers')
    return {
      token: `The upstream API token this connection sends in ${tokenHeader}`,
      fix: "Ask the user to correct it in their MCP client's configuration of this server",
    };
  if (caller?.kind === 'upstream')
    return {
      token: 'The upstream API token in UPSTREAM_TOKEN',
      fix: 'Ask the user to correct UPSTREAM_TOKEN where their MCP client starts this server',
    };
  return {
    token: 'The upstream API token linked to this workspace',
    fix: `Ask the user to re-link their API token at ${publicUrl}/account/credentials`,
  };
}

/** Upstream's own words, quoted on one line (they may hold several sentences of their own). */
function quoted(detail: string | null): string {
  return detail ? `: "${detail.replace(/\s+/g, ' ').slice(0, 300)}"` : '';
}

/**
 * Turns a failure into at most three sentences a model can act on: what
 * happened, with the status, and what to do next. Never includes a credential; upstream's own
 * explanation is quoted where it helps. A 422 that names fields is an input error ("fix the argument"),
 * a 422 about the item's state stays a state error ("read it first").
 */
export function errorMessage(error: unknown, tool: ToolDef, credentials: CredentialSource): string {
  if (error instanceof StillCreating || error instanceof CreateOutcomeUnknown) return error.message;
  if (!(error instanceof UpstreamError)) {
    return `${tool.name} failed unexpectedly on this server. Try again; if it keeps failing, tell the user.`;
  }
  const detail = quoted(error.detail);
  switch (error.kind) {
    case 'unauthorized':
      return `${credentials.token} was rejected (401). ${credentials.fix}; retrying will not help until then.`;
    case 'payment_required': {
      const c = error.credits;
      const numbers =
        c && (c.required !== null || c.available !== null)
          ? `; it needs ${c.required ?? 'more'} credit(s) and the account has ${c.available ?? 'too few'} left`
          : '';
      return `Out of credits (402): nothing was started${numbers}. Ask the user to top up credits or wait for the credit period to reset.`;
    }
    case 'forbidden':
      return tool.forbiddenMeansProducer
        ? 'The API key in use lacks the producer permission that expert search requires (403). Ask the account holder to enable the producer permission on this key, or use a key that has it.'
        : `Upstream refused access (403)${detail}. The API key in use may lack a permission this needs.`;
    case 'not_found':
      return tool.notFound
        ? `No ${tool.notFound.what} with that id exists for this account (404). Call ${tool.notFound.listTool} to see valid ids.`
        : `Upstream found nothing at that address (404)${detail}.`;
    case 'unprocessable': {
      const fields = error.invalidFields;
      if (fields?.length) {
        const list = fields.map((f) => `${f.field} (${f.message.replace(/\.$/, '')})`).join(', ');
        const many = fields.length > 1;
        return `Invalid argument${many ? 's' : ''} ${list}: upstream refused ${many ? 'them' : 'it'} (422). Fix the argument${many ? 's' : ''} and call ${tool.name} again.`;
      }
      return `Upstream refused this in the item's current state (422)${detail || ': it may already be in a final state'}. Read the item first (its status says what is allowed) and do not retry unchanged.`;
    }
    case 'bad_request':
      return `Upstream rejected the arguments (400)${detail}. Correct them and call ${tool.name} again.`;
    case 'rate_limited': {
      const wait =
        error.retryAfterMs !== null ? `${Math.ceil(error.retryAfterMs / 1000)} seconds` : 'a minute';
      return `The upstream service is rate limiting requests (429). Wait ${wait}, then retry.`;
    }
    case 'server':
      return `The upstream service had an internal error (${error.status ?? '5xx'}); this is usually temporary. Retry in a minute.`;
    case 'timeout':
      return 'The upstream service did not answer in time. It may be busy; retry in a minute.';
    case 'unavailable': {
      const after = Math.max(1, Math.ceil((error.retryAfterMs ?? 10_000) / 1000));
      return `The upstream service is not answering (${error.detail ?? 'its last requests failed'}), so this server is not asking it for ${after} s and nothing was sent or lost; call ${tool.name} again with the same arguments in ${after} s.`;
    }
    case 'network':
      return `Could not reach the upstream service${quoted(error.detail) || ': connection failed'}. Retry in a minute.`;
    case 'malformed':
      return 'The upstream service sent a response this server could not read. Retry later; if it persists, tell the user.';
    case 'aborted':
      return `${tool.name} was cancelled.`;
    default:
      return `The upstream service answered with HTTP ${error.status ?? 'error'}${detail}. Retry later.`;
  }
}

/** The audit status of a failure: the upstream HTTP status when there was one, else `error`. */
export function auditStatus(error: unknown): string {
  if (error instanceof UpstreamError) {
    if (error.status !== null) return String(error.status);
    if (error.kind === 'aborted') return 'cancelled';
  }
  if (error instanceof StillCreating || error instanceof CreateOutcomeUnknown) return 'timeout';
  return 'error';
}
