// The Workers Cache API of this location (`caches.default`): shared by the isolates of a location and
// kept when an isolate is recycled; absent where the runtime has none (Node scripts).
export const locationCache = (): Cache | undefined => (globalThis as { caches?: { default?: Cache } }).caches?.default;
