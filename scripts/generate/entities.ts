// Fictional people, organizations, places, events and products, each anchored to one topic so
// that entities co-occur in the articles of that topic (and of its trends).
import type { Rng } from './prng';
import { COUNTRIES } from './reference';
import type { Topic } from './vocab';

export type MentionType = 'person' | 'organization' | 'place' | 'event' | 'product';

export interface Entity {
  name: string;
  mentionType: MentionType;
  entityTypes: string[];
  kgId: string | null;
  description: string;
  /** Index into the flat topic list. */
  topic: number;
  /** Popularity inside its topic (Zipf). */
  weight: number;
}

const FIRST = [
  'Elena',
  'Marcus',
  'Aiko',
  'Rahul',
  'Sofia',
  'Lucas',
  'Amara',
  'Jonas',
  'Priya',
  'Mateo',
  'Chloé',
  'Kenji',
  'Isabela',
  'Noah',
  'Leila',
  'Tomás',
  'Hannah',
  'Arjun',
  'Camille',
  'Diego',
  'Yuki',
  'Olivia',
  'Felix',
  'Ana',
  'Samuel',
  'Mira',
  'Rafael',
  'Ingrid',
  'Kwame',
  'Lena',
];
const LAST = [
  'Marković',
  'Okafor',
  'Tanaka',
  'Sharma',
  'Moreau',
  'Silva',
  'Becker',
  'Costa',
  'Novak',
  'Reyes',
  'Hughes',
  'Nakamura',
  'Lindqvist',
  'Mensah',
  'Ferreira',
  'Kaur',
  'Dubois',
  'Romero',
  'Weber',
  'Sato',
  'Bianchi',
  'Fischer',
  'Haddad',
  'Kowalski',
  'Vargas',
  'Iyer',
  'Laurent',
  'Petrov',
  'Adeyemi',
  'Schmidt',
];
const ROOTS = [
  'Nova',
  'Vertex',
  'Helix',
  'Lumen',
  'Orion',
  'Quanta',
  'Astra',
  'Zephyr',
  'Kestrel',
  'Meridian',
  'Cobalt',
  'Nimbus',
  'Aurora',
  'Solace',
  'Borealis',
  'Tessera',
  'Argent',
  'Halcyon',
  'Vireo',
  'Oakridge',
  'Sterling',
  'Crescent',
  'Pinnacle',
  'Harbor',
  'Atlas',
  'Cedar',
  'Falcon',
  'Juniper',
  'Onyx',
  'Sable',
];
const CITIES = COUNTRIES.flatMap((c) => c.cities.map((city) => ({ city, country: c.name })));

function orgName(rng: Rng, orgType: string): string {
  const root = rng.pick(ROOTS);
  switch (orgType) {
    case 'SportsTeam':
      return `${rng.pick(CITIES).city} ${rng.pick(['United', 'City', 'Rovers', 'Athletic', 'Stars', 'Falcons', 'Comets', 'Racing'])}`;
    case 'PoliticalParty':
      return `${rng.pick(['Progressive', 'National', 'Green', 'Liberal', 'Social', 'Civic', 'Reform', 'Unity'])} ${rng.pick(['Alliance', 'Party', 'Union', 'Movement', 'Front'])}`;
    case 'GovernmentOrganization':
      return `${root} ${rng.pick(['Agency', 'Authority', 'Commission', 'Council', 'Institute'])}`;
    case 'MusicGroup':
      return `The ${root} ${rng.pick(['Echoes', 'Lights', 'Riders', 'Collective', 'Sisters', 'Avenue'])}`;
    case 'SportsOrganization':
      return `${root} ${rng.pick(['Tennis Federation', 'Tour', 'Open Committee'])}`;
    case 'Corporation':
      return `${root} ${rng.pick(['Systems', 'Capital', 'Energy', 'Labs', 'Motors', 'Holdings', 'Bank', 'Networks', 'Airways'])}`;
    default:
      return `${root} ${rng.pick(['Foundation', 'Clinic', 'Studios', 'Kitchen', 'Society', 'Group'])}`;
  }
}

function describe(type: MentionType, types: string[], topic: Topic): string {
  const label = types[types.length - 1]!.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return type === 'place' ? label : `${label} (${topic.label.toLowerCase()})`;
}

export function buildEntities(rng: Rng, topics: readonly Topic[], count: number): Entity[] {
  const taken = new Set<string>();
  const kgIds = new Set<string>();
  const out: Entity[] = [];
  const perTopic = Math.max(4, Math.ceil(count / topics.length));
  topics.forEach((topic, ti) => {
    for (let rank = 0; rank < perTopic && out.length < count; rank++) {
      const roll = rng.next();
      let type: MentionType;
      let name: string;
      let types: string[];
      if (roll < 0.45) {
        type = 'person';
        name = `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
        types = topic.personType === 'Person' ? ['Person'] : ['Person', topic.personType];
      } else if (roll < 0.75) {
        type = 'organization';
        name = orgName(rng, topic.orgType);
        types = ['Organization', topic.orgType];
      } else if (roll < 0.85 && CITIES.some((c) => !taken.has(c.city.toLowerCase()))) {
        type = 'place';
        name = rng.pick(CITIES.filter((c) => !taken.has(c.city.toLowerCase()))).city;
        types = ['Place', 'City'];
      } else if (roll < 0.93) {
        type = 'event';
        const kw = topic.keywords[0]![0].replace(/\b[a-z]/g, (c) => c.toUpperCase());
        name = `${rng.pick(CITIES).city} ${kw} ${rng.pick(['Summit', 'Cup', 'Open', 'Festival', 'Expo', 'Forum'])}`;
        types = ['Event'];
      } else {
        type = 'product';
        name = `${rng.pick(ROOTS)} ${rng.pick(['X', 'Pro', 'Air', 'One', 'Max'])}${rng.int(2, 15)}`;
        types = ['Product'];
      }
      // Names are the entity key: a repeated person gets a middle initial, anything else a number.
      let unique = name;
      for (let n = 0; taken.has(unique.toLowerCase()); n++) {
        const [first, ...rest] = name.split(' ');
        unique = type === 'person' && n < 26 ? `${first} ${String.fromCharCode(65 + n)}. ${rest.join(' ')}` : `${name} ${n + 2}`;
      }
      taken.add(unique.toLowerCase());
      let kgId: string | null = null;
      if (rng.chance(0.75)) {
        do kgId = `/m/0${rng.token(5)}`;
        while (kgIds.has(kgId));
        kgIds.add(kgId);
      }
      out.push({
        name: unique,
        mentionType: type,
        entityTypes: types,
        kgId,
        description: describe(type, types, topic),
        topic: ti,
        weight: 1 / (rank + 1) ** 1.1,
      });
    }
  });
  return out;
}

export function entityRecord(e: Entity): Record<string, unknown> {
  return {
    type: 'entity',
    name: e.name,
    kg_id: e.kgId,
    kg_name: e.kgId ? e.name : null,
    kg_description: e.kgId ? e.description : null,
    kg_image_url: e.kgId ? `https://kg.example.org/img${e.kgId.slice(2)}.jpg` : null,
    entity_types: e.entityTypes,
    wikipedia_url: e.kgId ? `https://en.wikipedia.org/wiki/${encodeURIComponent(e.name.replace(/ /g, '_'))}` : '',
  };
}
