// Reference geography and markets. Figures are rounded public estimates, good enough for demos.

export interface Country {
  alpha_2: string;
  alpha_3: string;
  name: string;
  region: string;
  sub_region: string;
  languages: string[];
  population: number;
  internet_population: number;
  mobile_chrome_population: number;
  cities: string[];
}

const M = 1_000_000;

export const COUNTRIES: Country[] = [
  {
    alpha_2: 'US',
    alpha_3: 'USA',
    name: 'United States',
    region: 'Americas',
    sub_region: 'Northern America',
    languages: ['en', 'es'],
    population: 335 * M,
    internet_population: 311 * M,
    mobile_chrome_population: 152 * M,
    cities: ['New York', 'Los Angeles', 'Chicago', 'Houston'],
  },
  {
    alpha_2: 'GB',
    alpha_3: 'GBR',
    name: 'United Kingdom',
    region: 'Europe',
    sub_region: 'Northern Europe',
    languages: ['en'],
    population: 68 * M,
    internet_population: 66 * M,
    mobile_chrome_population: 39 * M,
    cities: ['London', 'Manchester', 'Birmingham'],
  },
  {
    alpha_2: 'DE',
    alpha_3: 'DEU',
    name: 'Germany',
    region: 'Europe',
    sub_region: 'Western Europe',
    languages: ['de'],
    population: 84 * M,
    internet_population: 78 * M,
    mobile_chrome_population: 45 * M,
    cities: ['Berlin', 'Munich', 'Hamburg'],
  },
  {
    alpha_2: 'FR',
    alpha_3: 'FRA',
    name: 'France',
    region: 'Europe',
    sub_region: 'Western Europe',
    languages: ['fr'],
    population: 68 * M,
    internet_population: 63 * M,
    mobile_chrome_population: 37 * M,
    cities: ['Paris', 'Lyon', 'Marseille'],
  },
  {
    alpha_2: 'IN',
    alpha_3: 'IND',
    name: 'India',
    region: 'Asia',
    sub_region: 'Southern Asia',
    languages: ['en', 'hi'],
    population: 1430 * M,
    internet_population: 760 * M,
    mobile_chrome_population: 600 * M,
    cities: ['Mumbai', 'Delhi', 'Bengaluru'],
  },
  {
    alpha_2: 'BR',
    alpha_3: 'BRA',
    name: 'Brazil',
    region: 'Americas',
    sub_region: 'Latin America and the Caribbean',
    languages: ['pt'],
    population: 216 * M,
    internet_population: 182 * M,
    mobile_chrome_population: 140 * M,
    cities: ['São Paulo', 'Rio de Janeiro'],
  },
  {
    alpha_2: 'JP',
    alpha_3: 'JPN',
    name: 'Japan',
    region: 'Asia',
    sub_region: 'Eastern Asia',
    languages: ['ja'],
    population: 124 * M,
    internet_population: 104 * M,
    mobile_chrome_population: 41 * M,
    cities: ['Tokyo', 'Osaka'],
  },
  {
    alpha_2: 'ES',
    alpha_3: 'ESP',
    name: 'Spain',
    region: 'Europe',
    sub_region: 'Southern Europe',
    languages: ['es'],
    population: 48 * M,
    internet_population: 45 * M,
    mobile_chrome_population: 30 * M,
    cities: ['Madrid', 'Barcelona'],
  },
  {
    alpha_2: 'IT',
    alpha_3: 'ITA',
    name: 'Italy',
    region: 'Europe',
    sub_region: 'Southern Europe',
    languages: ['it'],
    population: 59 * M,
    internet_population: 52 * M,
    mobile_chrome_population: 32 * M,
    cities: ['Rome', 'Milan'],
  },
  {
    alpha_2: 'CA',
    alpha_3: 'CAN',
    name: 'Canada',
    region: 'Americas',
    sub_region: 'Northern America',
    languages: ['en', 'fr'],
    population: 40 * M,
    internet_population: 37 * M,
    mobile_chrome_population: 20 * M,
    cities: ['Toronto', 'Montreal'],
  },
  {
    alpha_2: 'MX',
    alpha_3: 'MEX',
    name: 'Mexico',
    region: 'Americas',
    sub_region: 'Latin America and the Caribbean',
    languages: ['es'],
    population: 129 * M,
    internet_population: 100 * M,
    mobile_chrome_population: 75 * M,
    cities: ['Mexico City', 'Guadalajara'],
  },
  {
    alpha_2: 'AU',
    alpha_3: 'AUS',
    name: 'Australia',
    region: 'Oceania',
    sub_region: 'Australia and New Zealand',
    languages: ['en'],
    population: 27 * M,
    internet_population: 25 * M,
    mobile_chrome_population: 13 * M,
    cities: ['Sydney', 'Melbourne'],
  },
];

export const LANGUAGES: Record<string, string> = {
  de: 'German',
  en: 'English',
  es: 'Spanish',
  fr: 'French',
  hi: 'Hindi',
  it: 'Italian',
  ja: 'Japanese',
  nl: 'Dutch',
  pt: 'Portuguese',
  ru: 'Russian',
};

export interface Market {
  country: string;
  language: string;
  /** UTC offset of the market's main time zone, hours (drives the daily cycle). */
  tz: number;
  /** Relative feed traffic. */
  weight: number;
}

const market = (code: string, tz: number, weight: number): Market => {
  const [country, language] = code.split('-') as [string, string];
  return { country, language, tz, weight };
};

export const MARKETS: Record<string, Market> = Object.fromEntries(
  [
    market('US-en', -5, 1.0),
    market('US-es', -5, 0.22),
    market('GB-en', 0, 0.45),
    market('DE-de', 1, 0.45),
    market('FR-fr', 1, 0.4),
    market('IN-en', 5.5, 0.6),
    market('IN-hi', 5.5, 0.35),
    market('BR-pt', -3, 0.45),
    market('JP-ja', 9, 0.4),
    market('ES-es', 1, 0.3),
    market('IT-it', 1, 0.3),
    market('CA-en', -5, 0.2),
    market('CA-fr', -5, 0.08),
    market('MX-es', -6, 0.3),
    market('AU-en', 10, 0.2),
  ].map((m) => [`${m.country}-${m.language}`, m]),
);

/** Share of the feed's attention by local hour: morning and evening peaks, a night trough. */
export function dailyCycle(utcHour: number, tz: number): number {
  const h = (((utcHour + tz) % 24) + 24) % 24;
  const bump = (center: number, width: number) => {
    const d = Math.min(Math.abs(h - center), 24 - Math.abs(h - center));
    return Math.exp(-(d * d) / (2 * width * width));
  };
  return 0.15 + 0.85 * Math.max(bump(8, 2), bump(21, 2.5), 0.7 * bump(13, 2));
}

/** Eight top-level categories; article categories are paths under them. */
export const TOP_CATEGORIES = [
  '/News',
  '/Sports',
  '/Finance',
  '/Computers & Electronics',
  '/Health',
  '/Arts & Entertainment',
  '/Food & Drink',
  '/Travel',
];
