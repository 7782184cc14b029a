// Vite's `?raw` imports (a file's text), e.g. wrangler.toml in tests/workers/security.test.ts.
declare module '*?raw' {
  const text: string;
  export default text;
}
