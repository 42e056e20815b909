/**
 * What the language tests know about the catalogues: their key paths (every leaf, with its
 * kind), and the catalogue's English that has no place on a page in another language — every
 * English string and every fixed part of an English sentence (the text around a function's
 * values) that the other catalogue does not also use. Strings both catalogues share (names,
 * "Consulta", "Webhooks", "Arraigo social") are exempt by construction.
 */
import type { Messages } from '../../src/i18n/index.ts';

export interface Leaf {
  path: string;
  kind: 'string' | 'function' | 'other';
  value: unknown;
}

/** Every leaf of a catalogue, by its dotted path. */
export function leaves(value: unknown, path = ''): Leaf[] {
  if (typeof value === 'string') return [{ path, kind: 'string', value }];
  if (typeof value === 'function') return [{ path, kind: 'function', value }];
  // Arrays too (the help page's topics), by index: a translation must have as many entries.
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  }
  return [{ path, kind: 'other', value }];
}

const MARK = '\u0001';

/**
 * The fixed text of a catalogue function: called with stand-ins for its values (a marker for
 * text, a number for counts, an object whose fields are markers), the parts between them.
 */
function fixedParts(fn: (...args: unknown[]) => unknown): string[] {
  const out = new Set<string>();
  const stand = new Proxy({}, { get: (_t, key) => (key === Symbol.toPrimitive ? () => MARK : key === 'length' ? 0 : key === 'map' || key === 'join' ? undefined : MARK) });
  for (const args of [Array(fn.length).fill(MARK), Array(fn.length).fill(7), Array(fn.length).fill(1), Array(fn.length).fill(stand)]) {
    let text: unknown;
    try {
      text = fn(...args);
    } catch {
      continue;
    }
    if (typeof text !== 'string') continue;
    for (const part of text.split(MARK).flatMap((p) => p.split(/\bundefined\b|\bNaN\b|\b7\b|\b1\b|\[object Object\]/))) out.add(part);
  }
  return [...out];
}

/** Every piece of text a catalogue can put on a page: its strings, and its functions' fixed parts. */
function pieces(catalogue: Messages): string[] {
  return leaves(catalogue).flatMap((l) => (l.kind === 'string' ? [l.value as string] : l.kind === 'function' ? fixedParts(l.value as (...a: unknown[]) => unknown) : []));
}

/** Normalised for comparison: spaces folded, trimmed, and punctuation at either end dropped. */
function norm(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s.,:;·()«»"'—–-]+|[\s.,:;·()«»"'—–-]+$/g, '');
}

/**
 * The catalogue's English that must not appear on a page in `other`'s language: pieces of `en`
 * of at least two words and 8 characters (shorter ones, "Email", "Slug", are not telling, and
 * often shared by design) that `other` does not contain anywhere.
 */
export function englishOnly(en: Messages, other: Messages): string[] {
  const theirs = pieces(other).map(norm).join('\n');
  const found = new Set<string>();
  for (const piece of pieces(en).map(norm)) {
    if (piece.length < 8 || !/\s/.test(piece) || !/[a-z]{3}/i.test(piece)) continue;
    if (theirs.includes(piece)) continue;
    found.add(piece);
  }
  return [...found];
}

/**
 * The catalogue's telling pieces (as in englishOnly: two words, 8 characters) found in `text`
 * whose every use is outside `sections` — text from, say, the developer area on a page a person
 * who books sees, which a people-only language would not have translated.
 */
export function outside(text: string, catalogue: Messages, sections: readonly string[]): string[] {
  const folded = text.replace(/\s+/g, ' ');
  const where = new Map<string, Set<string>>();
  for (const [section, value] of Object.entries(catalogue)) {
    for (const piece of pieces({ [section]: value } as unknown as Messages).map(norm)) {
      if (piece.length < 8 || !/\s/.test(piece) || !/[a-z]{3}/i.test(piece)) continue;
      (where.get(piece) ?? where.set(piece, new Set()).get(piece)!).add(section);
    }
  }
  // A piece that is part of a people section's text ("Error code" of "Error codes") tells nothing.
  const people = pieces(Object.fromEntries(Object.entries(catalogue).filter(([k]) => sections.includes(k))) as unknown as Messages).map(norm).join('\n');
  return [...where]
    .filter(([piece, in_]) => ![...in_].some((s) => sections.includes(s)) && !people.includes(piece) && folded.includes(piece))
    .map(([piece, in_]) => `${[...in_].join('/')}: ${piece}`);
}

/** What a person reads on an HTML page: its text, and the attributes read aloud or shown (title, labels, placeholders, alt). */
export function readableText(html: string): string {
  const body = html.replace(/<script\b[\s\S]*?<\/script>/gi, ' ').replace(/<style\b[\s\S]*?<\/style>/gi, ' ');
  const attributes = [...body.matchAll(/\b(?:aria-label|title|placeholder|alt|data-prefix|content)="([^"]*)"/g)].map((m) => m[1]);
  const text = body.replace(/<[^>]+>/g, ' ');
  return decode([text, ...attributes].join(' \n ')).replace(/\s+/g, ' ');
}

function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

/** The English-only pieces found in `text` (a page's readable text, or an email). */
export function leftovers(text: string, english: readonly string[]): string[] {
  const folded = text.replace(/\s+/g, ' ');
  return english.filter((piece) => folded.includes(piece));
}
