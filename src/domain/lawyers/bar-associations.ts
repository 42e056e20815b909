/**
 * The 83 Spanish colegios de la abogacía, as reference data: the bar associations
 * src/domain/demo/spain.ts lists per province, each with a stable slug id (the town or territory
 * it is named after). Migration 0024 holds a frozen copy; ensureReferenceData upserts these.
 */
import { PROVINCES, toSlug } from '../demo/spain.ts';

export interface BarAssociation {
  id: string;
  name: string;
  provinceCode: string;
}

/**
 * The public census of Spanish lawyers (Censo General de Letrados, Consejo General de la Abogacía
 * Española): the operator searches it by name, colegio and number. It takes no query in its URL,
 * so the console shows what to type beside the link.
 */
export const CENSUS_URL = 'https://www.abogacia.es/servicios/ciudadanos/censo-de-letrados/';

/** "Ilustre Colegio de Abogados de Jerez de la Frontera" → "jerez-de-la-frontera". */
export function barAssociationId(name: string): string {
  return toSlug(name.replace(/^.*?(?:Abogacía|Abogados|Advocacia)\s+(?:de\s+l[ae]s\s+|del\s+|de\s+)/u, ''));
}

export const BAR_ASSOCIATIONS: readonly BarAssociation[] = Object.freeze(
  PROVINCES.flatMap((p) => p.bars.map((name) => ({ id: barAssociationId(name), name, provinceCode: p.code }))),
);

const byName = new Map(BAR_ASSOCIATIONS.map((b) => [b.name, b]));
const byId = new Map(BAR_ASSOCIATIONS.map((b) => [b.id, b]));

/** The colegio with exactly this name, if it is one of the 83. */
export const barAssociationByName = (name: string): BarAssociation | undefined => byName.get(name);

/** The colegio with this id, if any. */
export const barAssociationById = (id: string): BarAssociation | undefined => byId.get(id);
