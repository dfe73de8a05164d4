import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Json } from '../helpers/harness.js';

/** What a host that renders MCP Apps declares (SEP-1865 "Client (Host) Capabilities"). */
export const UI_CAPABILITIES = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } },
};

/** A client of either era, with or without the MCP Apps declaration. */
export interface AppsClient {
  listTools(): Promise<{ tools: Json[] }>;
  listResources(): Promise<{ resources: Json[] }>;
  readResource(params: { uri: string }): Promise<Json>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Json>;
  getServerCapabilities(): Json;
  close(): Promise<void>;
}

export type Era = 'v2' | 'v1';

export async function connectClient(
  era: Era,
  url: string,
  accessToken: string,
  declareViews: boolean,
): Promise<AppsClient> {
  const headers = { authorization: `Bearer ${accessToken}` };
  const capabilities = declareViews ? UI_CAPABILITIES : {};
  if (era === 'v2') {
    const client = new ClientV2(
      { name: 'apps-v2', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
    return client as unknown as AppsClient;
  }
  const client = new ClientV1({ name: 'apps-v1', version: '1.0.0' }, { capabilities });
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
  return client as unknown as AppsClient;
}
