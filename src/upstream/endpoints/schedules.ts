import * as s from '../schemas.js';
import type { CallOptions, Query, UpstreamCredentials, UpstreamTransport } from '../transport.js';
import { enc } from './path.js';

/** Agent-run schedules on the agent host. */
export function scheduleEndpoints(t: UpstreamTransport) {
  return {
    createSchedule(creds: UpstreamCredentials, body: Record<string, unknown>, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'POST', path: '/api/v1/schedules', body },
        s.scheduleRecord,
        o,
      );
    },
    listSchedules(creds: UpstreamCredentials, query: Query, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'GET', path: '/api/v1/schedules', query },
        s.scheduleList,
        o,
      );
    },
    getSchedule(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'GET', path: `/api/v1/schedules/${enc(id)}` },
        s.scheduleRecord,
        o,
      );
    },
    updateSchedule(creds: UpstreamCredentials, id: string, body: Record<string, unknown>, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'PATCH', path: `/api/v1/schedules/${enc(id)}`, body },
        s.scheduleRecord,
        o,
      );
    },
    pauseSchedule(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'POST', path: `/api/v1/schedules/${enc(id)}/pause` },
        s.scheduleRecord,
        o,
      );
    },
    resumeSchedule(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'POST', path: `/api/v1/schedules/${enc(id)}/resume` },
        s.scheduleRecord,
        o,
      );
    },
    deleteSchedule(creds: UpstreamCredentials, id: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'DELETE', path: `/api/v1/schedules/${enc(id)}` },
        s.anyObject,
        o,
      );
    },
    listScheduleRuns(creds: UpstreamCredentials, id: string, query: Query, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'agent', method: 'GET', path: `/api/v1/schedules/${enc(id)}/runs`, query },
        s.scheduleRunList,
        o,
      );
    },
  };
}
