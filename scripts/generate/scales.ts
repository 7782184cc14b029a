// Sizes of the three generated datasets. Observation volume is driven by URLs x markets per URL x
// lifespan hours, so lifespans (not URL counts) are the lever that keeps `demo` small.

export interface Scale {
  days: number;
  urls: number;
  /** `CC-ll` market codes that get articles and observations. */
  markets: string[];
  /** Countries present only as reference data with inactive Discover profiles. */
  dormantCountries: string[];
  publishers: number;
  entities: number;
  themes: number;
  topicsPerTheme: number;
  trends: number;
  /** Share of articles that belong to a trend. */
  trendShare: number;
  lifespanMedianHours: number;
  lifespanSigma: number;
  /** Chance scale for an article to also surface in another market of its language. */
  sameLanguageReach: number;
  crossLanguageReach: number;
  bodySentences: [number, number];
  markdownShare: number;
}

const DEMO_MARKETS = ['US-en', 'US-es', 'GB-en', 'DE-de', 'FR-fr', 'IN-en', 'IN-hi', 'BR-pt', 'JP-ja', 'ES-es'];

export const SCALES: Record<'test' | 'demo' | 'bench', Scale> = {
  test: {
    days: 7,
    urls: 150,
    markets: ['US-en', 'GB-en', 'DE-de', 'FR-fr'],
    dormantCountries: ['IT'],
    publishers: 10,
    entities: 60,
    themes: 3,
    topicsPerTheme: 2,
    trends: 10,
    trendShare: 0.5,
    lifespanMedianHours: 12,
    lifespanSigma: 0.8,
    sameLanguageReach: 0.45,
    crossLanguageReach: 0.04,
    bodySentences: [3, 5],
    markdownShare: 0.5,
  },
  demo: {
    days: 30,
    urls: 2400,
    markets: DEMO_MARKETS,
    dormantCountries: ['IT'],
    publishers: 40,
    entities: 560,
    themes: 6,
    topicsPerTheme: 4,
    trends: 60,
    trendShare: 0.45,
    lifespanMedianHours: 26,
    lifespanSigma: 0.9,
    sameLanguageReach: 0.5,
    crossLanguageReach: 0.03,
    bodySentences: [4, 6],
    markdownShare: 0.5,
  },
  bench: {
    days: 30,
    urls: 800_000,
    markets: [...DEMO_MARKETS, 'IT-it', 'CA-en', 'CA-fr', 'MX-es', 'AU-en'],
    dormantCountries: [],
    publishers: 2500,
    entities: 20_000,
    themes: 6,
    topicsPerTheme: 4,
    trends: 2000,
    trendShare: 0.4,
    lifespanMedianHours: 13.5,
    lifespanSigma: 0.9,
    sameLanguageReach: 0.3,
    crossLanguageReach: 0.02,
    bodySentences: [1, 2],
    markdownShare: 0.1,
  },
};
