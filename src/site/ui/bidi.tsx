/**
 * Latin words and numbers inside right-to-left text, isolated (issue 25 item 10). In an Arabic
 * sentence the Unicode bidi algorithm turns digits after Arabic letters into "Arabic numbers" and
 * lets neutral characters between two Latin runs join them: "612 345 678" read "678 345 612",
 * "2026-11-26" read "26-11-2026", and the links «تقويم Google · Outlook» read «تقويم Outlook ·
 * Google». Each left-to-right run becomes its own `<bdi dir="ltr">`, so it keeps its inner order
 * and the sentence around it keeps the right-to-left one. Text already marked with U+2066 … U+2069
 * (the catalogues' isolates) becomes the same element, so the DOM says it whichever way it was
 * written. Left-to-right pages get the text untouched.
 */
import type { ComponentChildren } from 'preact';
import { textDirection } from '../../i18n/locales.ts';
import type { SiteContext } from '../context.ts';

const STRONG = '[\\p{Script=Latin}0-9]';
// Punctuation that stays inside a run only when more of the run follows it.
const JOINER = "[ .,:;/@_*+\\-–'’()&#%=?~]";
const RUN = new RegExp(`[+.]?${STRONG}(?:${STRONG}|\\p{M}|${JOINER}(?=${JOINER}*${STRONG}))*\\)?`, 'gu');
const ISOLATED = /\u2066([^\u2066\u2069]*)\u2069/gu;

/** Splits `text` into plain right-to-left parts and left-to-right runs (for tests and the component). */
export function ltrRuns(text: string): Array<{ ltr: boolean; text: string }> {
  const out: Array<{ ltr: boolean; text: string }> = [];
  const plain = (s: string) => {
    let last = 0;
    for (const m of s.matchAll(RUN)) {
      let run = m[0];
      // A closing bracket belongs to the run only when the run opened it: "(DEMO)" yes, "Mercantil)" no.
      if (run.endsWith(')') && (run.match(/\(/g)?.length ?? 0) < (run.match(/\)/g)?.length ?? 0)) run = run.slice(0, -1);
      if (m.index > last) out.push({ ltr: false, text: s.slice(last, m.index) });
      out.push({ ltr: true, text: run });
      last = m.index + run.length;
    }
    if (last < s.length) out.push({ ltr: false, text: s.slice(last) });
  };
  let last = 0;
  for (const m of text.matchAll(ISOLATED)) {
    plain(text.slice(last, m.index));
    out.push({ ltr: true, text: m[1]! });
    last = m.index + m[0].length;
  }
  plain(text.slice(last));
  return out;
}

/** `text` with its Latin runs and numbers isolated left to right on a right-to-left page. */
export function Bidi({ ctx, text }: { ctx: Pick<SiteContext, 'locale'>; text: string }): ComponentChildren {
  if (textDirection(ctx.locale) !== 'rtl') return text;
  return ltrRuns(text).map((part) => (part.ltr ? <bdi dir="ltr">{part.text}</bdi> : part.text));
}
