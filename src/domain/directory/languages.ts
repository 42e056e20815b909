/**
 * ISO 639-1 language registry and the resolver used by search: clients may send a code ("ar"), an
 * English name ("Arabic"), a Spanish name ("árabe") or the language's own name ("العربية").
 */

export interface Language {
  code: string;
  name: string;
  native: string;
  es: string;
}

type LanguageRow = [code: string, name: string, native: string, es: string];

const ROWS: LanguageRow[] = [
  ['aa', 'Afar', 'Qafaraf', 'afar'],
  ['ab', 'Abkhazian', 'аҧсуа бызшәа', 'abjasio'],
  ['ae', 'Avestan', 'avesta', 'avéstico'],
  ['af', 'Afrikaans', 'Afrikaans', 'afrikáans'],
  ['ak', 'Akan', 'Akan', 'akan'],
  ['am', 'Amharic', 'አማርኛ', 'amárico'],
  ['an', 'Aragonese', 'aragonés', 'aragonés'],
  ['ar', 'Arabic', 'العربية', 'árabe'],
  ['as', 'Assamese', 'অসমীয়া', 'asamés'],
  ['av', 'Avaric', 'авар мацӀ', 'avar'],
  ['ay', 'Aymara', 'aymar aru', 'aimara'],
  ['az', 'Azerbaijani', 'azərbaycan dili', 'azerí'],
  ['ba', 'Bashkir', 'башҡорт теле', 'baskir'],
  ['be', 'Belarusian', 'беларуская мова', 'bielorruso'],
  ['bg', 'Bulgarian', 'български език', 'búlgaro'],
  ['bh', 'Bihari languages', 'भोजपुरी', 'lenguas biharis'],
  ['bi', 'Bislama', 'Bislama', 'bislama'],
  ['bm', 'Bambara', 'bamanankan', 'bambara'],
  ['bn', 'Bengali', 'বাংলা', 'bengalí'],
  ['bo', 'Tibetan', 'བོད་ཡིག', 'tibetano'],
  ['br', 'Breton', 'brezhoneg', 'bretón'],
  ['bs', 'Bosnian', 'bosanski jezik', 'bosnio'],
  ['ca', 'Catalan', 'català', 'catalán'],
  ['ce', 'Chechen', 'нохчийн мотт', 'checheno'],
  ['ch', 'Chamorro', 'Chamoru', 'chamorro'],
  ['co', 'Corsican', 'corsu', 'corso'],
  ['cr', 'Cree', 'ᓀᐦᐃᔭᐍᐏᐣ', 'cree'],
  ['cs', 'Czech', 'čeština', 'checo'],
  ['cu', 'Church Slavic', 'ѩзыкъ словѣньскъ', 'eslavo eclesiástico'],
  ['cv', 'Chuvash', 'чӑваш чӗлхи', 'chuvasio'],
  ['cy', 'Welsh', 'Cymraeg', 'galés'],
  ['da', 'Danish', 'dansk', 'danés'],
  ['de', 'German', 'Deutsch', 'alemán'],
  ['dv', 'Divehi', 'ދިވެހި', 'divehi'],
  ['dz', 'Dzongkha', 'རྫོང་ཁ', 'dzongkha'],
  ['ee', 'Ewe', 'Eʋegbe', 'ewe'],
  ['el', 'Greek', 'Ελληνικά', 'griego'],
  ['en', 'English', 'English', 'inglés'],
  ['eo', 'Esperanto', 'Esperanto', 'esperanto'],
  ['es', 'Spanish', 'español', 'español'],
  ['et', 'Estonian', 'eesti', 'estonio'],
  ['eu', 'Basque', 'euskara', 'euskera'],
  ['fa', 'Persian', 'فارسی', 'persa'],
  ['ff', 'Fulah', 'Fulfulde', 'fula'],
  ['fi', 'Finnish', 'suomi', 'finés'],
  ['fj', 'Fijian', 'vosa Vakaviti', 'fiyiano'],
  ['fo', 'Faroese', 'føroyskt', 'feroés'],
  ['fr', 'French', 'français', 'francés'],
  ['fy', 'Western Frisian', 'Frysk', 'frisón'],
  ['ga', 'Irish', 'Gaeilge', 'irlandés'],
  ['gd', 'Scottish Gaelic', 'Gàidhlig', 'gaélico escocés'],
  ['gl', 'Galician', 'galego', 'gallego'],
  ['gn', 'Guarani', "Avañe'ẽ", 'guaraní'],
  ['gu', 'Gujarati', 'ગુજરાતી', 'guyaratí'],
  ['gv', 'Manx', 'Gaelg', 'manés'],
  ['ha', 'Hausa', 'Harshen Hausa', 'hausa'],
  ['he', 'Hebrew', 'עברית', 'hebreo'],
  ['hi', 'Hindi', 'हिन्दी', 'hindi'],
  ['ho', 'Hiri Motu', 'Hiri Motu', 'hiri motu'],
  ['hr', 'Croatian', 'hrvatski jezik', 'croata'],
  ['ht', 'Haitian Creole', 'Kreyòl ayisyen', 'criollo haitiano'],
  ['hu', 'Hungarian', 'magyar', 'húngaro'],
  ['hy', 'Armenian', 'Հայերեն', 'armenio'],
  ['hz', 'Herero', 'Otjiherero', 'herero'],
  ['ia', 'Interlingua', 'Interlingua', 'interlingua'],
  ['id', 'Indonesian', 'Bahasa Indonesia', 'indonesio'],
  ['ie', 'Interlingue', 'Interlingue', 'interlingue'],
  ['ig', 'Igbo', 'Asụsụ Igbo', 'igbo'],
  ['ii', 'Sichuan Yi', 'ꆈꌠ꒿ Nuosuhxop', 'yi de Sichuán'],
  ['ik', 'Inupiaq', 'Iñupiaq', 'inupiaq'],
  ['io', 'Ido', 'Ido', 'ido'],
  ['is', 'Icelandic', 'íslenska', 'islandés'],
  ['it', 'Italian', 'italiano', 'italiano'],
  ['iu', 'Inuktitut', 'ᐃᓄᒃᑎᑐᑦ', 'inuktitut'],
  ['ja', 'Japanese', '日本語', 'japonés'],
  ['jv', 'Javanese', 'basa Jawa', 'javanés'],
  ['ka', 'Georgian', 'ქართული', 'georgiano'],
  ['kg', 'Kongo', 'Kikongo', 'kikongo'],
  ['ki', 'Kikuyu', 'Gĩkũyũ', 'kikuyu'],
  ['kj', 'Kuanyama', 'Kuanyama', 'kuanyama'],
  ['kk', 'Kazakh', 'қазақ тілі', 'kazajo'],
  ['kl', 'Kalaallisut', 'kalaallisut', 'groenlandés'],
  ['km', 'Khmer', 'ខ្មែរ', 'jemer'],
  ['kn', 'Kannada', 'ಕನ್ನಡ', 'canarés'],
  ['ko', 'Korean', '한국어', 'coreano'],
  ['kr', 'Kanuri', 'Kanuri', 'kanuri'],
  ['ks', 'Kashmiri', 'कॉशुर', 'cachemir'],
  ['ku', 'Kurdish', 'Kurdî', 'kurdo'],
  ['kv', 'Komi', 'коми кыв', 'komi'],
  ['kw', 'Cornish', 'Kernewek', 'córnico'],
  ['ky', 'Kyrgyz', 'Кыргызча', 'kirguís'],
  ['la', 'Latin', 'latine', 'latín'],
  ['lb', 'Luxembourgish', 'Lëtzebuergesch', 'luxemburgués'],
  ['lg', 'Ganda', 'Luganda', 'luganda'],
  ['li', 'Limburgish', 'Limburgs', 'limburgués'],
  ['ln', 'Lingala', 'Lingála', 'lingala'],
  ['lo', 'Lao', 'ພາສາລາວ', 'lao'],
  ['lt', 'Lithuanian', 'lietuvių kalba', 'lituano'],
  ['lu', 'Luba-Katanga', 'Kiluba', 'luba-katanga'],
  ['lv', 'Latvian', 'latviešu valoda', 'letón'],
  ['mg', 'Malagasy', 'fiteny malagasy', 'malgache'],
  ['mh', 'Marshallese', 'Kajin M̧ajeļ', 'marshalés'],
  ['mi', 'Maori', 'te reo Māori', 'maorí'],
  ['mk', 'Macedonian', 'македонски јазик', 'macedonio'],
  ['ml', 'Malayalam', 'മലയാളം', 'malayalam'],
  ['mn', 'Mongolian', 'Монгол хэл', 'mongol'],
  ['mr', 'Marathi', 'मराठी', 'maratí'],
  ['ms', 'Malay', 'Bahasa Melayu', 'malayo'],
  ['mt', 'Maltese', 'Malti', 'maltés'],
  ['my', 'Burmese', 'ဗမာစာ', 'birmano'],
  ['na', 'Nauru', 'Dorerin Naoero', 'nauruano'],
  ['nb', 'Norwegian Bokmål', 'norsk bokmål', 'noruego bokmal'],
  ['nd', 'North Ndebele', 'isiNdebele', 'ndebele del norte'],
  ['ne', 'Nepali', 'नेपाली', 'nepalí'],
  ['ng', 'Ndonga', 'Owambo', 'ndonga'],
  ['nl', 'Dutch', 'Nederlands', 'neerlandés'],
  ['nn', 'Norwegian Nynorsk', 'norsk nynorsk', 'noruego nynorsk'],
  ['no', 'Norwegian', 'norsk', 'noruego'],
  ['nr', 'South Ndebele', 'isiNdebele seSewula', 'ndebele del sur'],
  ['nv', 'Navajo', 'Diné bizaad', 'navajo'],
  ['ny', 'Chichewa', 'chiCheŵa', 'chichewa'],
  ['oc', 'Occitan', 'occitan', 'occitano'],
  ['oj', 'Ojibwe', 'ᐊᓂᔑᓈᐯᒧᐎᓐ', 'ojibwa'],
  ['om', 'Oromo', 'Afaan Oromoo', 'oromo'],
  ['or', 'Oriya', 'ଓଡ଼ିଆ', 'oriya'],
  ['os', 'Ossetian', 'ирон æвзаг', 'osético'],
  ['pa', 'Punjabi', 'ਪੰਜਾਬੀ', 'panyabí'],
  ['pi', 'Pali', 'पाऴि', 'pali'],
  ['pl', 'Polish', 'polski', 'polaco'],
  ['ps', 'Pashto', 'پښتو', 'pastún'],
  ['pt', 'Portuguese', 'português', 'portugués'],
  ['qu', 'Quechua', 'Runa Simi', 'quechua'],
  ['rm', 'Romansh', 'rumantsch grischun', 'romanche'],
  ['rn', 'Kirundi', 'Ikirundi', 'kirundi'],
  ['ro', 'Romanian', 'română', 'rumano'],
  ['ru', 'Russian', 'русский', 'ruso'],
  ['rw', 'Kinyarwanda', 'Ikinyarwanda', 'kinyarwanda'],
  ['sa', 'Sanskrit', 'संस्कृतम्', 'sánscrito'],
  ['sc', 'Sardinian', 'sardu', 'sardo'],
  ['sd', 'Sindhi', 'सिन्धी', 'sindi'],
  ['se', 'Northern Sami', 'Davvisámegiella', 'sami septentrional'],
  ['sg', 'Sango', 'yângâ tî sängö', 'sango'],
  ['si', 'Sinhala', 'සිංහල', 'cingalés'],
  ['sk', 'Slovak', 'slovenčina', 'eslovaco'],
  ['sl', 'Slovenian', 'slovenščina', 'esloveno'],
  ['sm', 'Samoan', "gagana fa'a Samoa", 'samoano'],
  ['sn', 'Shona', 'chiShona', 'shona'],
  ['so', 'Somali', 'Soomaaliga', 'somalí'],
  ['sq', 'Albanian', 'shqip', 'albanés'],
  ['sr', 'Serbian', 'српски језик', 'serbio'],
  ['ss', 'Swati', 'SiSwati', 'suazi'],
  ['st', 'Southern Sotho', 'Sesotho', 'sesotho'],
  ['su', 'Sundanese', 'Basa Sunda', 'sundanés'],
  ['sv', 'Swedish', 'svenska', 'sueco'],
  ['sw', 'Swahili', 'Kiswahili', 'suajili'],
  ['ta', 'Tamil', 'தமிழ்', 'tamil'],
  ['te', 'Telugu', 'తెలుగు', 'telugu'],
  ['tg', 'Tajik', 'тоҷикӣ', 'tayiko'],
  ['th', 'Thai', 'ไทย', 'tailandés'],
  ['ti', 'Tigrinya', 'ትግርኛ', 'tigriña'],
  ['tk', 'Turkmen', 'Türkmençe', 'turcomano'],
  ['tl', 'Tagalog', 'Wikang Tagalog', 'tagalo'],
  ['tn', 'Tswana', 'Setswana', 'setsuana'],
  ['to', 'Tongan', 'faka Tonga', 'tongano'],
  ['tr', 'Turkish', 'Türkçe', 'turco'],
  ['ts', 'Tsonga', 'Xitsonga', 'tsonga'],
  ['tt', 'Tatar', 'татар теле', 'tártaro'],
  ['tw', 'Twi', 'Twi', 'twi'],
  ['ty', 'Tahitian', 'Reo Tahiti', 'tahitiano'],
  ['ug', 'Uyghur', 'ئۇيغۇرچە', 'uigur'],
  ['uk', 'Ukrainian', 'українська', 'ucraniano'],
  ['ur', 'Urdu', 'اردو', 'urdu'],
  ['uz', 'Uzbek', 'Oʻzbek', 'uzbeko'],
  ['ve', 'Venda', 'Tshivenḓa', 'venda'],
  ['vi', 'Vietnamese', 'Tiếng Việt', 'vietnamita'],
  ['vo', 'Volapük', 'Volapük', 'volapük'],
  ['wa', 'Walloon', 'walon', 'valón'],
  ['wo', 'Wolof', 'Wolof', 'wolof'],
  ['xh', 'Xhosa', 'isiXhosa', 'xhosa'],
  ['yi', 'Yiddish', 'ייִדיש', 'yidis'],
  ['yo', 'Yoruba', 'Yorùbá', 'yoruba'],
  ['za', 'Zhuang', 'Saɯ cueŋƅ', 'chuang'],
  ['zh', 'Chinese', '中文', 'chino'],
  ['zu', 'Zulu', 'isiZulu', 'zulú'],
];

export const LANGUAGES: readonly Language[] = Object.freeze(
  ROWS.map(([code, name, native, es]) => Object.freeze({ code, name, native, es })),
);

// Names people commonly use that are not the registry's English, native or Spanish form. They are
// indexed after the registry names, so they can never shadow a real language name.
const ALIASES: ReadonlyArray<[alias: string, code: string]> = [
  ['castellano', 'es'],
  ['castilian', 'es'],
  ['valenciano', 'ca'],
  ['valencian', 'ca'],
  ['valencià', 'ca'],
  ['mandarin', 'zh'],
  ['mandarín', 'zh'],
  ['chinese mandarin', 'zh'],
  ['普通话', 'zh'],
  ['汉语', 'zh'],
  ['farsi', 'fa'],
  ['filipino', 'tl'],
  ['moldovan', 'ro'],
  ['moldavo', 'ro'],
  ['flemish', 'nl'],
  ['flamenco', 'nl'],
  ['darija', 'ar'],
  ['panjabi', 'pa'],
  ['bangla', 'bn'],
  ['vasco', 'eu'],
  ['gaelic', 'gd'],
  ['pashtu', 'ps'],
  ['kirghiz', 'ky'],
  ['uighur', 'ug'],
];

/** Lowercase, strip diacritics (NFD + remove combining marks), collapse whitespace, trim. */
export function normalizeKey(input: string): string {
  // All combining marks go, not only Latin accents: Arabic harakat, Hebrew niqqud and Indic vowel
  // signs are optional in everyday typing, and the index keys go through the same function.
  return input.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

const byCode = new Map<string, Language>(LANGUAGES.map((l) => [l.code, l]));

// Built once: resolution runs on every search request. Insertion order is the precedence order
// (codes, then English, Spanish and native names, then aliases); the first claimant of a key keeps it.
const resolveIndex: ReadonlyMap<string, string> = (() => {
  const index = new Map<string, string>();
  const claim = (key: string, code: string): void => {
    const normalized = normalizeKey(key);
    if (normalized !== '' && !index.has(normalized)) index.set(normalized, code);
  };
  for (const l of LANGUAGES) claim(l.code, l.code);
  for (const l of LANGUAGES) claim(l.name, l.code);
  for (const l of LANGUAGES) claim(l.es, l.code);
  for (const l of LANGUAGES) claim(l.native, l.code);
  for (const [alias, code] of ALIASES) claim(alias, code);
  return index;
})();

/** The registry entry for an ISO 639-1 code (exact, lowercase), if any. */
export function languageByCode(code: string): Language | undefined {
  return byCode.get(code);
}

/** Accepts an ISO 639-1 code or a name (English, native or Spanish), case- and accent-insensitive, trimmed. Returns the code, or undefined when unknown. */
export function resolveLanguage(input: string): string | undefined {
  return resolveIndex.get(normalizeKey(input));
}
