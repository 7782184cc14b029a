// Fictional publishers per market with power-law sizes; some specialise in one theme.
import { type Rng, WeightedPicker } from './prng';
import { MARKETS, type Market } from './reference';

export interface Publisher {
  domain: string;
  name: string;
  market: Market;
  /** Relative reach (Pareto): drives article potential and how often it publishes. */
  size: number;
  /** Theme index it specialises in, or null for a general outlet. */
  theme: number | null;
  isVideo: boolean;
  kgId: string | null;
  followers: number;
  hasProfile: boolean;
}

const NAME_PARTS: Record<string, [string[], string[]]> = {
  en: [
    ['Daily', 'Morning', 'City', 'Metro', 'Global', 'National', 'Evening', 'Harbor', 'Capital', 'Valley'],
    ['Herald', 'Post', 'Tribune', 'Chronicle', 'Ledger', 'Gazette', 'Wire', 'Observer', 'Dispatch', 'Courier', 'Record'],
  ],
  de: [
    ['Rhein', 'Nord', 'Süd', 'Ost', 'West', 'Stadt', 'Land', 'Elb', 'Alpen', 'Spree'],
    ['Kurier', 'Anzeiger', 'Rundschau', 'Bote', 'Blatt', 'Nachrichten', 'Echo'],
  ],
  fr: [
    ['Le Journal', 'La Dépêche', 'Le Courrier', "L'Écho", 'La Gazette', 'Le Réveil'],
    ['du Nord', "de l'Ouest", 'du Sud', 'de la Ville', 'du Centre', 'des Alpes'],
  ],
  es: [
    ['El Heraldo', 'Diario', 'La Voz', 'El Correo', 'La Crónica', 'El Mirador'],
    ['del Sur', 'del Norte', 'de la Costa', 'del Valle', 'Central', 'del Río'],
  ],
  pt: [
    ['Folha', 'Jornal', 'Correio', 'Gazeta', 'Diário', 'Voz'],
    ['do Vale', 'da Serra', 'do Litoral', 'do Sul', 'da Capital', 'do Norte'],
  ],
  it: [
    ['Il Corriere', 'La Voce', 'Il Giornale', 'La Gazzetta', "L'Eco"],
    ['del Lago', 'di Valle', 'del Nord', 'del Sud', 'della Città'],
  ],
  ja: [
    ['Tokyo', 'Kansai', 'Nihon', 'Sakura', 'Minato', 'Hikari'],
    ['Nippo', 'Shimbun', 'Times', 'Jiji', 'Press'],
  ],
  hi: [
    ['Bharat', 'Desh', 'Aaj', 'Nav', 'Lok', 'Jan'],
    ['Samachar', 'Khabar', 'Darpan', 'Vani', 'Times'],
  ],
};

const TLD: Record<string, string> = { US: 'com', GB: 'co.uk', IN: 'in', CA: 'ca', AU: 'com.au', BR: 'com.br', MX: 'com.mx' };

function slug(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

export function buildPublishers(rng: Rng, marketCodes: readonly string[], count: number, themes: number): Publisher[] {
  const markets = marketCodes.map((c) => MARKETS[c]!);
  const perMarket = markets.map(() => 1);
  const spread = new WeightedPicker(markets, (m) => m.weight);
  for (let i = markets.length; i < count; i++) perMarket[spread.pickIndex(rng)]!++;
  const domains = new Set<string>();
  const out: Publisher[] = [];
  markets.forEach((market, mi) => {
    const [first, second] = NAME_PARTS[market.language] ?? NAME_PARTS.en!;
    for (let i = 0; i < perMarket[mi]!; i++) {
      const isVideo = rng.chance(0.05);
      let name = `${rng.pick(first)} ${rng.pick(second)}${isVideo ? ' TV' : ''}`;
      const tld = isVideo ? 'tv' : (TLD[market.country] ?? market.country.toLowerCase());
      let domain = `${slug(name)}.${tld}`;
      for (let n = 2; domains.has(domain); n++) {
        name = `${name.replace(/ \d+$/, '')} ${n}`;
        domain = `${slug(name)}.${tld}`;
      }
      domains.add(domain);
      const size = Math.min(200, rng.pareto(1, 1.2));
      out.push({
        domain,
        name,
        market,
        size,
        isVideo,
        theme: rng.chance(0.3) ? rng.int(0, themes - 1) : null,
        kgId: rng.chance(0.6) ? `/g/11${rng.token(8)}` : null,
        followers: Math.round(size * rng.uniform(5_000, 30_000)),
        hasProfile: rng.chance(0.7),
      });
    }
  });
  return out;
}

export function publisherRecord(p: Publisher): Record<string, unknown> {
  return {
    type: 'publisher',
    domain: p.domain,
    name: p.name,
    favicon_url: `https://${p.domain}/favicon.ico`,
    kg_id: p.kgId,
    is_video: p.isVideo,
    profile_title: p.hasProfile ? p.name : null,
    followers: p.hasProfile ? p.followers : null,
  };
}

/** Chooses the publisher of an article in a market: big outlets more often, specialists on their theme. */
export class PublisherChooser {
  private readonly cache = new Map<string, WeightedPicker<Publisher>>();

  constructor(private readonly publishers: readonly Publisher[]) {}

  choose(rng: Rng, market: Market, theme: number): Publisher | null {
    const key = `${market.country}-${market.language}|${theme}`;
    let picker = this.cache.get(key);
    if (!picker) {
      const local = this.publishers.filter((p) => p.market === market);
      picker = new WeightedPicker(local, (p) => p.size * (p.theme === null ? 1 : p.theme === theme ? 4 : 0.1));
      this.cache.set(key, picker);
    }
    return picker.items.length ? picker.pick(rng) : null;
  }
}
