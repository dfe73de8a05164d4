import {
  type GetPromptResult,
  type ListPromptsResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { Reach } from '../tools/index.js';
import { PROMPTS } from './definitions.js';

/** Longest argument value a prompt takes (they are sentences and handles, not documents). */
const MAX_ARGUMENT_CHARS = 500;

/**
 * prompts/list and prompts/get, built once: the list a connection sees (prompts whose tools it may
 * call: its scopes and chosen toolsets) is computed once per reach; a get checks the arguments and
 * renders the text.
 */
export class PromptCatalog {
  private readonly lists = new Map<string, ListPromptsResult>();

  listFor(reach: Reach): ListPromptsResult {
    let answer = this.lists.get(reach.key);
    if (!answer) {
      answer = {
        prompts: PROMPTS.filter((p) => p.tools.every((t) => reach.has(t))).map((p) => ({
          name: p.name,
          title: p.title,
          description: p.description,
          arguments: p.arguments.map(({ name, description, required }) => ({ name, description, required })),
        })),
      };
      this.lists.set(reach.key, answer);
    }
    return answer;
  }

  get(
    name: string,
    raw: Record<string, string> | undefined,
    reach: Reach,
    today = new Date(),
  ): GetPromptResult {
    const prompt = PROMPTS.find((p) => p.name === name && p.tools.every((t) => reach.has(t)));
    if (!prompt)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt named ${name.slice(0, 60)}.`);
    const args: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw ?? {})) {
      const def = prompt.arguments.find((a) => a.name === key);
      if (!def)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `${name} takes no argument ${key.slice(0, 40)}.`,
        );
      const text = String(value).trim();
      if (text.length > MAX_ARGUMENT_CHARS)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `${key} must be at most ${MAX_ARGUMENT_CHARS} characters.`,
        );
      if (def.values && text && !def.values.includes(text.toLowerCase()))
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `${key} must be one of ${def.values.join(', ')}.`,
        );
      const problem = text && def.check ? def.check(text) : null;
      if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, problem);
      if (text) args[key] = text;
    }
    const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
    if (missing.length)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${name} needs ${missing.join(' and ')}.`);
    return {
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: prompt.render(args, today) } }],
    };
  }

  /** Fixed values of a prompt argument, for completion/complete. */
  values(prompt: string, argument: string): readonly string[] {
    return PROMPTS.find((p) => p.name === prompt)?.arguments.find((a) => a.name === argument)?.values ?? [];
  }
}
