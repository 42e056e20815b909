/** Spanish strings: the same shape as en.ts (a missing string is a type error). */
import type { Messages } from './en.ts';

export const es: Messages = {
  lang: { name: 'Español', switchTo: 'English' },
  common: {
    siteName: 'Consulta',
  },
  mail: {},
};
