/**
 * Fixed pools for synthetic data. Handles are built from two fictional word parts plus digits so they
 * are never a real person's handle; every URL is on example.com/.org/.net.
 */
export const HANDLE_FIRST = [
  'amber',
  'brisk',
  'cobalt',
  'dapper',
  'ember',
  'fable',
  'gentle',
  'hazel',
  'indigo',
  'jolly',
  'kindle',
  'lunar',
  'mossy',
  'nimble',
  'opal',
  'pebble',
  'quartz',
  'rustic',
  'sable',
  'tidal',
  'umber',
  'velvet',
  'willow',
  'zesty',
] as const;
export const HANDLE_SECOND = [
  'otter',
  'heron',
  'lantern',
  'meadow',
  'comet',
  'badger',
  'harbor',
  'thistle',
  'falcon',
  'orchard',
  'pixel',
  'quill',
  'raven',
  'sparrow',
  'tundra',
  'walrus',
  'yarrow',
  'kestrel',
  'marmot',
  'puffin',
] as const;
export const FIRST_NAMES = [
  'Avery',
  'Briar',
  'Caden',
  'Delphine',
  'Ezra',
  'Fennel',
  'Greer',
  'Holloway',
  'Ines',
  'Juno',
  'Kit',
  'Linnea',
  'Marlow',
  'Nico',
  'Orla',
  'Pim',
  'Quinlan',
  'Rook',
  'Sunniva',
  'Tamsin',
] as const;
export const LAST_NAMES = [
  'Ashdown',
  'Bramblewood',
  'Coldharbour',
  'Dunmere',
  'Everhart',
  'Fairweather',
  'Greystock',
  'Hollins',
  'Ivesworth',
  'Juniper',
  'Kettleby',
  'Larkspur',
  'Mossgrove',
  'Northcott',
  'Oakhanger',
] as const;
export const HASHTAGS = [
  'trending',
  'breaking',
  'community',
  'analysis',
  'opinion',
  'update',
  'debate',
  'explainer',
  'localnews',
  'thread',
  'factcheck',
  'weekend',
  'insights',
  'discussion',
] as const;
export const URL_DOMAINS = ['example.com', 'example.org', 'example.net'] as const;
export const URL_PATHS = ['news', 'blog', 'report', 'story', 'article', 'analysis', 'post'] as const;
export const LOCATIONS = [
  { loc: 'Northbridge', code: 'US', name: 'United States' },
  { loc: 'Eastmarsh', code: 'GB', name: 'United Kingdom' },
  { loc: 'Lake Verity', code: 'CA', name: 'Canada' },
  { loc: 'Port Ellery', code: 'AU', name: 'Australia' },
  { loc: 'Brunnfeld', code: 'DE', name: 'Germany' },
  { loc: 'Valmont', code: 'FR', name: 'France' },
  { loc: 'Costa Serena', code: 'ES', name: 'Spain' },
  { loc: 'Riverside Heights', code: 'IN', name: 'India' },
] as const;
export const LANGS = ['en', 'es', 'fr', 'de', 'pt'] as const;
export const ACCOUNT_TYPES = ['Individual', 'Organization'] as const;
export const POST_SENTIMENTS = ['positive', 'negative', 'neutral', 'irrelevant'] as const;
export type PostSentiment = (typeof POST_SENTIMENTS)[number];
export const EMOTIONS_BY_SENTIMENT: Record<PostSentiment, readonly string[]> = {
  positive: ['happy', 'happiness', 'surprise'],
  negative: ['angry', 'sad', 'fear'],
  neutral: ['neutral', 'surprise'],
  irrelevant: ['irrelevant'],
};
export const SENTIMENT_TARGETS = [
  'the topic',
  'the announcement',
  'the coverage',
  'the organisers',
  'the debate',
];
export const OPENERS = [
  'Interesting take on',
  'Still thinking about',
  'Not convinced by the latest on',
  'Great thread about',
  'Why is nobody talking about',
  'Quick summary of',
  'Hot take:',
  'Worth reading on',
  'Frustrated with the news on',
  'Some context on',
] as const;
export const CLOSERS = [
  'What do you all think?',
  'More details soon.',
  'This is getting out of hand.',
  'Really encouraging to see.',
  'Thread below.',
  'Source in the link.',
  'Not sure how I feel about it.',
  '',
] as const;
export const LINKEDIN_TYPES = ['Article', 'DiscussionForumPosting', 'VideoObject'] as const;
export const EXPERT_TITLES = [
  'Research Fellow',
  'Senior Analyst',
  'Associate Professor',
  'Independent Consultant',
  'Policy Advisor',
  'Principal Scientist',
] as const;
export const SIGNAL_LABELS = [
  'Volume spike',
  'Sentiment shift',
  'Emerging narrative',
  'Coordinated amplification',
  'New influential voices',
  'Cross-platform spread',
] as const;
