// Frozen migration: never import application code here.
// The lawyers' side (issue 18; DESIGN.md §10; docs/lawyers.md):
// - bar_associations: the 83 Spanish colegios de la abogacía as reference data (a frozen copy of
//   what src/domain/demo/spain.ts lists; the app upserts the same rows). bar_memberships point at
//   one (bar_association_id, backfilled by name) and carry the membership number.
// - lawyers: a lifecycle (`status` applied | verified | refused | suspended, with a reason), the
//   lawyer's own account (`user_id`), the operator's listing switch (`hidden`), the consultation
//   offer (length, formats) and calendar settings. `verified` and `listed` become materialised:
//   `verified` = a current verification and not suspended, `listed` = the listing rule
//   (src/domain/lawyers/listing.ts). Search's partial indexes on `verified = 1 and listed = 1`
//   stay right and fast.
// - lawyer_verifications: the operator's act of verifying, with what was checked; it expires.
// Existing lawyers keep their visibility: verified ones get a verification record (checked by
// import), offer phone consultations, and their length is their hours' slot length.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

const BAR_ASSOCIATIONS: Array<[id: string, name: string, provinceCode: string]> = [
  ['alava', "Ilustre Colegio de la Abogacía de Álava", '01'],
  ['albacete', "Ilustre Colegio de la Abogacía de Albacete", '02'],
  ['alicante', "Ilustre Colegio de la Abogacía de Alicante", '03'],
  ['alcoy', "Ilustre Colegio de Abogados de Alcoy", '03'],
  ['elche', "Ilustre Colegio de Abogados de Elche", '03'],
  ['orihuela', "Ilustre Colegio de Abogados de Orihuela", '03'],
  ['almeria', "Ilustre Colegio de Abogados de Almería", '04'],
  ['avila', "Ilustre Colegio de Abogados de Ávila", '05'],
  ['badajoz', "Ilustre Colegio de Abogados de Badajoz", '06'],
  ['illes-balears', "Ilustre Colegio de la Abogacía de las Illes Balears", '07'],
  ['barcelona', "Il·lustre Col·legi de l'Advocacia de Barcelona", '08'],
  ['terrassa', "Il·lustre Col·legi de l'Advocacia de Terrassa", '08'],
  ['sabadell', "Il·lustre Col·legi de l'Advocacia de Sabadell", '08'],
  ['mataro', "Il·lustre Col·legi de l'Advocacia de Mataró", '08'],
  ['manresa', "Il·lustre Col·legi de l'Advocacia de Manresa", '08'],
  ['granollers', "Il·lustre Col·legi de l'Advocacia de Granollers", '08'],
  ['sant-feliu-de-llobregat', "Il·lustre Col·legi de l'Advocacia de Sant Feliu de Llobregat", '08'],
  ['vic', "Il·lustre Col·legi de l'Advocacia de Vic", '08'],
  ['burgos', "Ilustre Colegio de la Abogacía de Burgos", '09'],
  ['caceres', "Ilustre Colegio de Abogados de Cáceres", '10'],
  ['cadiz', "Ilustre Colegio de la Abogacía de Cádiz", '11'],
  ['jerez-de-la-frontera', "Ilustre Colegio de Abogados de Jerez de la Frontera", '11'],
  ['campo-de-gibraltar', "Ilustre Colegio de Abogados del Campo de Gibraltar", '11'],
  ['castellon', "Ilustre Colegio de Abogados de Castellón", '12'],
  ['ciudad-real', "Ilustre Colegio de la Abogacía de Ciudad Real", '13'],
  ['cordoba', "Ilustre Colegio de la Abogacía de Córdoba", '14'],
  ['lucena', "Ilustre Colegio de Abogados de Lucena", '14'],
  ['a-coruna', "Ilustre Colegio Provincial de Abogados de A Coruña", '15'],
  ['santiago-de-compostela', "Ilustre Colegio de Abogados de Santiago de Compostela", '15'],
  ['ferrol', "Ilustre Colegio de Abogados de Ferrol", '15'],
  ['cuenca', "Ilustre Colegio de Abogados de Cuenca", '16'],
  ['girona', "Il·lustre Col·legi de l'Advocacia de Girona", '17'],
  ['figueres', "Il·lustre Col·legi de l'Advocacia de Figueres", '17'],
  ['granada', "Ilustre Colegio de la Abogacía de Granada", '18'],
  ['guadalajara', "Ilustre Colegio de la Abogacía de Guadalajara", '19'],
  ['gipuzkoa', "Ilustre Colegio de la Abogacía de Gipuzkoa", '20'],
  ['huelva', "Ilustre Colegio de Abogados de Huelva", '21'],
  ['huesca', "Ilustre Colegio de Abogados de Huesca", '22'],
  ['jaen', "Ilustre Colegio de Abogados de Jaén", '23'],
  ['leon', "Ilustre Colegio de la Abogacía de León", '24'],
  ['lleida', "Il·lustre Col·legi de l'Advocacia de Lleida", '25'],
  ['la-rioja', "Ilustre Colegio de Abogados de La Rioja", '26'],
  ['lugo', "Ilustre Colegio Provincial de Abogados de Lugo", '27'],
  ['madrid', "Ilustre Colegio de la Abogacía de Madrid", '28'],
  ['alcala-de-henares', "Ilustre Colegio de Abogados de Alcalá de Henares", '28'],
  ['malaga', "Ilustre Colegio de Abogados de Málaga", '29'],
  ['murcia', "Ilustre Colegio de la Abogacía de Murcia", '30'],
  ['cartagena', "Ilustre Colegio de Abogados de Cartagena", '30'],
  ['lorca', "Ilustre Colegio de Abogados de Lorca", '30'],
  ['pamplona', "Muy Ilustre Colegio de la Abogacía de Pamplona", '31'],
  ['tudela', "Ilustre Colegio de Abogados de Tudela", '31'],
  ['estella', "Ilustre Colegio de Abogados de Estella", '31'],
  ['ourense', "Ilustre Colegio de Abogados de Ourense", '32'],
  ['oviedo', "Ilustre Colegio de la Abogacía de Oviedo", '33'],
  ['gijon', "Ilustre Colegio de la Abogacía de Gijón", '33'],
  ['palencia', "Ilustre Colegio de Abogados de Palencia", '34'],
  ['las-palmas', "Ilustre Colegio de la Abogacía de Las Palmas", '35'],
  ['lanzarote', "Ilustre Colegio de Abogados de Lanzarote", '35'],
  ['fuerteventura', "Ilustre Colegio de Abogados de Fuerteventura", '35'],
  ['pontevedra', "Ilustre Colegio de la Abogacía de Pontevedra", '36'],
  ['vigo', "Ilustre Colegio de la Abogacía de Vigo", '36'],
  ['salamanca', "Ilustre Colegio de Abogados de Salamanca", '37'],
  ['santa-cruz-de-tenerife', "Ilustre Colegio de la Abogacía de Santa Cruz de Tenerife", '38'],
  ['cantabria', "Ilustre Colegio de la Abogacía de Cantabria", '39'],
  ['segovia', "Ilustre Colegio de Abogados de Segovia", '40'],
  ['sevilla', "Real e Ilustre Colegio de Abogados de Sevilla", '41'],
  ['soria', "Ilustre Colegio de Abogados de Soria", '42'],
  ['tarragona', "Il·lustre Col·legi de l'Advocacia de Tarragona", '43'],
  ['reus', "Il·lustre Col·legi de l'Advocacia de Reus", '43'],
  ['tortosa', "Il·lustre Col·legi de l'Advocacia de Tortosa", '43'],
  ['teruel', "Ilustre Colegio de Abogados de Teruel", '44'],
  ['toledo', "Ilustre Colegio de la Abogacía de Toledo", '45'],
  ['talavera-de-la-reina', "Ilustre Colegio de Abogados de Talavera de la Reina", '45'],
  ['valencia', "Ilustre Colegio de Abogados de Valencia", '46'],
  ['alzira', "Ilustre Colegio de Abogados de Alzira", '46'],
  ['sueca', "Ilustre Colegio de Abogados de Sueca", '46'],
  ['ontinyent', "Ilustre Colegio de Abogados de Ontinyent", '46'],
  ['valladolid', "Ilustre Colegio de la Abogacía de Valladolid", '47'],
  ['bizkaia', "Ilustre Colegio de la Abogacía de Bizkaia", '48'],
  ['zamora', "Ilustre Colegio de Abogados de Zamora", '49'],
  ['zaragoza', "Real e Ilustre Colegio de Abogados de Zaragoza", '50'],
  ['ceuta', "Ilustre Colegio de la Abogacía de Ceuta", '51'],
  ['melilla', "Ilustre Colegio de Abogados de Melilla", '52'],
];

// Where a colegio's own website is well known; the operator's link to the census is a constant.
const WEBSITES: Record<string, string> = {
  madrid: 'https://web.icam.es/',
  barcelona: 'https://www.icab.cat/',
};

const YEAR_MS = 365 * 24 * 3_600_000;

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bar_associations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('province_code', 'text', (c) => c.notNull())
    .addColumn('website_url', 'text')
    .execute();
  await db
    .insertInto('bar_associations')
    .values(BAR_ASSOCIATIONS.map(([id, name, province_code]) => ({ id, name, province_code, website_url: WEBSITES[id] ?? null })))
    .execute();

  // Columns added to existing tables carry no REFERENCES: SQLite could not drop them again (down),
  // and the domain is the only writer of both (ids from reference data and from sign-in).
  await db.schema.alterTable('bar_memberships').addColumn('bar_association_id', 'text').execute();
  await db.schema.alterTable('bar_memberships').addColumn('membership_number', 'text').execute();
  await sql`update bar_memberships set bar_association_id = (select b.id from bar_associations b where b.name = bar_memberships.bar_name)`.execute(db);

  const lawyerColumns: Array<[string, 'text' | 'integer', (c: any) => any]> = [
    ['status', 'text', (c) => c.notNull().defaultTo('applied')],
    ['status_reason', 'text', (c) => c],
    ['user_id', 'text', (c) => c],
    ['hidden', 'integer', (c) => c.notNull().defaultTo(0)],
    ['consultation_minutes', 'integer', (c) => c.notNull().defaultTo(60)],
    ['video_url', 'text', (c) => c],
    ['offers_phone', 'integer', (c) => c.notNull().defaultTo(0)],
    ['office_address', 'text', (c) => c],
    ['min_notice_minutes', 'integer', (c) => c],
    ['buffer_minutes', 'integer', (c) => c.notNull().defaultTo(0)],
    ['horizon_days', 'integer', (c) => c.notNull().defaultTo(90)],
    // When her verification in force ends (materialised with `verified`): the expiry sweep finds
    // lawyers to unlist through a small partial index instead of reading every record.
    ['verified_until', 'text', (c) => c],
  ];
  for (const [name, type, build] of lawyerColumns) {
    await db.schema.alterTable('lawyers').addColumn(name, type, build).execute();
  }
  // One lawyer record per account; many lawyers have none (imported, or not yet signed in).
  await db.schema.createIndex('lawyers_user').on('lawyers').column('user_id').unique().execute();
  await db.schema.createIndex('lawyers_status').on('lawyers').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('lawyers_verified_until').on('lawyers').column('verified_until').where(sql<boolean>`verified = 1`).execute();

  await db.schema
    .createTable('lawyer_verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    // The membership verified (bar_memberships' key) and its colegio, when it is one of the 83;
    // null only for an imported lawyer vouched for without any membership.
    .addColumn('bar_name', 'text')
    .addColumn('bar_association_id', 'text', (c) => c.references('bar_associations.id'))
    .addColumn('membership_number', 'text')
    .addColumn('checked_census', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checked_colegio', 'integer', (c) => c.notNull().defaultTo(0))
    // `operator` (a person, by user id, or the command line when null) or `import`.
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('operator_user_id', 'text')
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('reminder_sent_at', 'text')
    .execute();
  await db.schema.createIndex('lawyer_verifications_lawyer').on('lawyer_verifications').columns(['lawyer_id', 'expires_at']).execute();
  // Reminders due: only records not yet reminded, so the sweep's range read stays tiny.
  await db.schema.createIndex('lawyer_verifications_unreminded').on('lawyer_verifications').column('expires_at').where(sql<boolean>`reminder_sent_at is null`).execute();

  // Existing lawyers: those verified become `verified` with a record per verified membership,
  // valid 12 months from now; the operator's former listing switch becomes `hidden`.
  const now = new Date();
  const nowIso = now.toISOString();
  const expiresIso = new Date(now.getTime() + YEAR_MS).toISOString();
  await sql`update lawyers set status = case when verified = 1 then 'verified' else 'applied' end, hidden = 1 - listed, offers_phone = 1`.execute(db);
  await sql`update lawyers set consultation_minutes = coalesce((select max(h.slot_minutes) from lawyer_weekly_hours h where h.lawyer_id = lawyers.id and h.slot_minutes in (30, 45, 60, 90)), 60)`.execute(db);
  const verifiedMemberships = await db
    .selectFrom('bar_memberships')
    .innerJoin('lawyers', 'lawyers.id', 'bar_memberships.lawyer_id')
    .select(['bar_memberships.lawyer_id', 'bar_memberships.bar_name', 'bar_memberships.bar_association_id'])
    .where('lawyers.verified', '=', 1)
    .where('bar_memberships.verified', '=', 1)
    .execute();
  for (let i = 0; i < verifiedMemberships.length; i += 500) {
    await db
      .insertInto('lawyer_verifications')
      .values(
        verifiedMemberships.slice(i, i + 500).map((m: any) => ({
          id: randomUUID(),
          lawyer_id: m.lawyer_id,
          bar_name: m.bar_name,
          bar_association_id: m.bar_association_id,
          membership_number: null,
          source: 'import',
          operator_user_id: null,
          note: 'verified before the lawyers\' side existed (0024-lawyers-side)',
          verified_at: nowIso,
          expires_at: expiresIso,
        })),
      )
      .execute();
  }
  await sql`update lawyers set verified_until = ${expiresIso} where verified = 1`.execute(db);
  // The listing rule at this moment (the domain recomputes it on every later change).
  await sql`update lawyers set listed = case when listed = 1 and verified = 1 and exists (select 1 from lawyer_practice_areas a where a.lawyer_id = lawyers.id) and exists (select 1 from lawyer_weekly_hours h where h.lawyer_id = lawyers.id) then 1 else 0 end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update lawyers set listed = 1 - hidden`.execute(db);
  await db.schema.dropTable('lawyer_verifications').ifExists().execute();
  await db.schema.dropIndex('lawyers_verified_until').ifExists().execute();
  await db.schema.dropIndex('lawyers_status').ifExists().execute();
  await db.schema.dropIndex('lawyers_user').ifExists().execute();
  for (const name of ['verified_until', 'horizon_days', 'buffer_minutes', 'min_notice_minutes', 'office_address', 'offers_phone', 'video_url', 'consultation_minutes', 'hidden', 'user_id', 'status_reason', 'status']) {
    await db.schema.alterTable('lawyers').dropColumn(name).execute();
  }
  await db.schema.alterTable('bar_memberships').dropColumn('membership_number').execute();
  await db.schema.alterTable('bar_memberships').dropColumn('bar_association_id').execute();
  await db.schema.dropTable('bar_associations').ifExists().execute();
}
