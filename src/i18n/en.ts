/**
 * English strings of the site and its emails. The Spanish catalogue (es.ts) must have the same
 * shape (type-checked). Strings that take values are functions; they return plain text, which
 * the pages escape like any other text.
 */
export const en = {
  lang: { name: 'English', switchTo: 'Español' },
  common: {
    siteName: 'Consulta',
  },
  /** Emails (sign-in codes, receipts, notices to lawyers). */
  mail: {},
};

export type Messages = typeof en;
