const MAX_LENGTH = 512;

/**
 * Where to send a person after sign-in: only a path on our own origin, returned normalised
 * (path and query; no fragment), or null. Anything that a browser could read as another origin
 * (`//evil`, `/\evil`, `https:`, `/..//evil`), control characters, encoded tricks that decode
 * to those, and values over 512 characters are refused (open-redirect protection).
 */
export function safeReturnTo(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return null;
  if (!value.startsWith('/')) return null;
  // Browsers treat a backslash as a slash; two leading slashes mean another host.
  if (value.startsWith('//') || value.includes('\\')) return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex
  if (decoded.startsWith('//') || decoded.includes('\\') || /[\u0000-\u001f\u007f]/.test(decoded) || /^\/+[a-z][a-z0-9+.-]*:/i.test(decoded)) return null;
  // The URL parser is the last word: the path must resolve on our own origin.
  const base = 'https://consulta.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  const path = `${url.pathname}${url.search}`;
  // Dot segments can collapse into a leading `//` (`/..//evil` → `//evil`): check the result too.
  return path.startsWith('//') || path.length > MAX_LENGTH ? null : path;
}
