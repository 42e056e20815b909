/**
 * Rendered pages kept as bytes, cut at their per-request values (docs/performance.md, "Site
 * pages"): a page is rendered once per immutable domain answer — the directory hands out the
 * same object while nothing changed, a new one when anything did — and per variant (language,
 * URL, whatever else the caller says the HTML depends on); each response then only splices in
 * its fresh values (a CSRF token, a one-time nonce). Used by the site's anonymous pages
 * (`reply.cachedPage`, plugin.ts) and by the booking widget's frame (widget/widget.routes.ts).
 */
import { randomBytes } from 'node:crypto';

/** What a cut page leaves open: this browser's CSRF token, or the response's one-time value. */
export type PageValue = 'csrf' | 'once';

/** A rendered page cut at its per-request values: parts[0] value[0] parts[1] … */
export interface CutPage {
  // Kept as UTF-8 bytes: encoding a page's string on every response cost ~8 % of its CPU.
  parts: Buffer[];
  values: PageValue[];
}

/** Variants (language × URL × …) kept per answer: query strings are the visitor's to vary. */
const MAX_VARIANTS = 16;

export class PageCache {
  /** Stand-ins for per-request values inside cached HTML: random per process, never sent as they are. */
  readonly csrfMark = randomBytes(18).toString('base64url');
  readonly onceMark = randomBytes(18).toString('base64url');
  private readonly marks = new RegExp(`(${this.csrfMark}|${this.onceMark})`);
  private readonly rendered = new WeakMap<object, Map<string, CutPage>>();

  /**
   * The page of `key` in `variant`, rendered by `render` (with the marks in place of the values)
   * the first time. `variant` must name everything the HTML depends on beyond `key`: two requests
   * with the same key and variant get the same bytes.
   */
  page(key: object, variant: string, render: () => string): CutPage {
    let variants = this.rendered.get(key);
    if (!variants) this.rendered.set(key, (variants = new Map()));
    let page = variants.get(variant);
    if (!page) {
      page = this.cut(render());
      if (variants.size >= MAX_VARIANTS) variants.delete(variants.keys().next().value!);
      variants.set(variant, page);
    }
    return page;
  }

  /** The page's bytes with this response's values spliced in (`csrf` is asked only if the page has a form). */
  fill(page: CutPage, csrf: () => string, once: () => string): Buffer {
    if (page.values.length === 0) return page.parts[0]!;
    // One nonce per response (a page's forms share it), and this browser's CSRF token.
    const onceBytes = Buffer.from(once());
    const chunks: Buffer[] = [page.parts[0]!];
    for (let i = 0; i < page.values.length; i++) chunks.push(page.values[i] === 'csrf' ? Buffer.from(csrf()) : onceBytes, page.parts[i + 1]!);
    return Buffer.concat(chunks);
  }

  private cut(html: string): CutPage {
    const pieces = html.split(this.marks);
    return {
      parts: pieces.filter((_, i) => i % 2 === 0).map((p) => Buffer.from(p, 'utf8')),
      values: pieces.filter((_, i) => i % 2 === 1).map((m) => (m === this.csrfMark ? 'csrf' : 'once')),
    };
  }
}

/**
 * One cache key for an answer and the other answers its page shows (its cards' availability,
 * trust facts…): the same object while every part is the same object, a new one when any changed.
 */
export function compositeKey(keys: WeakMap<object, { parts: ReadonlyArray<object | null>; key: object }>, first: object, parts: ReadonlyArray<object | null>): object {
  const known = keys.get(first);
  if (known && known.parts.length === parts.length && known.parts.every((p, i) => p === parts[i])) return known.key;
  const key = {};
  keys.set(first, { parts, key });
  return key;
}
