import { makeAuthor } from './authors.js';
import { EXPERT_TITLES, LANGS } from './pools.js';
import { queryWords } from './posts.js';
import { Rng } from './prng.js';
import type { JsonObject } from './shapes.js';

export function expertResults(query: string): JsonObject[] {
  const rng = new Rng(`expert|${query.trim().toLowerCase()}`);
  const words = queryWords(query).slice(0, 3);
  const count = rng.int(3, 6);
  const out: JsonObject[] = [];
  for (let i = 0; i < count; i++) {
    const a = makeAuthor(rng);
    out.push({
      expert_name: a.displayName,
      expert_username: a.username,
      location: `${a.location}, ${a.countryName}`,
      expert_url: `https://example.org/experts/${a.username}`,
      languages: [...new Set(['en', rng.pick(LANGS)])],
      email: `${a.username}@example.org`,
      phone_number: `+1-555-01${rng.digits(2)}`,
      professional_title: rng.pick(EXPERT_TITLES),
      expertise_keywords: [...words, rng.pick(['policy', 'research', 'media', 'data'])],
      summary: `${a.displayName} has written and spoken about ${words.join(' ')} and is frequently cited on the topic.`,
    });
  }
  return out;
}
