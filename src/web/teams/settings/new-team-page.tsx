import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import { TEAM_NAME_MAX_LENGTH } from '../../../teams/teams.js';
import { csrfField } from '../../csrf.js';
import { Field } from '../../kit/fields.js';
import { Frame } from '../frame.js';

export function NewTeamPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  name?: string;
  error?: string | undefined;
}) {
  return (
    <Frame c={props.c} user={props.user} title="Create a team">
      <h1>Create a team</h1>
      <p class="lead">
        A team shares one set of API credentials. Each member connects their own AI clients and acts as their
        own user, so usage is attributed per member.
      </p>
      <form method="post" action="/workspaces" class="stack" novalidate>
        {csrfField(props.c)}
        <Field
          id="name"
          name="name"
          label="Team name"
          value={props.name ?? ''}
          maxLength={TEAM_NAME_MAX_LENGTH}
          error={props.error}
          autofocus
        />
        <div class="actions">
          <button type="submit">Create team</button>
        </div>
      </form>
      <p class="muted">
        Next, you link the team's API credentials, invite people and connect your AI client.
      </p>
      <p>
        <a href="/account">Back to your account</a>
      </p>
    </Frame>
  );
}
