// One domain normalizer for every door a domain comes in by (public checks, ingest): a domain or a
// full URL becomes the stored key, lower-case ASCII (punycode for IDN), without scheme, userinfo,
// port, path, query, fragment, `www.` or trailing dot.

export type DomainResult = { ok: true; domain: string } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_INPUT = 2_048;

export function normalizeDomain(input: string): DomainResult {
  const raw = input.trim();
  if (!raw) return { ok: false, reason: 'empty value' };
  if (raw.length > MAX_INPUT) return { ok: false, reason: `longer than ${MAX_INPUT} characters` };
  // Any scheme (`https://`, `HTTP://`, `//host`) goes; what stays is parsed as an http URL, whose
  // host parser applies IDNA (Unicode -> punycode, full-width dots, case folding) as browsers do.
  const rest = raw.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^\/\//, '');
  let host: string;
  try {
    host = new URL(`http://${rest}`).hostname;
  } catch {
    return { ok: false, reason: 'not a domain name or URL' };
  }
  host = host.replace(/\.+$/, '').replace(/^www\./, '');
  if (host.startsWith('[')) return { ok: false, reason: 'an IP address, not a domain name' };
  const labels = host.split('.');
  if (labels.length < 2) return { ok: false, reason: 'a domain needs at least two labels (example.com)' };
  if (host.length > 253 || !labels.every((l) => LABEL.test(l))) return { ok: false, reason: 'not a domain name' };
  if (/^\d+$/.test(labels[labels.length - 1]!)) return { ok: false, reason: 'an IP address, not a domain name' };
  return { ok: true, domain: host };
}
