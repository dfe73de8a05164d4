import { ALL_TOOLS } from '../tools/index.js';
import type { ViewName } from '../tools/types.js';

/**
 * The MCP Apps views (SEP-1865, extension `io.modelcontextprotocol/ui`): one self-contained HTML file
 * each, built from src/views/ by `npm run build` (scripts/build-views.ts), served as a `ui://`
 * resource and linked from the tools whose results it draws. The view reads the tool result the host
 * hands it (structuredContent) and may call the read tools through the host; it needs no network.
 */
export interface ViewDef {
  /** The built file is `<views dir>/<name>.html`. */
  name: ViewName;
  uri: string;
  title: string;
  description: string;
  /** The tools whose results this view draws: those whose definition names this view. */
  tools: readonly string[];
}

const drawnBy = (view: ViewName): readonly string[] =>
  ALL_TOOLS.filter((t) => t.view === view).map((t) => t.name);

export const VIEWS: readonly ViewDef[] = [
  {
    name: 'search',
    uri: 'ui://social-intel/search.html',
    title: 'Search at a glance',
    description:
      'A keyword or user search: sentiment and emotions by platform, posts per day with breakout moments, the top posts.',
    tools: drawnBy('search'),
  },
  {
    name: 'topic-tree',
    uri: 'ui://social-intel/topic-tree.html',
    title: 'Topic tree',
    description: "A keyword search's topic trees, one per platform, as collapsible branches.",
    tools: drawnBy('topic-tree'),
  },
  {
    name: 'agent-run',
    uri: 'ui://social-intel/agent-run.html',
    title: 'Agent report',
    description: "An agent run's report, rendered, with its confidence and signals.",
    tools: drawnBy('agent-run'),
  },
];
