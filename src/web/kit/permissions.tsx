import { SCOPE_DESCRIPTIONS, type Scope } from '../../oauth/scopes.js';

/**
 * Permissions in plain words (the consent page's descriptions), never raw scope codes. `blocked` are
 * granted but outside the member's ceiling in that workspace: listed apart, so nobody reads them as
 * usable. `whose` says whose settings block them: the reader's own, or the member's (admin view).
 */
export function PermissionList({
  allowed,
  blocked = [],
  whose = 'yours',
}: {
  allowed: readonly Scope[];
  blocked?: readonly Scope[];
  whose?: 'yours' | 'the member’s';
}) {
  const settings = whose === 'yours' ? 'your team’s settings for you' : 'the member’s team settings';
  return (
    <>
      {allowed.length ? (
        <ul class="plain">
          {allowed.map((scope) => (
            <li>{SCOPE_DESCRIPTIONS[scope]}</li>
          ))}
        </ul>
      ) : (
        <p class="muted">Nothing: every permission it was given is outside what {settings} allow.</p>
      )}
      {blocked.length ? (
        <>
          <p class="muted">Given to it, but {settings} do not allow:</p>
          <ul class="plain">
            {blocked.map((scope) => (
              <li class="perm-off">{SCOPE_DESCRIPTIONS[scope]}</li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
