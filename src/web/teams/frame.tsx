import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { WorkspaceRole } from '../../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { Layout } from '../layout.js';

export const ROLE_NAMES: Record<WorkspaceRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** The workspace a team page is about, and the viewer's role in it. */
export interface TeamNav {
  id: string;
  name: string;
  kind: 'personal' | 'team';
  role: WorkspaceRole;
}

/** `/workspaces/<id>` followed by `rest` (which starts with '/', or is empty). */
export function teamPath(ws: { id: string }, rest = ''): string {
  return `/workspaces/${encodeURIComponent(ws.id)}${rest}`;
}

/** Every team page's frame: the site layout, signed in, with the scripts its page uses. */
export function Frame(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  title: string;
  copyButtons?: boolean;
  localTimes?: boolean;
  children?: Child;
}) {
  return (
    <Layout
      title={props.title}
      signedInAs={props.user.email}
      csrfToken={props.c.get('csrfToken')}
      copyButtons={props.copyButtons ?? false}
      localTimes={props.localTimes ?? false}
    >
      {props.children}
    </Layout>
  );
}

type Section = 'team' | 'apps' | 'audit' | 'usage';

/** Links between a workspace's pages (admin pages only for admins); the current one is marked. */
export function WorkspaceNav({ ws, current }: { ws: TeamNav; current?: Section }) {
  const admin = ws.role !== 'member';
  const link = (section: Section, href: string, text: string) => (
    <a href={href} aria-current={current === section ? 'page' : undefined}>
      {text}
    </a>
  );
  return (
    <nav aria-label="Workspace" class="subnav">
      {link('team', teamPath(ws), ws.kind === 'team' ? 'Team' : 'Workspace')}
      <a href={`/account/credentials?workspace=${encodeURIComponent(ws.id)}`}>API credentials</a>
      {admin ? link('apps', teamPath(ws, '/apps'), 'Connected apps') : null}
      {admin ? link('audit', teamPath(ws, '/audit'), 'Audit trail') : null}
      {admin ? link('usage', teamPath(ws, '/usage'), 'Usage') : null}
    </nav>
  );
}

/** The heading block of a workspace page: its title, what it is, and the workspace's links. */
export function TeamHeader(props: { ws: TeamNav; title: Child; current: Section; subtitle?: Child }) {
  return (
    <>
      <h1 class="token">{props.title}</h1>
      <p class="muted">
        {props.subtitle ??
          `${props.ws.kind === 'team' ? 'Team workspace' : 'Personal workspace'} · your role: ${ROLE_NAMES[props.ws.role]}`}
      </p>
      <WorkspaceNav ws={props.ws} current={props.current} />
    </>
  );
}

export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
