// Well-known ids of the demo data set (`npm start`, the fuzz and contract suites): the OpenAPI
// examples are these, so every example runs against the demo as it is.
// - Themes, topics, trends, entities and the first articles come from the generator's stream for
//   DEMO_SEED (scripts/generate: the same ids for any `--now`; tests/node/contract-suite.test.ts
//   asks the served demo for each).
// - The demo tenants are created with ids derived from the seed and their name (scripts/demo/tenants.ts).

export const DEMO_SEED = 42;

/** A UUID (v4 layout) from the seed and a name: FNV-1a over both, stretched to 128 bits. */
export function seededUuid(seed: number, name: string): string {
  let hex = '';
  for (let round = 0; hex.length < 32; round++) {
    let h = 0x811c9dc5 ^ seed ^ round;
    for (const ch of `${seed}:${round}:${name}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    hex += h.toString(16).padStart(8, '0');
  }
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const DEMO = {
  /** The project of the `full` demo key ("Demo newsroom"); internal keys name it as `project_id`. */
  projectId: seededUuid(DEMO_SEED, 'project:Demo newsroom'),
  /** Its entity list "Watched entities". */
  listId: seededUuid(DEMO_SEED, 'list:Watched entities'),
  /** Its mention list "Brand mentions" (the one `/matches` reads). */
  mentionListId: seededUuid(DEMO_SEED, 'list:Brand mentions'),
  /** The theme "Sport", its topic "Football" and the trend "Berlin United: goal" under it (hot, France). */
  themeId: '2cc09a8a-86ce-44d3-85f2-45149fef4401',
  topicId: '3ec3c475-a54c-4a7f-b5a2-7ab94dbaabf6',
  trendId: '2f2769cc-b5aa-4222-9050-775d15905fd7',
  /** The generator's first article (its `url_id`; article ids have a stream of their own, scripts/generate/prng.ts). */
  urlId: 'd7ea527f-a194-4b55-a9cc-1a3c5df7bfe4',
  /** The entity named in most demo articles. */
  entityName: 'Lena Kaur',
  entityKgId: '/m/0qwb24',
  country: 'FR',
} as const;
