import * as s from '../schemas.js';
import type { CallOptions, Query, UpstreamCredentials, UpstreamTransport } from '../transport.js';
import { enc } from './path.js';

/** Agent runs on the agent host. */
export function runEndpoints(t: UpstreamTransport) {
  return {
    createRun(creds: UpstreamCredentials, body: Record<string, unknown>, o?: CallOptions) {
      return t.call(creds, { host: 'agent', method: 'POST', path: '/api/v1/runs', body }, s.runRecord, o);
    },
    listRuns(creds: UpstreamCredentials, query: Query, o?: CallOptions) {
      return t.call(creds, { host: 'agent', method: 'GET', path: '/api/v1/runs', query }, s.runList, o);
    },
    getRun(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(creds, { host: 'agent', method: 'GET', path: `/api/v1/runs/${enc(id)}` }, s.runRecord, o);
    },
    updateRun(creds: UpstreamCredentials, id: string, body: Record<string, unknown>, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'PATCH', path: `/api/v1/runs/${enc(id)}`, body },
        s.anyObject,
        o,
      );
    },
    cancelRun(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'POST', path: `/api/v1/runs/${enc(id)}/cancel` },
        s.anyObject,
        o,
      );
    },
    rerunRun(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'POST', path: `/api/v1/runs/${enc(id)}/rerun` },
        s.anyObject,
        o,
      );
    },
    deleteRun(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'DELETE', path: `/api/v1/runs/${enc(id)}` },
        s.anyObject,
        o,
      );
    },
  };
}
