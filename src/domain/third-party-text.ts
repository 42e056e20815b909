/**
 * Short text written by third parties — a lawyer's name, a bar association's name, and whatever
 * the lawyers' portal will let a lawyer type on one line — on its way in (docs/fencing.md#short-texts).
 *
 * Such text reaches AI agents as plain JSON strings (the contract's fields are not fenced), so it
 * must not carry what could make a model or a screen read it as something else: control
 * characters (a newline starts a fake "SYSTEM:" line), invisible format characters (bidi
 * overrides and isolates reorder what is shown; zero-width characters hide words), line and
 * paragraph separators, and unpaired surrogates. They are refused, naming the character and
 * where it is, so whoever wrote the text can fix it. On the way out every such string also goes
 * through `sanitizeShortText` (fence.ts), so rows written before this rule are harmless too.
 */
import type { FieldError } from './errors.ts';

/** Cc (controls, tab and newline included), Cf (format), Zl and Zp (separators), Cs (lone surrogates). */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

const KIND: Array<[RegExp, string]> = [
  [/\p{Cc}/u, 'a control character'],
  [/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u, 'an invisible bidirectional control'],
  [/[\u200B-\u200D\u2060\uFEFF]/u, 'an invisible zero-width character'],
  [/\p{Cf}/u, 'an invisible format character'],
  [/[\p{Zl}\p{Zp}]/u, 'a line or paragraph separator'],
  [/\p{Cs}/u, 'an unpaired surrogate'],
];

/** The first forbidden character of `text` and its 1-based position (in characters), or null. */
export function findForbiddenCharacter(text: string): { codePoint: number; position: number; kind: string } | null {
  if (!FORBIDDEN.test(text)) return null;
  let position = 0;
  for (const ch of text) {
    position++;
    if (!FORBIDDEN.test(ch)) continue;
    const kind = KIND.find(([re]) => re.test(ch))?.[1] ?? 'an invisible character';
    return { codePoint: ch.codePointAt(0)!, position, kind };
  }
  return null;
}

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Checks one short third-party text; a field error naming the character (and its position)
 * when it holds one that is not allowed, else null. The rule for imports and for every form.
 */
export function checkShortText(text: string, pointer: string): FieldError | null {
  const found = findForbiddenCharacter(text);
  if (!found) return null;
  return {
    pointer,
    detail: `contains ${hex(found.codePoint)} (${found.kind}) at character ${found.position}; write it on one line without control, invisible formatting or separator characters`,
  };
}
