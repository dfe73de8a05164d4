import { ACCOUNT_TYPES, FIRST_NAMES, HANDLE_FIRST, HANDLE_SECOND, LAST_NAMES, LOCATIONS } from './pools.js';
import type { Rng } from './prng.js';

export interface Author {
  username: string;
  displayName: string;
  userId: string;
  description: string;
  location: string;
  countryCode: string;
  countryName: string;
  createdMs: number;
  followers: number;
  following: number;
  statuses: number;
  favourites: number;
  media: number;
  accountType: (typeof ACCOUNT_TYPES)[number];
  accountTypeReason: string;
  profileImage: string;
}

export function makeHandle(rng: Rng): string {
  return `${rng.pick(HANDLE_FIRST)}_${rng.pick(HANDLE_SECOND)}${rng.int(10, 999)}`;
}

export function makeAuthor(rng: Rng, username?: string): Author {
  const handle = username ?? makeHandle(rng);
  const place = rng.pick(LOCATIONS);
  const accountType = rng.chance(0.8) ? ACCOUNT_TYPES[0] : ACCOUNT_TYPES[1];
  const displayName =
    accountType === 'Individual'
      ? `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`
      : `${rng.pick(LAST_NAMES)} ${rng.pick(['Collective', 'Gazette', 'Institute', 'Network'])}`;
  return {
    username: handle,
    displayName,
    userId: rng.digits(12),
    description:
      accountType === 'Individual'
        ? `Writes about everyday things from ${place.loc}. Views my own.`
        : `Community news and updates from ${place.loc}.`,
    location: place.loc,
    countryCode: place.code,
    countryName: place.name,
    createdMs: Date.UTC(rng.int(2009, 2025), rng.int(0, 11), rng.int(1, 28), rng.int(0, 23), rng.int(0, 59)),
    followers: 20 + rng.skewed(250_000),
    following: 10 + rng.int(0, 3_000),
    statuses: 50 + rng.skewed(80_000),
    favourites: rng.skewed(120_000),
    media: rng.skewed(5_000),
    accountType,
    accountTypeReason:
      accountType === 'Individual'
        ? 'Personal name and first-person posting style.'
        : 'Name and description describe an organisation.',
    profileImage: `https://example.net/avatars/${handle}.png`,
  };
}
