import type { Store } from '../../db/store/index.js';
import { type ItemKind, producedRunIds, recordedOwners, scheduleOwner, statedOwner } from '../ownership.js';
import type { PolicyCall } from './rule.js';

/** The upstream user id a schedule was created under, or null when nothing says. */
async function ownerOfSchedule(db: Store, call: PolicyCall, id: string): Promise<string | null> {
  const { upstream, creds, signal, caller } = call;
  const schedule = await upstream.getSchedule(creds, id, { signal });
  const recorded = (await recordedOwners(db, caller.workspaceId, 'schedule', [schedule.id])).get(schedule.id);
  const known = scheduleOwner(schedule, recorded);
  if (known !== undefined) return known;
  const [newest] = producedRunIds(schedule);
  return newest === undefined ? null : statedOwner(await upstream.getRun(creds, newest, { signal }));
}

/** The upstream user id an item belongs to: what upstream states, else what we recorded; null if neither. */
export async function ownerOf(
  db: Store,
  call: PolicyCall,
  kind: ItemKind,
  id: string,
): Promise<string | null> {
  if (kind === 'run') return statedOwner(await call.upstream.getRun(call.creds, id, { signal: call.signal }));
  if (kind === 'schedule') return ownerOfSchedule(db, call, id);
  return (await recordedOwners(db, call.caller.workspaceId, kind, [id])).get(id) ?? null;
}
