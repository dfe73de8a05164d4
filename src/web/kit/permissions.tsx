import { SCOPE_DESCRIPTIONS, type Scope } from '../../oauth/scopes.js';

/**
 * Permissions in plain words (the consent page's descriptions), never raw scope codes. `blocked` are
 * granted but outside the member's ceiling in that workspace: listed apart, so nobody reads them as
 * usable.
 */
export function PermissionList({
  allowed,
  blocked = [],
}: {
  allowed: readonly Scope[];
  blocked?: readonly Scope[];
}) {
  return (
    <>
      {allowed.length ? (
        <ul class="plain">
          {allowed.map((scope) => (
            <li>{SCOPE_DESCRIPTIONS[scope]}</li>
          ))}
        </ul>
      ) : (
        <p class="muted">Nothing: every permission it was given is outside what your team allows you.</p>
      )}
      {blocked.length ? (
        <>
          <p class="muted">Given to it, but your team's settings for you do not allow:</p>
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
