/**
 * The embedder's colour and corner radius, as a stylesheet (the frame's CSP allows no inline
 * style). The accent is used for buttons (white text on it) and links (on white): a colour that
 * would fall below WCAG AA (4.5:1) against white is darkened until it reaches it, so no theme
 * can make the booker unreadable (docs/widget.md#options).
 */

const DEFAULT_ACCENT = '1d4ed8';
const MAX_RADIUS = 24;

function luminance(hex: string): number {
  const channel = (i: number) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** Contrast ratio of a colour against white. */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

/** The colour, darkened in small steps until white text on it (and it on white) reaches 4.5:1. */
export function accessibleAccent(hex: string | null): string {
  let colour = hex && /^[0-9a-f]{6}$/i.test(hex) ? hex.toLowerCase() : DEFAULT_ACCENT;
  for (let i = 0; i < 40 && contrastWithWhite(colour) < 4.5; i++) {
    colour = [0, 2, 4].map((j) => Math.floor(parseInt(colour.slice(j, j + 2), 16) * 0.92).toString(16).padStart(2, '0')).join('');
  }
  return colour;
}

export function themeCss(colour: string | null, radius: string | null): string {
  const r = radius !== null && /^\d{1,2}$/.test(radius) ? Math.min(Number(radius), MAX_RADIUS) : 6;
  return `:root{--w-accent:#${accessibleAccent(colour)};--w-radius:${r}px}\n`;
}
