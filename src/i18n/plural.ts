/**
 * Counts in sentences ("1 client error", "2 client errors"), by the language's own plural rules
 * (Intl.PluralRules), so a catalogue never writes `n === 1 ? … : …` (wrong for many languages)
 * or "error(s)". Each catalogue makes its own counter: `const count = counter('en')`.
 */
import { intlTag } from './locales.ts';

/** The forms of a phrase; `#` stands for the number. `other` is required; a language's rules pick the rest. */
export type PluralForms = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;


/** `count(n, { one: '# request', other: '# requests' })` → "1 request", "5,000 requests" (numbers as the language writes them). */
export function counter(locale: string): (n: number, forms: PluralForms) => string {
  const rules = new Intl.PluralRules(intlTag(locale));
  const numbers = new Intl.NumberFormat(intlTag(locale));
  return (n, forms) => (forms[rules.select(n)] ?? forms.other).replaceAll('#', numbers.format(n));
}
