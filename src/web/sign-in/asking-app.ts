import { eq } from 'drizzle-orm';
import { first, type Store } from '../../db/store/index.js';

/** The app an authorization request names, as the sign-in page shows it. */
export interface AskingApp {
  name: string;
  /** For an app identified by a metadata document (CIMD): the https host that vouches for it. */
  verifiedHost: string | null;
}

/**
 * When sign-in interrupts an authorization (`next` is `/authorize?client_id=…`), the app asking to
 * connect. Read from the database only: /authorize registered or fetched the client before sending
 * the browser here, and a sign-in page must never fetch a URL someone put in a link. The request is
 * validated again, from scratch, when the browser returns to /authorize.
 */
export async function askingApp(db: Store, next: string | null): Promise<AskingApp | null> {
  if (!next) return null;
  const url = new URL(next, 'http://next.invalid');
  if (url.pathname !== '/authorize') return null;
  const clientId = url.searchParams.get('client_id');
  if (!clientId || clientId.length > 2000) return null;
  const { oauthClients } = db.t;
  const row = await first(
    db.orm
      .select({ kind: oauthClients.kind, name: oauthClients.clientName })
      .from(oauthClients)
      .where(eq(oauthClients.id, clientId))
      .limit(1),
  );
  if (!row) return null;
  const verifiedHost = row.kind === 'cimd' ? new URL(clientId).host : null;
  return { name: row.name ?? verifiedHost ?? 'An unnamed app', verifiedHost };
}
