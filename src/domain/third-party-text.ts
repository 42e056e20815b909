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
import { FILLERS, MAX_COMBINING_MARKS, sanitizeShortText } from './directory/fence.ts';
import type { FieldError } from './errors.ts';

/** Cc (controls, tab and newline included), Cf (format), Zl and Zp (separators), Cs (lone surrogates). */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const MARK = /\p{M}/u;
/** Quick test for the whole text: anything the character loop below could refuse. */
const SUSPECT = new RegExp(`${FORBIDDEN.source}|${FILLERS.source}|\\p{M}{${MAX_COMBINING_MARKS + 1}}`, 'u');

const KIND: Array<[RegExp, string]> = [
  [/\p{Cc}/u, 'a control character'],
  [/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u, 'an invisible bidirectional control'],
  [/[\u200B-\u200D\u2060\uFEFF]/u, 'an invisible zero-width character'],
  [/\p{Cf}/u, 'an invisible format character'],
  [/[\p{Zl}\p{Zp}]/u, 'a line or paragraph separator'],
  [/\p{Cs}/u, 'an unpaired surrogate'],
  [FILLERS, 'an invisible filler character'],
];

/**
 * The first forbidden character of `text` and its 1-based position (in characters), or null:
 * a control, format or separator character, a filler that renders blank (U+3164 and the other
 * Hangul fillers), or the first combining mark past MAX_COMBINING_MARKS on one character.
 */
export function findForbiddenCharacter(text: string): { codePoint: number; position: number; kind: string } | null {
  if (!SUSPECT.test(text)) return null;
  let position = 0;
  let marks = 0;
  for (const ch of text) {
    position++;
    marks = MARK.test(ch) ? marks + 1 : 0;
    if (marks > MAX_COMBINING_MARKS) return { codePoint: ch.codePointAt(0)!, position, kind: `a run of more than ${MAX_COMBINING_MARKS} combining marks on one character` };
    if (!FORBIDDEN.test(ch) && !FILLERS.test(ch)) continue;
    const kind = KIND.find(([re]) => re.test(ch))?.[1] ?? 'an invisible character';
    return { codePoint: ch.codePointAt(0)!, position, kind };
  }
  return null;
}

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** The longest an AI app's name may be (its client_name): it heads the consent page and names its holds. */
export const APP_NAME_MAX = 100;

/**
 * Checks one short third-party text; a field error naming the character (and its position)
 * when it holds one that is not allowed, or saying the text is too long when it has more than
 * `maxLength` characters; else null. The rule for imports, for every form and for app names.
 */
export function checkShortText(text: string, pointer: string, maxLength?: number): FieldError | null {
  const found = findForbiddenCharacter(text);
  if (found) {
    return {
      pointer,
      detail: `contains ${hex(found.codePoint)} (${found.kind}) at character ${found.position}; write it on one line without control, invisible formatting or separator characters`,
    };
  }
  const length = [...text].length;
  if (maxLength !== undefined && length > maxLength) return { pointer, detail: `is ${length} characters long; at most ${maxLength}` };
  return null;
}

/**
 * An app's name as shown anywhere (consent page, connected apps, tool answers): cleaned like any
 * short third-party text and cut at APP_NAME_MAX, for names registered before the rule.
 */
export function appDisplayName(name: string): string {
  const clean = sanitizeShortText(name);
  const chars = [...clean];
  return chars.length > APP_NAME_MAX ? `${chars.slice(0, APP_NAME_MAX - 1).join('').trimEnd()}…` : clean;
}
