// Stands in for zod's `locales/index.js` in the bundles wrangler builds (wrangler.toml [alias]):
// zod ships 250+ locale files (half of its size) and the API speaks only English, the default
// locale that zod configures from `locales/en.js` itself. `z.locales` holds only `en` here.
export { default as en } from 'zod/v4/locales/en.js';
