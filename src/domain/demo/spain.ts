/**
 * Reference geography for Spain: the 50 provinces plus the autonomous cities of Ceuta and Melilla,
 * the bar associations that sit in each, and a set of municipalities the demo directory draws from.
 * Populations are rounded and only steer how often a city is picked; they are not statistics.
 */

export interface ProvinceData {
  code: string;
  slug: string;
  name: string;
  autonomous_community: string;
  timezone: 'Europe/Madrid' | 'Atlantic/Canary';
  bars: string[];
}

export interface CityData {
  slug: string;
  name: string;
  province_code: string;
  population: number;
}

/** URL-safe ASCII slug: accents stripped, apostrophes and middle dots dropped, other separators become '-'. */
export function toSlug(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    // "L'Hospitalet" and "Col·legi" read as one word in Catalan, so the joiners vanish rather than split.
    .replace(/['’·]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

type ProvinceRow = [code: string, name: string, community: string, bars: string[]];

const AND = 'Andalucía';
const ARA = 'Aragón';
const AST = 'Principado de Asturias';
const BAL = 'Illes Balears';
const CAN = 'Canarias';
const CTB = 'Cantabria';
const CYL = 'Castilla y León';
const CLM = 'Castilla-La Mancha';
const CAT = 'Cataluña';
const VAL = 'Comunitat Valenciana';
const EXT = 'Extremadura';
const GAL = 'Galicia';
const MAD = 'Comunidad de Madrid';
const MUR = 'Región de Murcia';
const NAV = 'Comunidad Foral de Navarra';
const PVA = 'País Vasco';
const RIO = 'La Rioja';

// Catalan bars use their Catalan official names; everywhere else the Spanish form is the one on the letterhead.
const icab = (town: string): string => `Il·lustre Col·legi de l'Advocacia de ${town}`;

const PROVINCE_ROWS: ProvinceRow[] = [
  ['01', 'Álava', PVA, ['Ilustre Colegio de la Abogacía de Álava']],
  ['02', 'Albacete', CLM, ['Ilustre Colegio de la Abogacía de Albacete']],
  [
    '03',
    'Alicante',
    VAL,
    [
      'Ilustre Colegio de la Abogacía de Alicante',
      'Ilustre Colegio de Abogados de Alcoy',
      'Ilustre Colegio de Abogados de Elche',
      'Ilustre Colegio de Abogados de Orihuela',
    ],
  ],
  ['04', 'Almería', AND, ['Ilustre Colegio de Abogados de Almería']],
  ['05', 'Ávila', CYL, ['Ilustre Colegio de Abogados de Ávila']],
  ['06', 'Badajoz', EXT, ['Ilustre Colegio de Abogados de Badajoz']],
  ['07', 'Illes Balears', BAL, ['Ilustre Colegio de la Abogacía de las Illes Balears']],
  [
    '08',
    'Barcelona',
    CAT,
    [
      icab('Barcelona'),
      icab('Terrassa'),
      icab('Sabadell'),
      icab('Mataró'),
      icab('Manresa'),
      icab('Granollers'),
      icab('Sant Feliu de Llobregat'),
      icab('Vic'),
    ],
  ],
  ['09', 'Burgos', CYL, ['Ilustre Colegio de la Abogacía de Burgos']],
  ['10', 'Cáceres', EXT, ['Ilustre Colegio de Abogados de Cáceres']],
  [
    '11',
    'Cádiz',
    AND,
    [
      'Ilustre Colegio de la Abogacía de Cádiz',
      'Ilustre Colegio de Abogados de Jerez de la Frontera',
      'Ilustre Colegio de Abogados del Campo de Gibraltar',
    ],
  ],
  ['12', 'Castellón', VAL, ['Ilustre Colegio de Abogados de Castellón']],
  ['13', 'Ciudad Real', CLM, ['Ilustre Colegio de la Abogacía de Ciudad Real']],
  ['14', 'Córdoba', AND, ['Ilustre Colegio de la Abogacía de Córdoba', 'Ilustre Colegio de Abogados de Lucena']],
  [
    '15',
    'A Coruña',
    GAL,
    [
      'Ilustre Colegio Provincial de Abogados de A Coruña',
      'Ilustre Colegio de Abogados de Santiago de Compostela',
      'Ilustre Colegio de Abogados de Ferrol',
    ],
  ],
  ['16', 'Cuenca', CLM, ['Ilustre Colegio de Abogados de Cuenca']],
  ['17', 'Girona', CAT, [icab('Girona'), icab('Figueres')]],
  ['18', 'Granada', AND, ['Ilustre Colegio de la Abogacía de Granada']],
  ['19', 'Guadalajara', CLM, ['Ilustre Colegio de la Abogacía de Guadalajara']],
  ['20', 'Gipuzkoa', PVA, ['Ilustre Colegio de la Abogacía de Gipuzkoa']],
  ['21', 'Huelva', AND, ['Ilustre Colegio de Abogados de Huelva']],
  ['22', 'Huesca', ARA, ['Ilustre Colegio de Abogados de Huesca']],
  ['23', 'Jaén', AND, ['Ilustre Colegio de Abogados de Jaén']],
  ['24', 'León', CYL, ['Ilustre Colegio de la Abogacía de León']],
  ['25', 'Lleida', CAT, [icab('Lleida')]],
  ['26', 'La Rioja', RIO, ['Ilustre Colegio de Abogados de La Rioja']],
  ['27', 'Lugo', GAL, ['Ilustre Colegio Provincial de Abogados de Lugo']],
  ['28', 'Madrid', MAD, ['Ilustre Colegio de la Abogacía de Madrid', 'Ilustre Colegio de Abogados de Alcalá de Henares']],
  ['29', 'Málaga', AND, ['Ilustre Colegio de Abogados de Málaga']],
  [
    '30',
    'Murcia',
    MUR,
    [
      'Ilustre Colegio de la Abogacía de Murcia',
      'Ilustre Colegio de Abogados de Cartagena',
      'Ilustre Colegio de Abogados de Lorca',
    ],
  ],
  [
    '31',
    'Navarra',
    NAV,
    [
      'Muy Ilustre Colegio de la Abogacía de Pamplona',
      'Ilustre Colegio de Abogados de Tudela',
      'Ilustre Colegio de Abogados de Estella',
    ],
  ],
  ['32', 'Ourense', GAL, ['Ilustre Colegio de Abogados de Ourense']],
  ['33', 'Asturias', AST, ['Ilustre Colegio de la Abogacía de Oviedo', 'Ilustre Colegio de la Abogacía de Gijón']],
  ['34', 'Palencia', CYL, ['Ilustre Colegio de Abogados de Palencia']],
  [
    '35',
    'Las Palmas',
    CAN,
    [
      'Ilustre Colegio de la Abogacía de Las Palmas',
      'Ilustre Colegio de Abogados de Lanzarote',
      'Ilustre Colegio de Abogados de Fuerteventura',
    ],
  ],
  ['36', 'Pontevedra', GAL, ['Ilustre Colegio de la Abogacía de Pontevedra', 'Ilustre Colegio de la Abogacía de Vigo']],
  ['37', 'Salamanca', CYL, ['Ilustre Colegio de Abogados de Salamanca']],
  ['38', 'Santa Cruz de Tenerife', CAN, ['Ilustre Colegio de la Abogacía de Santa Cruz de Tenerife']],
  ['39', 'Cantabria', CTB, ['Ilustre Colegio de la Abogacía de Cantabria']],
  ['40', 'Segovia', CYL, ['Ilustre Colegio de Abogados de Segovia']],
  ['41', 'Sevilla', AND, ['Real e Ilustre Colegio de Abogados de Sevilla']],
  ['42', 'Soria', CYL, ['Ilustre Colegio de Abogados de Soria']],
  ['43', 'Tarragona', CAT, [icab('Tarragona'), icab('Reus'), icab('Tortosa')]],
  ['44', 'Teruel', ARA, ['Ilustre Colegio de Abogados de Teruel']],
  [
    '45',
    'Toledo',
    CLM,
    ['Ilustre Colegio de la Abogacía de Toledo', 'Ilustre Colegio de Abogados de Talavera de la Reina'],
  ],
  [
    '46',
    'Valencia',
    VAL,
    [
      'Ilustre Colegio de Abogados de Valencia',
      'Ilustre Colegio de Abogados de Alzira',
      'Ilustre Colegio de Abogados de Sueca',
      'Ilustre Colegio de Abogados de Ontinyent',
    ],
  ],
  ['47', 'Valladolid', CYL, ['Ilustre Colegio de la Abogacía de Valladolid']],
  ['48', 'Bizkaia', PVA, ['Ilustre Colegio de la Abogacía de Bizkaia']],
  ['49', 'Zamora', CYL, ['Ilustre Colegio de Abogados de Zamora']],
  ['50', 'Zaragoza', ARA, ['Real e Ilustre Colegio de Abogados de Zaragoza']],
  ['51', 'Ceuta', 'Ceuta', ['Ilustre Colegio de la Abogacía de Ceuta']],
  ['52', 'Melilla', 'Melilla', ['Ilustre Colegio de Abogados de Melilla']],
];

const CANARY_PROVINCES = new Set(['35', '38']);

export const PROVINCES: readonly ProvinceData[] = Object.freeze(
  PROVINCE_ROWS.map(([code, name, community, bars]) => ({
    code,
    slug: toSlug(name),
    name,
    autonomous_community: community,
    timezone: CANARY_PROVINCES.has(code) ? ('Atlantic/Canary' as const) : ('Europe/Madrid' as const),
    bars,
  })),
);

// Grouped by province code; the list leans on the municipalities with the largest foreign-resident
// populations (metropolitan Madrid and Barcelona, the Mediterranean coast, Almería's greenhouse belt,
// the islands), with at least one town in every province so the whole country is searchable.
const CITY_ROWS: Record<string, Array<[name: string, population: number]>> = {
  '01': [['Vitoria-Gasteiz', 255_000], ['Llodio', 18_000], ['Amurrio', 10_000]],
  '02': [['Albacete', 174_000], ['Hellín', 30_000], ['Villarrobledo', 25_000], ['Almansa', 24_000]],
  '03': [
    ['Alicante', 350_000],
    ['Elche', 235_000],
    ['Torrevieja', 84_000],
    ['Orihuela', 80_000],
    ['Benidorm', 73_000],
    ['Alcoy', 60_000],
    ['San Vicente del Raspeig', 59_000],
    ['Elda', 53_000],
    ['Dénia', 45_000],
    ['Santa Pola', 34_000],
    ['Villena', 34_000],
    ['Jávea', 28_000],
    ['Pilar de la Horadada', 23_000],
    ['Calpe', 24_000],
    ['Altea', 22_000],
    ['Almoradí', 21_000],
    ['Rojales', 17_000],
  ],
  '04': [
    ['Almería', 200_000],
    ['Roquetas de Mar', 103_000],
    ['El Ejido', 85_000],
    ['Níjar', 32_000],
    ['Vícar', 27_000],
    ['Adra', 25_000],
    ['Huércal-Overa', 20_000],
    ['Vera', 17_000],
    ['La Mojonera', 9_000],
  ],
  '05': [['Ávila', 58_000], ['Arévalo', 8_000]],
  '06': [
    ['Badajoz', 150_000],
    ['Mérida', 60_000],
    ['Don Benito', 38_000],
    ['Almendralejo', 34_000],
    ['Villanueva de la Serena', 25_000],
    ['Zafra', 17_000],
  ],
  '07': [
    ['Palma', 420_000],
    ['Calvià', 51_000],
    ['Ibiza', 51_000],
    ['Manacor', 45_000],
    ['Santa Eulària des Riu', 41_000],
    ['Llucmajor', 39_000],
    ['Marratxí', 39_000],
    ['Inca', 34_000],
    ['Ciutadella de Menorca', 31_000],
    ['Mahón', 30_000],
  ],
  '08': [
    ['Barcelona', 1_660_000],
    ["L'Hospitalet de Llobregat", 274_000],
    ['Terrassa', 224_000],
    ['Badalona', 223_000],
    ['Sabadell', 216_000],
    ['Mataró', 129_000],
    ['Santa Coloma de Gramenet', 120_000],
    ['Sant Cugat del Vallès', 93_000],
    ['Cornellà de Llobregat', 89_000],
    ['Sant Boi de Llobregat', 84_000],
    ['Rubí', 79_000],
    ['Manresa', 78_000],
    ['Vilanova i la Geltrú', 68_000],
    ['Viladecans', 67_000],
    ['Castelldefels', 67_000],
    ['El Prat de Llobregat', 65_000],
    ['Granollers', 62_000],
    ['Cerdanyola del Vallès', 58_000],
    ['Mollet del Vallès', 51_000],
    ['Vic', 47_000],
    ['Sant Feliu de Llobregat', 45_000],
    ['Igualada', 41_000],
  ],
  '09': [['Burgos', 174_000], ['Miranda de Ebro', 35_000], ['Aranda de Duero', 33_000]],
  '10': [['Cáceres', 96_000], ['Plasencia', 39_000], ['Navalmoral de la Mata', 17_000], ['Coria', 12_000]],
  '11': [
    ['Jerez de la Frontera', 213_000],
    ['Algeciras', 123_000],
    ['Cádiz', 112_000],
    ['San Fernando', 94_000],
    ['El Puerto de Santa María', 89_000],
    ['Chiclana de la Frontera', 87_000],
    ['Sanlúcar de Barrameda', 69_000],
    ['La Línea de la Concepción', 63_000],
  ],
  '12': [
    ['Castellón de la Plana', 175_000],
    ['Vila-real', 51_000],
    ['Burriana', 35_000],
    ["La Vall d'Uixó", 31_000],
    ['Vinaròs', 29_000],
    ['Benicarló', 27_000],
  ],
  '13': [
    ['Ciudad Real', 75_000],
    ['Puertollano', 46_000],
    ['Tomelloso', 36_000],
    ['Alcázar de San Juan', 31_000],
    ['Valdepeñas', 30_000],
  ],
  '14': [['Córdoba', 320_000], ['Lucena', 42_000], ['Puente Genil', 30_000], ['Palma del Río', 21_000]],
  '15': [
    ['A Coruña', 247_000],
    ['Santiago de Compostela', 98_000],
    ['Ferrol', 64_000],
    ['Narón', 39_000],
    ['Oleiros', 37_000],
    ['Arteixo', 33_000],
    ['Carballo', 31_000],
  ],
  '16': [['Cuenca', 54_000], ['Tarancón', 16_000]],
  '17': [
    ['Girona', 103_000],
    ['Figueres', 47_000],
    ['Blanes', 40_000],
    ['Lloret de Mar', 40_000],
    ['Olot', 36_000],
    ['Salt', 33_000],
    ['Palafrugell', 23_000],
  ],
  '18': [['Granada', 230_000], ['Motril', 59_000], ['Almuñécar', 27_000], ['Armilla', 25_000], ['Baza', 20_000]],
  '19': [['Guadalajara', 88_000], ['Azuqueca de Henares', 36_000], ['Cabanillas del Campo', 11_000]],
  '20': [['San Sebastián', 188_000], ['Irun', 62_000], ['Errenteria', 39_000], ['Eibar', 27_000], ['Zarautz', 23_000]],
  '21': [
    ['Huelva', 143_000],
    ['Lepe', 28_000],
    ['Almonte', 25_000],
    ['Moguer', 22_000],
    ['Cartaya', 21_000],
    ['Isla Cristina', 21_000],
    ['Palos de la Frontera', 12_000],
  ],
  '22': [['Huesca', 53_000], ['Monzón', 17_000], ['Barbastro', 17_000], ['Fraga', 15_000]],
  '23': [['Jaén', 111_000], ['Linares', 56_000], ['Andújar', 36_000], ['Úbeda', 34_000], ['Martos', 24_000]],
  '24': [['León', 120_000], ['Ponferrada', 63_000], ['San Andrés del Rabanedo', 30_000], ['Astorga', 10_000]],
  '25': [['Lleida', 140_000], ['Balaguer', 17_000], ['Tàrrega', 17_000], ['Mollerussa', 15_000]],
  '26': [['Logroño', 152_000], ['Calahorra', 25_000], ['Arnedo', 15_000], ['Haro', 11_000]],
  '27': [['Lugo', 98_000], ['Monforte de Lemos', 18_000], ['Viveiro', 15_000]],
  '28': [
    ['Madrid', 3_330_000],
    ['Móstoles', 210_000],
    ['Alcalá de Henares', 197_000],
    ['Fuenlabrada', 192_000],
    ['Leganés', 189_000],
    ['Getafe', 185_000],
    ['Alcorcón', 172_000],
    ['Torrejón de Ardoz', 133_000],
    ['Parla', 133_000],
    ['Alcobendas', 118_000],
    ['Rivas-Vaciamadrid', 96_000],
    ['Las Rozas de Madrid', 96_000],
    ['San Sebastián de los Reyes', 91_000],
    ['Pozuelo de Alarcón', 87_000],
    ['Coslada', 81_000],
    ['Valdemoro', 78_000],
    ['Majadahonda', 72_000],
    ['Collado Villalba', 65_000],
    ['Boadilla del Monte', 61_000],
    ['Aranjuez', 60_000],
    ['Arganda del Rey', 57_000],
    ['Pinto', 54_000],
    ['Colmenar Viejo', 52_000],
    ['Tres Cantos', 49_000],
  ],
  '29': [
    ['Málaga', 580_000],
    ['Marbella', 150_000],
    ['Mijas', 90_000],
    ['Vélez-Málaga', 83_000],
    ['Fuengirola', 83_000],
    ['Estepona', 72_000],
    ['Benalmádena', 70_000],
    ['Torremolinos', 69_000],
    ['Rincón de la Victoria', 50_000],
    ['Alhaurín de la Torre', 42_000],
    ['Antequera', 41_000],
    ['Ronda', 34_000],
    ['Nerja', 21_000],
  ],
  '30': [
    ['Murcia', 470_000],
    ['Cartagena', 218_000],
    ['Lorca', 97_000],
    ['Molina de Segura', 75_000],
    ['Torre-Pacheco', 38_000],
    ['Águilas', 36_000],
    ['Cieza', 35_000],
    ['Yecla', 35_000],
    ['San Javier', 33_000],
    ['Mazarrón', 33_000],
    ['Totana', 33_000],
    ['Jumilla', 26_000],
    ['Alhama de Murcia', 23_000],
  ],
  '31': [
    ['Pamplona', 205_000],
    ['Tudela', 37_000],
    ['Barañáin', 20_000],
    ['Burlada', 19_000],
    ['Estella-Lizarra', 14_000],
    ['Tafalla', 11_000],
  ],
  '32': [['Ourense', 104_000], ['Verín', 14_000], ['O Barco de Valdeorras', 13_000]],
  '33': [['Gijón', 268_000], ['Oviedo', 218_000], ['Avilés', 76_000], ['Siero', 52_000], ['Langreo', 38_000], ['Mieres', 37_000]],
  '34': [['Palencia', 78_000], ['Aguilar de Campoo', 7_000]],
  '35': [
    ['Las Palmas de Gran Canaria', 380_000],
    ['Telde', 102_000],
    ['Santa Lucía de Tirajana', 75_000],
    ['Arrecife', 64_000],
    ['San Bartolomé de Tirajana', 54_000],
    ['Puerto del Rosario', 42_000],
    ['Arucas', 39_000],
    ['Ingenio', 32_000],
    ['Agüimes', 32_000],
    ['La Oliva', 28_000],
    ['Mogán', 20_000],
    ['Tías', 20_000],
  ],
  '36': [
    ['Vigo', 293_000],
    ['Pontevedra', 83_000],
    ['Vilagarcía de Arousa', 37_000],
    ['Redondela', 29_000],
    ['Cangas', 27_000],
    ['Marín', 24_000],
  ],
  '37': [['Salamanca', 142_000], ['Santa Marta de Tormes', 15_000], ['Béjar', 12_000]],
  '38': [
    ['Santa Cruz de Tenerife', 209_000],
    ['San Cristóbal de La Laguna', 158_000],
    ['Arona', 82_000],
    ['Granadilla de Abona', 53_000],
    ['Adeje', 48_000],
    ['La Orotava', 42_000],
    ['Los Realejos', 37_000],
    ['Puerto de la Cruz', 30_000],
    ['Los Llanos de Aridane', 21_000],
    ['San Sebastián de La Gomera', 9_000],
  ],
  '39': [['Santander', 172_000], ['Torrelavega', 51_000], ['Castro-Urdiales', 32_000], ['Camargo', 31_000], ['Laredo', 11_000]],
  '40': [['Segovia', 51_000], ['Cuéllar', 9_000], ['El Espinar', 9_000]],
  '41': [
    ['Sevilla', 685_000],
    ['Dos Hermanas', 136_000],
    ['Alcalá de Guadaíra', 76_000],
    ['Utrera', 52_000],
    ['Mairena del Aljarafe', 47_000],
    ['Écija', 39_000],
    ['Lebrija', 27_000],
  ],
  '42': [['Soria', 40_000], ['Almazán', 5_500]],
  '43': [
    ['Tarragona', 136_000],
    ['Reus', 106_000],
    ['El Vendrell', 38_000],
    ['Cambrils', 35_000],
    ['Tortosa', 34_000],
    ['Salou', 28_000],
    ['Valls', 25_000],
    ['Amposta', 21_000],
  ],
  '44': [['Teruel', 36_000], ['Alcañiz', 16_000]],
  '45': [
    ['Toledo', 86_000],
    ['Talavera de la Reina', 83_000],
    ['Illescas', 31_000],
    ['Seseña', 27_000],
    ['Torrijos', 13_000],
  ],
  '46': [
    ['Valencia', 800_000],
    ['Torrent', 85_000],
    ['Gandia', 76_000],
    ['Paterna', 71_000],
    ['Sagunto', 68_000],
    ['Alzira', 45_000],
    ['Mislata', 44_000],
    ['Burjassot', 39_000],
    ['Ontinyent', 35_000],
    ['Sueca', 29_000],
    ['Xàtiva', 29_000],
  ],
  '47': [['Valladolid', 298_000], ['Laguna de Duero', 22_000], ['Medina del Campo', 20_000]],
  '48': [
    ['Bilbao', 345_000],
    ['Barakaldo', 101_000],
    ['Getxo', 77_000],
    ['Portugalete', 45_000],
    ['Santurtzi', 45_000],
    ['Basauri', 40_000],
    ['Leioa', 32_000],
    ['Durango', 30_000],
    ['Sestao', 27_000],
  ],
  '49': [['Zamora', 60_000], ['Benavente', 18_000], ['Toro', 8_000]],
  '50': [
    ['Zaragoza', 680_000],
    ['Calatayud', 20_000],
    ['Utebo', 19_000],
    ['Ejea de los Caballeros', 17_000],
    ['Caspe', 10_000],
  ],
  '51': [['Ceuta', 83_000]],
  '52': [['Melilla', 85_000]],
};

// Iterate provinces, not Object.entries: keys such as '10' are integer-like and would be reordered ahead of '01'.
export const CITIES: readonly CityData[] = Object.freeze(
  PROVINCES.flatMap((province) =>
    (CITY_ROWS[province.code] ?? []).map(([name, population]) => ({
      slug: toSlug(name),
      name,
      province_code: province.code,
      population,
    })),
  ),
);

const provinceIndex = new Map(PROVINCES.map((p) => [p.code, p]));
const cityIndex = new Map(CITIES.map((c) => [c.slug, c]));

/** The province with this INE code, if any. */
export function provinceByCode(code: string): ProvinceData | undefined {
  return provinceIndex.get(code);
}

/** The city with this slug, if any. */
export function cityBySlug(slug: string): CityData | undefined {
  return cityIndex.get(slug);
}
