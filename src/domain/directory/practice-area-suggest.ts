/**
 * Free text → practice-area slugs, for agents that hear "my residence card expires next month"
 * and must pick a filter. Spanish, English, French and Arabic. Deliberately simple and
 * predictable: the text is normalised (case, accents, Arabic letter variants and diacritics),
 * then matched against hand-written cue phrases per area; each match scores its area, the longer
 * the cue the more, and sub-areas also lend weight to their parent. Only slugs present in the
 * directory's own taxonomy are suggested.
 */

/** One suggestion: a practice-area slug and why it was chosen. */
export interface PracticeAreaSuggestion {
  slug: string;
  score: number;
  /** The cue phrases found in the text (normalised). */
  matched: string[];
}

/**
 * Cue phrases by slug, already in normalised form (lower case, no accents). A cue matches when
 * it occurs in the normalised text at word starts (stems: "renov" matches "renovar", "renewal"
 * does not, so each language lists its own forms).
 */
const CUES: Record<string, string[]> = {
  residence: ['residence permit', 'residency', 'residencia', 'permiso de residencia', 'titre de sejour', 'carte de sejour', 'sejour', 'اقامة', 'الاقامة', 'تصريح اقامة', 'بطاقة الاقامة'],
  'arraigo-social': ['arraigo social', 'arraigo', 'three years in spain', 'tres anos en espana', '3 anos en espana', 'sin papeles', 'undocumented', 'sans papiers', 'irregular', 'بدون اوراق', 'الارايغو', 'ارايغو'],
  'arraigo-laboral': ['arraigo laboral'],
  'arraigo-sociolaboral': ['arraigo sociolaboral'],
  'arraigo-socioformativo': ['arraigo socioformativo', 'arraigo para la formacion', 'arraigo formativo'],
  'arraigo-familiar': ['arraigo familiar', 'parent of a spanish child', 'hijo espanol', 'padre de espanol', 'enfant espagnol'],
  'second-chance-arraigo': ['segunda oportunidad', 'second chance'],
  'non-lucrative-residence': ['non lucrative', 'non-lucrative', 'no lucrativa', 'retire in spain', 'retirement visa', 'jubilarme en espana', 'retraite en espagne', 'visa de retraite', 'التقاعد'],
  'residence-renewals': ['renew', 'renewal', 'renovar', 'renovacion', 'renouveler', 'renouvellement', 'expires', 'expired', 'caduca', 'caducado', 'vencida', 'expire', 'تجديد', 'انتهت'],
  'long-term-residence': ['long term', 'long-term', 'larga duracion', 'longue duree', 'permanent residence', 'residencia permanente', 'residence permanente', 'اقامة طويلة', 'اقامة دائمة'],
  'tie-and-nie': ['nie', 'tie', 'foreigner identity number', 'numero de identidad de extranjero', 'huella', 'fingerprint', 'empreintes', 'cita previa', 'appointment', 'rendez-vous', 'البصمة', 'رقم الهوية', 'موعد'],
  nationality: ['nationality', 'citizenship', 'nacionalidad', 'ciudadania', 'nationalite', 'citoyennete', 'spanish passport', 'pasaporte espanol', 'passeport espagnol', 'الجنسية', 'جنسية', 'جواز سفر اسباني'],
  'nationality-by-residence': ['nacionalidad por residencia', 'nationality by residence', 'ten years', 'diez anos', 'dix ans', 'dele', 'ccse'],
  'nationality-by-option': ['nacionalidad por opcion', 'by option', 'par option'],
  'democratic-memory-law': ['memoria democratica', 'ley de nietos', 'grandchildren law', 'democratic memory', 'abuelo espanol', 'spanish grandfather', 'grand-pere espagnol', 'grandparents'],
  'sephardic-nationality': ['sefardi', 'sephardic', 'sefarade'],
  'nationality-appeals': ['nacionalidad denegada', 'nationality refused', 'nationality denied', 'nationalite refusee'],
  'international-protection': ['asylum', 'asilo', 'asile', 'refugee', 'refugiado', 'refugie', 'protection internationale', 'proteccion internacional', 'international protection', 'لجوء', 'لاجئ', 'اللجوء'],
  'asylum-applications': ['solicitar asilo', 'apply for asylum', 'demande d asile', 'demander l asile', 'طلب اللجوء', 'طلب لجوء'],
  'asylum-appeals': ['asilo denegado', 'asylum refused', 'asylum denied', 'asile refuse', 'rejected asylum', 'رفض اللجوء'],
  statelessness: ['stateless', 'apatrida', 'apatride', 'sin nacionalidad', 'عديم الجنسية', 'بدون جنسية'],
  'humanitarian-residence': ['humanitarian', 'humanitaria', 'humanitaire', 'razones humanitarias', 'انسانية'],
  'temporary-protection-ukraine': ['ukraine', 'ucrania', 'ukrainian', 'ucraniano', 'ukrainien', 'temporary protection', 'proteccion temporal', 'protection temporaire', 'اوكرانيا'],
  family: ['family', 'familia', 'famille', 'عائلة', 'العائلة', 'الاسرة'],
  'family-reunification': ['reunification', 'reagrupacion', 'reagrupar', 'regroupement familial', 'bring my wife', 'bring my husband', 'bring my children', 'traer a mi', 'faire venir', 'لم الشمل', 'جمع الشمل', 'احضار زوجتي', 'احضار عائلتي'],
  'eu-family-member-card': ['familiar comunitario', 'family member of an eu', 'eu citizen', 'ciudadano de la ue', 'ciudadano europeo', 'married to a spanish', 'casado con espanol', 'casada con un espanol', 'marie a une espagnole', 'mariee a un espagnol', 'spanish wife', 'spanish husband', 'esposa espanola', 'marido espanol', 'زوجة اسبانية', 'زوج اسباني', 'متزوج من اسبانية'],
  'registered-partnership': ['pareja de hecho', 'registered partnership', 'domestic partner', 'partenariat', 'pacs', 'unmarried partner'],
  'minors-and-guardianship': ['menor', 'minor', 'mineur', 'tutela', 'guardianship', 'unaccompanied', 'no acompanado', 'non accompagne', 'قاصر', 'قاصرين'],
  'work-and-business': ['work', 'trabajo', 'travail', 'employment', 'empleo', 'emploi', 'عمل', 'شغل'],
  'employer-work-permit': ['work permit', 'permiso de trabajo', 'permis de travail', 'autorisation de travail', 'job offer', 'oferta de trabajo', 'offre d emploi', 'contrato de trabajo', 'employer', 'empleador', 'employeur', 'تصريح عمل', 'عقد عمل', 'عرض عمل'],
  'highly-qualified-professionals': ['highly qualified', 'altamente cualificado', 'hautement qualifie', 'blue card', 'tarjeta azul', 'carte bleue', 'ley de startups', 'profesional cualificado'],
  'self-employment': ['self-employed', 'self employed', 'freelance', 'autonomo', 'cuenta propia', 'independant', 'auto-entrepreneur', 'عمل حر', 'لحسابي الخاص'],
  entrepreneurs: ['entrepreneur', 'emprendedor', 'emprender', 'startup', 'open a business', 'abrir un negocio', 'montar un negocio', 'creer une entreprise', 'ouvrir une entreprise', 'فتح مشروع', 'مشروع تجاري', 'شركة'],
  'digital-nomad-visa': ['digital nomad', 'nomada digital', 'nomade numerique', 'remote work', 'teletrabajo', 'teletravail', 'work remotely', 'الرحالة الرقمي', 'عمل عن بعد'],
  'seasonal-work': ['seasonal', 'temporada', 'temporero', 'saisonnier', 'fresas', 'strawberries', 'cosecha', 'موسمي'],
  'cross-border-workers': ['cross-border', 'transfronterizo', 'frontalier', 'ceuta', 'melilla', 'سبتة', 'مليلية'],
  study: ['study', 'studies', 'estudiar', 'estudios', 'etudes', 'etudier', 'student', 'estudiante', 'etudiant', 'دراسة', 'طالب', 'الدراسة'],
  'student-stay': ['student visa', 'visado de estudios', 'estancia por estudios', 'visa etudiant', 'university', 'universidad', 'universite', 'master', 'تأشيرة دراسة', 'تاشيرة دراسة', 'الجامعة'],
  'job-search-after-studies': ['after my studies', 'despues de estudiar', 'tras los estudios', 'apres mes etudes', 'buscar empleo', 'busqueda de empleo', 'job search', 'recherche d emploi'],
  internships: ['internship', 'practicas', 'stage', 'becario', 'trainee', 'تدريب'],
  'degree-recognition': ['homologacion', 'homologar', 'homologation', 'degree recognition', 'recognise my degree', 'recognize my degree', 'convalidar', 'equivalencia', 'equivalence', 'reconnaissance de diplome', 'معادلة الشهادة', 'الشهادة'],
  'appeals-and-enforcement': ['appeal', 'recurso', 'recurrir', 'recours', 'denied', 'denegado', 'denegada', 'refused', 'rejected', 'rechazado', 'refuse', 'rejete', 'طعن', 'رفض'],
  'refusal-appeals': ['recurso de reposicion', 'recurso contencioso', 'recurrir', 'visa refused', 'visa was refused', 'visado denegado', 'visa refuse', 'permit refused', 'appeal', 'rechazaron', 'denegaron', 'ont refuse', 'رفضوا'],
  'expulsion-orders': ['expulsion', 'deportation', 'deported', 'deportar', 'deportacion', 'orden de expulsion', 'expulse', 'reconduite', 'oqtf', 'ترحيل', 'طرد'],
  'cie-detention': ['cie', 'detained', 'detenido', 'detenida', 'detention', 'internamiento', 'retention', 'retenu', 'centro de internamiento', 'محتجز', 'احتجاز'],
  'border-entry-refusals': ['airport', 'aeropuerto', 'aeroport', 'border', 'frontera', 'frontiere', 'entry refused', 'denegada la entrada', 'refus d entree', 'المطار', 'الحدود', 'منع الدخول'],
  'criminal-records': ['criminal record', 'antecedentes penales', 'casier judiciaire', 'antecedentes policiales', 'convicted', 'condena', 'condamne', 'السجل الجنائي', 'سوابق'],
  'fines-and-sanctions': ['fine', 'multa', 'sancion', 'sanction', 'amende', 'غرامة'],
  investors: ['investor', 'inversor', 'investisseur', 'investment', 'inversion', 'investissement', 'مستثمر', 'استثمار'],
  'golden-visa-legacy': ['golden visa', 'visado de oro', 'visa dore', 'buy a house', 'comprar una casa', 'property purchase', 'acheter une maison', 'التأشيرة الذهبية', 'الفيزا الذهبية'],
  'business-investment': ['invest in a company', 'invertir en una empresa', 'business investment', 'investir dans une entreprise'],
};

/** Sub-area → parent area, as in the demo taxonomy (a sub-area match also suggests its parent weakly). */
const PARENT: Record<string, string> = {};
for (const [parent, children] of Object.entries({
  residence: ['arraigo-social', 'arraigo-laboral', 'arraigo-sociolaboral', 'arraigo-socioformativo', 'arraigo-familiar', 'second-chance-arraigo', 'non-lucrative-residence', 'residence-renewals', 'long-term-residence', 'tie-and-nie'],
  nationality: ['nationality-by-residence', 'nationality-by-option', 'democratic-memory-law', 'sephardic-nationality', 'nationality-appeals'],
  'international-protection': ['asylum-applications', 'asylum-appeals', 'statelessness', 'humanitarian-residence', 'temporary-protection-ukraine'],
  family: ['family-reunification', 'eu-family-member-card', 'registered-partnership', 'minors-and-guardianship'],
  'work-and-business': ['employer-work-permit', 'highly-qualified-professionals', 'self-employment', 'entrepreneurs', 'digital-nomad-visa', 'seasonal-work', 'cross-border-workers'],
  study: ['student-stay', 'job-search-after-studies', 'internships', 'degree-recognition'],
  'appeals-and-enforcement': ['refusal-appeals', 'expulsion-orders', 'cie-detention', 'border-entry-refusals', 'criminal-records', 'fines-and-sanctions'],
  investors: ['golden-visa-legacy', 'business-investment'],
})) {
  for (const child of children) PARENT[child] = parent;
}

/**
 * Lower case, no Latin accents, Arabic letter variants folded (alef forms, taa marbuta, alef
 * maqsura), Arabic diacritics and tatweel removed, punctuation to spaces, spaces collapsed.
 */
export function normaliseText(text: string): string {
  return ` ${text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\u064b-\u065f\u0670\u0640]/g, '')
    .replace(/[\u0622\u0623\u0625\u0671]/g, '\u0627')
    .replace(/\u0629/g, '\u0647')
    .replace(/\u0649/g, '\u064a')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;
}

// Cues normalised the same way as the text (taa marbuta, alef forms); built once.
const NORMALISED_CUES: Array<[string, string[]]> = Object.entries(CUES).map(([slug, cues]) => [slug, cues.map((c) => normaliseText(c).trim())]);

/**
 * The practice areas free text is most likely about, best first, among `known` slugs (the
 * directory's taxonomy). Empty when nothing matched: the agent should then ask, or list areas.
 */
export function suggestPracticeAreas(text: string, known: ReadonlySet<string>, limit = 3): PracticeAreaSuggestion[] {
  const normalised = normaliseText(text.slice(0, 2000));
  const scores = new Map<string, { score: number; matched: string[] }>();
  const add = (slug: string, score: number, cue: string | null) => {
    if (!known.has(slug)) return;
    const entry = scores.get(slug) ?? { score: 0, matched: [] };
    entry.score += score;
    if (cue !== null && !entry.matched.includes(cue)) entry.matched.push(cue);
    scores.set(slug, entry);
  };
  for (const [slug, cues] of NORMALISED_CUES) {
    for (const cue of cues) {
      // At a word start: " nie " must not match inside "nieto"; a stem may continue ("renov…").
      if (!normalised.includes(` ${cue}`)) continue;
      const exact = normalised.includes(` ${cue} `);
      // Short cues (nie, tie, cie) only as whole words: "tiene" is not a TIE.
      if (!exact && cue.length < 5) continue;
      // Longer cues are more specific; whole words count more than stems.
      const weight = (1 + cue.split(' ').length) * (exact ? 1 : 0.6);
      add(slug, weight, cue);
      const parent = PARENT[slug];
      if (parent) add(parent, weight * 0.25, null);
    }
  }
  return [...scores.entries()]
    .map(([slug, s]) => ({ slug, score: Math.round(s.score * 100) / 100, matched: s.matched }))
    .sort((a, b) => b.score - a.score || a.slug.localeCompare(b.slug))
    .slice(0, limit);
}
