import { getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/caller.js';
import type { ViewCatalog } from './catalog.js';

/** Where a 2026-07-28 request carries its client's capabilities (the per-request `_meta` envelope). */
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * The client declared MCP Apps with our content type (SEP-1865 "Client<>Server Capability
 * Negotiation": `capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes`).
 */
export function declaresViews(capabilities: unknown): boolean {
  if (!capabilities || typeof capabilities !== 'object') return false;
  const ui = getUiCapability(capabilities as ClientCapabilities) as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(RESOURCE_MIME_TYPE);
}

type Message = { method?: unknown; params?: { capabilities?: unknown; _meta?: Record<string, unknown> } };

/** How a request tells whether its client renders views. */
export type ViewsDeclaration =
  /** A 2026-07-28 request: its own envelope says, for this request only. */
  | { kind: 'request'; declared: boolean }
  /** A 2025-era initialize: says it for the connection that follows. */
  | { kind: 'initialize'; declared: boolean }
  /** A 2025-era request after initialize: whatever that initialize said. */
  | { kind: 'connection' };

export function viewsDeclaration(body: unknown): ViewsDeclaration {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { kind: 'connection' };
  const message = body as Message;
  const envelope = message.params?._meta;
  if (envelope && typeof envelope === 'object' && CLIENT_CAPABILITIES_META_KEY in envelope)
    return { kind: 'request', declared: declaresViews(envelope[CLIENT_CAPABILITIES_META_KEY]) };
  if (message.method === 'initialize')
    return { kind: 'initialize', declared: declaresViews(message.params?.capabilities) };
  return { kind: 'connection' };
}

/**
 * What each grant's client said at its last 2025-era `initialize`. That protocol era declares
 * capabilities once per connection, and this server keeps no sessions (each POST is served by a fresh
 * server), so the declaration is remembered here per grant (one app of one person in one workspace),
 * bounded, least recently used dropped first. Forgetting it (a restart, another instance, eviction)
 * only means text results without views until the client connects again, which is the safe default.
 */
export class LegacyDeclarations {
  private readonly byGrant = new Map<string, boolean>();

  constructor(private readonly maxEntries = 10_000) {}

  remember(grantId: string, declared: boolean): void {
    this.byGrant.delete(grantId);
    if (!declared) return;
    if (this.byGrant.size >= this.maxEntries) {
      const oldest = this.byGrant.keys().next().value;
      if (oldest !== undefined) this.byGrant.delete(oldest);
    }
    this.byGrant.set(grantId, true);
  }

  declared(grantId: string): boolean {
    if (!this.byGrant.has(grantId)) return false;
    // Refresh its place: the most recently used stays longest.
    this.byGrant.delete(grantId);
    this.byGrant.set(grantId, true);
    return true;
  }

  get size(): number {
    return this.byGrant.size;
  }
}

/**
 * Whether a request's client renders MCP Apps views: its own 2026-07-28 envelope says so, or (2025 era)
 * what its grant's client said at its last initialize.
 */
export class ViewNegotiation {
  private readonly legacy = new LegacyDeclarations();

  constructor(private readonly views: ViewCatalog) {}

  declared(body: unknown, caller: Caller | undefined): boolean {
    if (!this.views.available) return false;
    const declaration = viewsDeclaration(body);
    if (declaration.kind === 'request') return declaration.declared;
    if (!caller) return false;
    if (declaration.kind === 'initialize') {
      this.legacy.remember(caller.connectionKey, declaration.declared);
      return declaration.declared;
    }
    return this.legacy.declared(caller.connectionKey);
  }
}
