/**
 * The legal pages a Spanish web service publishes (docs/site.md#legal-pages), in every language of
 * the site: the legal notice (aviso legal, LSSI-CE art. 10), privacy (GDPR art. 13), the booking
 * terms with the cancellation and move policy (DESIGN §11, src/domain/booking/policy.ts) and the
 * cookie statement. The operator's identity comes from the LEGAL_* settings (config.legal); while
 * any is a demonstration default the pages say so.
 *
 * Kept apart from the string catalogues because they are documents, not interface strings. The
 * Spanish text binds; every other language is a translation of it, with the same sections in the
 * same order (test/site/legal-texts.test.ts), and says so at its top in its own language
 * (LEGAL_CHROME.prevails). Spanish and English are here; French, Arabic, Ukrainian and Romanian
 * in ./legal/. Spanish official names (LSSI-CE, AEPD, Registro Mercantil, hojas de reclamaciones)
 * stay in Spanish in every language, explained where they first appear.
 */
import type { LegalIdentity, LegalSetting } from '../../config.ts';
import { FREE_CHANGE_HOURS } from '../../domain/booking/policy.ts';
import type { Locale } from '../../i18n/index.ts';
import type { SiteCookies } from '../plugin.ts';
import { ZONE_COOKIE } from '../booking/visitor-zone.ts';
import { ar } from './legal/ar.ts';
import { fr } from './legal/fr.ts';
import { ro } from './legal/ro.ts';
import { uk } from './legal/uk.ts';

export type LegalPage = 'aviso-legal' | 'privacy' | 'terms' | 'cookies';
export const LEGAL_PAGES: readonly LegalPage[] = ['aviso-legal', 'privacy', 'terms', 'cookies'];

/** How long a free time is held while the person signs in and pays, as the terms state it. */
export const HOLD_MINUTES = 15;

/** How long a person may edit their review (DESIGN §11), as the terms state it. */
export const REVIEW_EDIT_DAYS = 30;

/** The date the texts last changed in substance (shown on each page). */
export const LEGAL_UPDATED = '2026-11-26';

/** Where the reviews' rules are explained (the help page on reviews). */
export const REVIEWS_HELP_PATH = '/help/reviews';

export interface LegalSection {
  heading: string;
  paragraphs?: string[];
  list?: string[];
  /** A link shown after the section's text (for instance, how reviews work). */
  link?: { href: string; text: string };
}

export interface LegalDocument {
  title: string;
  intro: string;
  sections: LegalSection[];
}

/** One text in each of the site's languages. */
export type InEveryLanguage = Readonly<Record<Locale, string>>;

/** One cookie the site may set: every one is strictly necessary (no consent banner, LSSI-CE art. 22.2). */
export interface CookieEntry {
  /** The cookie's names (one, or a family set together). */
  names: string[];
  /** Which part of the site sets it. */
  where: 'site' | 'oauth';
  purpose: InEveryLanguage;
  lifetime: InEveryLanguage;
}

/**
 * Every cookie any response (or the site's own script) may set. test/site/cookies.test.ts fails
 * when a response sets one that is not here, and when a script in src/site/assets writes one
 * that is not here: adding a cookie means adding it to the statement first, in every language.
 */
export function cookieList(cookies: Pick<SiteCookies, 'session' | 'csrf' | 'signIn' | 'lang' | 'holds'>, sessionMaxDays: number): CookieEntry[] {
  const oneYear: InEveryLanguage = { es: '1 año', en: '1 year', fr: '1 an', ar: 'سنة واحدة', uk: '1 рік', ro: '1 an' };
  return [
    {
      names: [cookies.session],
      where: 'site',
      purpose: {
        es: 'Mantiene tu sesión iniciada después de entrar.',
        en: 'Keeps you signed in after you sign in.',
        fr: 'Vous garde connecté·e après votre connexion.',
        ar: 'تُبقيك مسجَّل الدخول بعد أن تدخل إلى حسابك.',
        uk: 'Зберігає ваш вхід до облікового запису після того, як ви увійшли.',
        ro: 'Vă păstrează autentificat(ă) după ce v-ați conectat.',
      },
      lifetime: {
        es: `hasta que sales, o ${sessionMaxDays} días como máximo`,
        en: `until you sign out, ${sessionMaxDays} days at most`,
        fr: `jusqu’à votre déconnexion, ${sessionMaxDays} jours au plus`,
        ar: `حتى تسجّل الخروج، ${sessionMaxDays} يومًا على الأكثر`,
        uk: `доки ви не вийдете, щонайбільше ${sessionMaxDays} днів`,
        ro: `până vă deconectați, cel mult ${sessionMaxDays % 100 >= 20 || sessionMaxDays % 100 === 0 ? `${sessionMaxDays} de` : sessionMaxDays} zile`,
      },
    },
    {
      names: [cookies.csrf],
      where: 'site',
      purpose: {
        es: 'Protege los formularios: comprueba que los envías tú desde este sitio (falsificación de peticiones).',
        en: 'Protects forms: checks that you sent them from this site (request forgery).',
        fr: 'Protège les formulaires\u00a0: vérifie que c’est bien vous qui les envoyez depuis ce site (falsification de requêtes).',
        ar: 'تحمي النماذج: تتحقّق من أنك أنت من أرسلها من هذا الموقع (الحماية من تزوير الطلبات).',
        uk: 'Захищає форми: перевіряє, що саме ви надсилаєте їх із цього сайту (захист від підробки запитів).',
        ro: 'Protejează formularele: verifică faptul că dumneavoastră le trimiteți de pe acest site (falsificarea cererilor).',
      },
      lifetime: { es: 'la sesión del navegador', en: 'the browser session', fr: 'la session du navigateur', ar: 'مدة جلسة المتصفح', uk: 'до закриття браузера', ro: 'sesiunea browserului' },
    },
    {
      names: [cookies.signIn],
      where: 'site',
      purpose: {
        es: 'Une el enlace de acceso del correo al navegador que lo pidió.',
        en: 'Ties the sign-in link in the email to the browser that asked for it.',
        fr: 'Relie le lien de connexion reçu par e-mail au navigateur qui l’a demandé.',
        ar: 'تربط رابط الدخول المرسَل بالبريد الإلكتروني بالمتصفح الذي طلبه.',
        uk: 'Пов’язує посилання для входу з листа з браузером, який його запросив.',
        ro: 'Leagă linkul de conectare din e-mail de browserul care l-a cerut.',
      },
      lifetime: { es: '10 minutos', en: '10 minutes', fr: '10 minutes', ar: '10 دقائق', uk: '10 хвилин', ro: '10 minute' },
    },
    {
      names: [cookies.lang],
      where: 'site',
      purpose: {
        es: 'Recuerda el idioma que elegiste con el selector de idioma.',
        en: 'Remembers the language you chose with the language switch.',
        fr: 'Mémorise la langue que vous avez choisie avec le sélecteur de langue.',
        ar: 'تتذكّر اللغة التي اخترتها من قائمة اللغات.',
        uk: 'Запам’ятовує мову, яку ви вибрали перемикачем мов.',
        ro: 'Reține limba pe care ați ales-o din selectorul de limbă.',
      },
      lifetime: oneYear,
    },
    {
      names: [cookies.holds],
      where: 'site',
      purpose: {
        es: 'Recuerda las horas que reservaste en este navegador mientras confirmas: al elegir otra hora con el mismo despacho, sustituye a la anterior en lugar de contar como una reserva más.',
        en: 'Remembers the times you held in this browser while you confirm: choosing another time with the same lawyer replaces the earlier one instead of counting as one more hold.',
        fr: 'Mémorise les créneaux que vous avez réservés dans ce navigateur pendant que vous confirmez : si vous choisissez un autre créneau chez la même avocate ou le même avocat, il remplace le précédent au lieu de compter comme une réservation de plus.',
        ar: 'تتذكّر الأوقات التي حجزتها في هذا المتصفح أثناء التأكيد: عند اختيار وقت آخر لدى المحامي نفسه يحلّ محلّ الوقت السابق بدلًا من أن يُحسب حجزًا إضافيًا.',
        uk: 'Запам’ятовує час, який ви забронювали в цьому браузері, поки ви підтверджуєте: якщо ви оберете інший час у того самого адвоката, він замінить попередній, а не рахуватиметься як ще одне бронювання.',
        ro: 'Reține orele pe care le-ați rezervat în acest browser cât timp confirmați: dacă alegeți altă oră la același avocat, aceasta o înlocuiește pe cea anterioară în loc să conteze ca o rezervare în plus.',
      },
      lifetime: { es: '1 hora', en: '1 hour', fr: '1 heure', ar: 'ساعة واحدة', uk: '1 година', ro: '1 oră' },
    },
    {
      names: [ZONE_COOKIE],
      where: 'site',
      purpose: {
        es: 'Recuerda tu zona horaria (la de tu navegador, o la que elegiste) para mostrar las horas también en tu hora local. Solo el nombre de la zona, como Europe/Madrid.',
        en: 'Remembers your time zone (your browser\'s, or the one you chose) to show times in your own local time too. Only the zone\'s name, such as Europe/Madrid.',
        fr: 'Mémorise votre fuseau horaire (celui de votre navigateur, ou celui que vous avez choisi) pour afficher aussi les horaires à votre heure locale. Seulement le nom du fuseau, par exemple Europe/Madrid.',
        ar: 'تتذكّر منطقتك الزمنية (منطقة متصفحك، أو التي اخترتها) لعرض المواعيد بتوقيتك المحلي أيضًا. تحفظ اسم المنطقة فقط، مثل Europe/Madrid.',
        uk: 'Запам’ятовує ваш часовий пояс (вашого браузера або той, що ви вибрали), щоб показувати час також за вашим місцевим часом. Лише назву пояса, наприклад Europe/Madrid.',
        ro: 'Reține fusul dumneavoastră orar (al browserului sau cel ales de dumneavoastră), pentru a afișa orele și în ora locală. Doar numele fusului, de exemplu Europe/Madrid.',
      },
      lifetime: oneYear,
    },
    {
      names: ['_interaction', '_interaction.sig', '_interaction_resume', '_interaction_resume.sig', '_session', '_session.sig', '_session.legacy', '_session.legacy.sig'],
      where: 'oauth',
      purpose: {
        es: 'Solo al conectar un asistente de IA a tu cuenta (servidor de autorización, /oauth): recuerdan la autorización en curso y su firma.',
        en: 'Only while connecting an AI assistant to your account (the authorization server, /oauth): they remember the authorization in progress, and sign it.',
        fr: 'Seulement lorsque vous connectez un assistant d’IA à votre compte (serveur d’autorisation, /oauth)\u00a0: elles mémorisent l’autorisation en cours et sa signature.',
        ar: 'فقط عند ربط مساعد ذكاء اصطناعي بحسابك (خادم التفويض، ‎/oauth): تتذكّر التفويض الجاري وتوقيعه.',
        uk: 'Лише під час підключення помічника зі штучним інтелектом до вашого облікового запису (сервер авторизації, /oauth): зберігають авторизацію, що триває, та її підпис.',
        ro: 'Doar când conectați un asistent de inteligență artificială la contul dumneavoastră (serverul de autorizare, /oauth): rețin autorizarea în curs și semnătura ei.',
      },
      lifetime: {
        es: 'hasta terminar la autorización, o lo que dure tu sesión',
        en: 'until the authorization ends, or as long as your session',
        fr: 'jusqu’à la fin de l’autorisation, ou la durée de votre session',
        ar: 'حتى انتهاء التفويض، أو طوال مدة جلستك',
        uk: 'до завершення авторизації або стільки, скільки триває ваш сеанс',
        ro: 'până la încheierea autorizării sau cât durează sesiunea dumneavoastră',
      },
    },
  ];
}

/** The words around a legal text on its page, in each language. */
export interface LegalChrome {
  updated: (date: string) => string;
  /** Shown while the LEGAL_* settings are demonstration defaults. */
  demo: string;
  /**
   * The demonstration values of the unset LEGAL_* settings, in this language (config.ts's
   * DEMO_LEGAL is the Spanish/English one): "DEMO: no real entry" read in English on every page.
   */
  demoValues: { name: string; taxId: string; address: string; registry: string };
  cookieHead: { caption: string; purpose: string; lifetime: string; type: string; necessary: string };
  /** On every translation: the Spanish text prevails in case of discrepancy (null in Spanish). */
  prevails: string | null;
  /** The link to the Spanish text, after `prevails`. */
  spanishVersion: string | null;
}

export const LEGAL_CHROME: Readonly<Record<Locale, LegalChrome>> = {
  es: {
    updated: (d) => `Última actualización: ${d}`,
    demo: 'Datos de demostración: el titular, el NIF y el domicilio de esta página son valores de ejemplo (LEGAL_* sin configurar). Quien opere el servicio debe poner los suyos antes de abrirlo al público.',
    demoValues: { name: 'Consulta Demo, S.L. (DEMO)', taxId: 'B00000000 (DEMO)', address: 'Calle de Ejemplo 1, 28001 Madrid, España (DEMO)', registry: 'Registro Mercantil de Madrid (DEMO: sin inscripción real)' },
    cookieHead: { caption: 'Cookies que puede guardar este sitio', purpose: 'Para qué', lifetime: 'Duración', type: 'Tipo', necessary: 'Estrictamente necesaria, propia' },
    prevails: null,
    spanishVersion: null,
  },
  en: {
    updated: (d) => `Last updated: ${d}`,
    demo: 'Demonstration data: the operator, tax id and address on this page are example values (LEGAL_* not set). Whoever runs the service must set their own before opening it to the public.',
    demoValues: { name: 'Consulta Demo, S.L. (DEMO)', taxId: 'B00000000 (DEMO)', address: 'Calle de Ejemplo 1, 28001 Madrid, Spain (DEMO)', registry: 'Registro Mercantil de Madrid (DEMO: no real entry)' },
    cookieHead: { caption: 'Cookies this site may store', purpose: 'What for', lifetime: 'How long', type: 'Kind', necessary: 'Strictly necessary, first-party' },
    prevails: 'This is a translation of the Spanish text. If the two differ, the Spanish text prevails.',
    spanishVersion: 'Read the Spanish text',
  },
  fr: {
    updated: (d) => `Dernière mise à jour\u00a0: ${d}`,
    demo: 'Données de démonstration\u00a0: l’exploitant, le numéro d’identification fiscale et l’adresse indiqués sur cette page sont des valeurs d’exemple (paramètres LEGAL_* non renseignés). L’exploitant du service doit indiquer les siens avant de l’ouvrir au public.',
    demoValues: { name: 'Consulta Demo, S.L. (DÉMO)', taxId: 'B00000000 (DÉMO)', address: 'Calle de Ejemplo 1, 28001 Madrid, Espagne (DÉMO)', registry: 'Registro Mercantil de Madrid (DÉMO\u00a0: aucune inscription réelle)' },
    cookieHead: { caption: 'Cookies que ce site peut enregistrer', purpose: 'À quoi il sert', lifetime: 'Durée', type: 'Type', necessary: 'Strictement nécessaire, propre au site' },
    prevails: 'Ce texte est une traduction du texte espagnol. En cas de divergence, la version espagnole fait foi.',
    spanishVersion: 'Lire le texte en espagnol',
  },
  ar: {
    updated: (d) => `آخر تحديث: ${d}`,
    demo: 'بيانات تجريبية: اسم المشغّل ورقم التعريف الضريبي والعنوان الواردة في هذه الصفحة قيم على سبيل المثال (إعدادات \u2066LEGAL_*\u2069 غير مضبوطة). على من يشغّل الخدمة أن يضع بياناته قبل فتحها للجمهور.',
    demoValues: { name: 'Consulta Demo, S.L. (تجريبي)', taxId: 'B00000000 (تجريبي)', address: 'Calle de Ejemplo 1, 28001 Madrid, España (تجريبي)', registry: 'Registro Mercantil de Madrid (تجريبي: لا يوجد قيد حقيقي)' },
    cookieHead: { caption: 'ملفات تعريف الارتباط التي قد يحفظها هذا الموقع', purpose: 'الغرض', lifetime: 'المدة', type: 'النوع', necessary: 'ضرورية تمامًا، خاصة بالموقع نفسه' },
    prevails: 'هذا النص ترجمة للنص الإسباني. وفي حال وجود اختلاف بينهما، يُعتمد النص الإسباني.',
    spanishVersion: 'اقرأ النص الإسباني',
  },
  uk: {
    updated: (d) => `Останнє оновлення: ${d}`,
    demo: 'Демонстраційні дані: оператор, податковий номер і адреса на цій сторінці — це приклади (параметри LEGAL_* не задано). Той, хто керує сервісом, має вказати власні дані, перш ніж відкрити його для людей.',
    demoValues: { name: 'Consulta Demo, S.L. (ДЕМО)', taxId: 'B00000000 (ДЕМО)', address: 'Calle de Ejemplo 1, 28001 Madrid, Іспанія (ДЕМО)', registry: 'Registro Mercantil de Madrid (ДЕМО: реального запису немає)' },
    cookieHead: { caption: 'Файли cookie, які може зберігати цей сайт', purpose: 'Для чого', lifetime: 'Строк', type: 'Тип', necessary: 'Суворо необхідний, власний файл сайту' },
    prevails: 'Це переклад іспанського тексту. Якщо тексти розходяться, переважну силу має іспанський текст.',
    spanishVersion: 'Прочитати іспанський текст',
  },
  ro: {
    updated: (d) => `Ultima actualizare: ${d}`,
    demo: 'Date demonstrative: operatorul, codul fiscal și adresa de pe această pagină sunt valori de exemplu (setările LEGAL_* nu sunt configurate). Cine operează serviciul trebuie să le completeze pe ale sale înainte de a-l deschide publicului.',
    demoValues: { name: 'Consulta Demo, S.L. (DEMO)', taxId: 'B00000000 (DEMO)', address: 'Calle de Ejemplo 1, 28001 Madrid, Spania (DEMO)', registry: 'Registro Mercantil de Madrid (DEMO: nicio înregistrare reală)' },
    cookieHead: { caption: 'Cookie-urile pe care le poate salva acest site', purpose: 'Scop', lifetime: 'Durată', type: 'Tip', necessary: 'Strict necesar, propriu site-ului' },
    prevails: 'Aceasta este o traducere a textului spaniol. În caz de neconcordanță, prevalează versiunea în limba spaniolă.',
    spanishVersion: 'Citiți textul în spaniolă',
  },
};

export interface Facts {
  legal: LegalIdentity;
  siteUrl: string;
  contactPath: string;
  mailRetentionDays: number;
  requestLogRetentionDays: number;
}

function es(page: LegalPage, f: Facts): LegalDocument {
  const who = `${f.legal.name}, NIF ${f.legal.taxId}`;
  switch (page) {
    case 'aviso-legal':
      return {
        title: 'Aviso legal',
        intro: `En cumplimiento del artículo 10 de la Ley 34/2002, de servicios de la sociedad de la información y de comercio electrónico (LSSI-CE), estos son los datos de quien presta este servicio.`,
        sections: [
          {
            heading: 'Titular del servicio',
            list: [`Titular: ${f.legal.name}`, `NIF: ${f.legal.taxId}`, `Domicilio: ${f.legal.address}`, `Correo electrónico: ${f.legal.email}`, ...(f.legal.registry ? [`Datos registrales: ${f.legal.registry}`] : []), `Sitio web: ${f.siteUrl}`],
          },
          {
            heading: 'Qué es Consulta',
            paragraphs: [
              'Consulta es una plataforma que permite encontrar abogados y abogadas de extranjería verificados en España, ver su disponibilidad y precio, y reservar y pagar una consulta. Consulta no presta asesoramiento jurídico: la consulta la presta el despacho que eliges, que responde de ella conforme a las normas de su colegio de abogados.',
              'Todo perfil publicado pertenece a un abogado o una abogada en ejercicio; comprobamos su número de colegiación con el colegio correspondiente antes de publicarlo.',
            ],
          },
          {
            heading: 'Condiciones de uso',
            paragraphs: [
              'El uso del sitio implica aceptar este aviso. Las reservas se rigen por las condiciones de reserva. Quien use el sitio se compromete a no introducir información falsa ni contenidos ilícitos, y a no intentar acceder a cuentas o datos ajenos.',
              'Los textos de los despachos (biografías, respuestas a opiniones) y las opiniones de la clientela son de sus autores; Consulta los muestra como texto sin interpretarlos y retira los que infrinjan la ley cuando tiene conocimiento efectivo de ello (LSSI-CE art. 16).',
            ],
          },
          { heading: 'Propiedad intelectual', paragraphs: ['El diseño, el código y los textos propios del sitio pertenecen al titular o a sus licenciantes. Los datos de los despachos les pertenecen.'] },
          { heading: 'Ley aplicable', paragraphs: ['Este aviso se rige por la ley española. Si eres consumidor, puedes acudir a los tribunales de tu domicilio y a la plataforma europea de resolución de litigios en línea (https://ec.europa.eu/consumers/odr).'] },
        ],
      };
    case 'privacy':
      return {
        title: 'Política de privacidad',
        intro: 'Qué datos personales tratamos, para qué, con qué base legal y durante cuánto tiempo, y cómo ejercer tus derechos (artículo 13 del Reglamento General de Protección de Datos, RGPD, y Ley Orgánica 3/2018, LOPDGDD).',
        sections: [
          { heading: 'Responsable del tratamiento', list: [who, `Domicilio: ${f.legal.address}`, `Contacto para privacidad: ${f.legal.email}`] },
          {
            heading: 'Qué datos y para qué',
            list: [
              'Tu correo electrónico, para que puedas entrar (te enviamos un código) y para enviarte el recibo, la invitación de calendario y los avisos de tu consulta. Base: la ejecución del contrato que pides (RGPD art. 6.1.b).',
              'Tu reserva: el despacho, la fecha, el precio, el formato, la nota que escribas para el despacho y, si la consulta es por teléfono, tu número. Base: el contrato (art. 6.1.b). Al reservar, se los comunicamos al despacho que te atenderá.',
              'Los datos del pago: el importe y la referencia del proveedor de pago. No vemos ni guardamos el número completo de tu tarjeta. Base: el contrato y la obligación legal de conservar registros de ventas (art. 6.1.c).',
              'Los mensajes que nos envías por el formulario de contacto, para responderte. Base: nuestro interés legítimo en atender las consultas (art. 6.1.f).',
              'La dirección IP y los datos técnicos de cada petición, para proteger el servicio contra abusos (límites de intentos) y resolver errores. Base: interés legítimo en la seguridad (art. 6.1.f).',
            ],
          },
          {
            heading: 'Cuánto tiempo',
            list: [
              'Tu cuenta: hasta que la borres (en Cuenta puedes hacerlo tú).',
              'Las reservas y los pagos: seis años, como exige el Código de Comercio (art. 30), sin tu nombre ni tu correo si has borrado la cuenta.',
              `Los correos enviados: ${f.mailRetentionDays} días en nuestro registro de envíos.`,
              `Los registros de peticiones de la API: ${f.requestLogRetentionDays} días.`,
              'Los mensajes de contacto: un año, o hasta que borres tu cuenta si es antes.',
            ],
          },
          {
            heading: 'A quién se comunican',
            paragraphs: [
              'Al despacho con el que reservas (tu correo, la reserva y tu nota). Al proveedor de pagos, cuando pagas (si se usa Stripe, Stripe Payments Europe, Ltd., Irlanda). Al proveedor de correo electrónico que envía nuestros mensajes. No vendemos datos ni los usamos para publicidad.',
            ],
          },
          {
            heading: 'Tus derechos',
            paragraphs: [
              `Puedes pedir acceso, rectificación, supresión, limitación, portabilidad u oponerte al tratamiento escribiendo a ${f.legal.email} o desde el formulario de contacto. Puedes borrar tu cuenta tú mismo en Cuenta. Si crees que no hemos atendido bien tus derechos, puedes reclamar ante la Agencia Española de Protección de Datos (www.aepd.es).`,
            ],
          },
          { heading: 'Cookies', paragraphs: ['Solo usamos cookies estrictamente necesarias; la declaración de cookies las enumera.'] },
        ],
      };
    case 'terms':
      return {
        title: 'Condiciones de reserva',
        intro: `Lo que acuerdas al reservar una consulta en Consulta con ${f.legal.name}. Léelas antes de pagar; el resumen de la reserva te las recuerda.`,
        sections: [
          {
            heading: 'Quién presta qué',
            paragraphs: [
              'La consulta la presta el abogado o la abogada que eliges, con plena independencia profesional. Consulta gestiona la reserva y el cobro por cuenta del despacho.',
            ],
          },
          {
            heading: 'Precio y pago',
            paragraphs: [
              'El precio que ves en la página del despacho es el total que pagas, impuestos incluidos; no se añade nada al pagar. La parte de Consulta se descuenta de los honorarios del despacho. Se cobra al confirmar la reserva.',
              `Una hora libre se aparta para ti durante ${HOLD_MINUTES} minutos mientras entras y pagas; si no pagas en ese tiempo, se libera sin coste.`,
            ],
          },
          {
            heading: 'Cancelar o cambiar la hora',
            paragraphs: ['Puedes cancelar o cambiar la hora de tu consulta desde Mis consultas. La página de la consulta y el recibo indican hasta cuándo puedes hacerlo gratis.'],
            list: [
              `Hasta ${FREE_CHANGE_HOURS} horas antes del inicio: puedes cancelar gratis, con reembolso completo del precio, o cambiar a otra hora libre del mismo despacho sin coste.`,
              'Al cambiar la hora, el pago se mantiene: no pagas de nuevo ni se te devuelve nada; la consulta pasa a la nueva hora.',
              `Con menos de ${FREE_CHANGE_HOURS} horas: puedes cancelar (la hora queda libre para otras personas), pero no hay reembolso, salvo que el despacho decida reembolsarte; ya no puedes cambiar la hora.`,
              'Una vez empezada la consulta, ya no se puede cancelar ni cambiar.',
              'Si es el despacho quien cancela, te devolvemos siempre el importe completo, sea cual sea el momento.',
              'Los reembolsos vuelven al mismo medio de pago; el banco puede tardar unos días en mostrarlos.',
            ],
          },
          {
            heading: 'Opiniones',
            list: [
              'Solo puede dejar una opinión la persona que reservó una consulta que llegó a celebrarse: una por consulta, con una puntuación de 1 a 5 y un comentario opcional.',
              `Puedes editar tu opinión durante ${REVIEW_EDIT_DAYS} días. El despacho puede publicar una respuesta.`,
              'Cualquiera puede denunciar una opinión. Tras una denuncia, Consulta puede ocultarla si incumple las normas de las opiniones (por ejemplo, si revela datos personales, insulta o no trata de la consulta); se anota el motivo, y la opinión puede volver a mostrarse.',
            ],
            link: { href: REVIEWS_HELP_PATH, text: 'Cómo funcionan las opiniones' },
          },
          {
            heading: 'Derecho de desistimiento',
            paragraphs: [
              'Como consumidor tienes el derecho legal de desistir del contrato en los 14 días siguientes a la reserva (Texto Refundido de la Ley General para la Defensa de los Consumidores y Usuarios, TRLGDCU, arts. 102 a 108). Al elegir una fecha dentro de ese plazo pides que la consulta se preste en ella; una vez prestada la consulta, pierdes ese derecho (art. 103.a).',
              'Nada en estas condiciones limita tus derechos legales como consumidor.',
            ],
          },
          { heading: 'Reclamaciones', paragraphs: [`Escríbenos desde el formulario de contacto o a ${f.legal.email}. Tienes a tu disposición hojas de reclamaciones y la plataforma europea de resolución de litigios en línea (https://ec.europa.eu/consumers/odr).`] },
        ],
      };
    case 'cookies':
      return {
        title: 'Declaración de cookies',
        intro: 'Este sitio solo usa cookies estrictamente necesarias para prestar el servicio que pides: entrar, proteger los formularios y recordar tu idioma y tu zona horaria. No usa cookies de análisis, publicidad ni de terceros. Por eso no te pedimos consentimiento ni mostramos un aviso de cookies (LSSI-CE art. 22.2, y la guía de la AEPD sobre cookies).',
        sections: [
          { heading: 'Las cookies, una por una', paragraphs: ['Esta es la lista de todas las cookies que el sitio puede guardar. Una prueba automática falla si alguna respuesta del sitio guarda una cookie que no esté aquí.'] },
          { heading: 'Cómo borrarlas', paragraphs: ['Puedes borrarlas en la configuración de tu navegador. Si borras la de sesión, tendrás que volver a entrar.'] },
        ],
      };
  }
}

function en(page: LegalPage, f: Facts): LegalDocument {
  const who = `${f.legal.name}, tax id (NIF) ${f.legal.taxId}`;
  switch (page) {
    case 'aviso-legal':
      return {
        title: 'Legal notice',
        intro: 'As article 10 of Spain\'s Information Society Services Act (Ley 34/2002, LSSI-CE) requires, these are the details of who provides this service.',
        sections: [
          {
            heading: 'Who runs the service',
            list: [`Operator: ${f.legal.name}`, `Tax id (NIF): ${f.legal.taxId}`, `Registered address: ${f.legal.address}`, `Email: ${f.legal.email}`, ...(f.legal.registry ? [`Registry: ${f.legal.registry}`] : []), `Web site: ${f.siteUrl}`],
          },
          {
            heading: 'What Consulta is',
            paragraphs: [
              'Consulta is a platform to find verified immigration lawyers in Spain, see their free times and price, and book and pay for a consultation. Consulta does not give legal advice: the consultation is given by the lawyer, who answers for it under the rules of their bar association.',
              'Every lawyer listed is a member of a bar association; we check their membership number with that bar association before listing them.',
            ],
          },
          {
            heading: 'Terms of use',
            paragraphs: [
              'Using the site means accepting this notice. Bookings are governed by the booking terms. Users agree not to enter false information or unlawful content, and not to try to reach other people\'s accounts or data.',
              'Lawyers\' texts (biographies, answers to reviews) and clients\' reviews belong to their authors; Consulta shows them as text without interpreting them, and removes those that break the law once it actually knows of them (LSSI-CE art. 16).',
            ],
          },
          { heading: 'Intellectual property', paragraphs: ['The site\'s design, code and own texts belong to the operator or its licensors. Lawyers\' data belongs to them.'] },
          { heading: 'Applicable law', paragraphs: ['This notice is governed by Spanish law. Consumers may go to the courts of their home and to the EU online dispute resolution platform (https://ec.europa.eu/consumers/odr).'] },
        ],
      };
    case 'privacy':
      return {
        title: 'Privacy statement',
        intro: 'What personal data we process, why, on what legal basis and for how long, and how to use your rights (article 13 of the General Data Protection Regulation, GDPR, and Spain\'s Organic Law 3/2018, LOPDGDD).',
        sections: [
          { heading: 'Controller', list: [who, `Address: ${f.legal.address}`, `Privacy contact: ${f.legal.email}`] },
          {
            heading: 'What data, and why',
            list: [
              'Your email address, so you can sign in (we send you a code) and to send you the receipt, the calendar invitation and notices about your consultation. Basis: performing the contract you ask for (GDPR art. 6(1)(b)).',
              'Your booking: the lawyer, the date, the price, the format, the note you write for the lawyer and, for a phone consultation, your number. Basis: the contract (art. 6(1)(b)). When you book, we pass them to the lawyer who will see you.',
              'Payment data: the amount and the payment provider\'s reference. We never see or keep your full card number. Basis: the contract and the legal duty to keep sales records (art. 6(1)(c)).',
              'Messages you send us with the contact form, to answer them. Basis: our legitimate interest in answering questions (art. 6(1)(f)).',
              'The IP address and technical data of each request, to protect the service from abuse (attempt limits) and fix errors. Basis: legitimate interest in security (art. 6(1)(f)).',
            ],
          },
          {
            heading: 'For how long',
            list: [
              'Your account: until you delete it (you can, under Account).',
              'Bookings and payments: six years, as the Spanish Commercial Code requires (art. 30), without your name or address once you have deleted your account.',
              `Emails sent: ${f.mailRetentionDays} days in our sending record.`,
              `API request logs: ${f.requestLogRetentionDays} days.`,
              'Contact messages: one year, or until you delete your account if that comes first.',
            ],
          },
          {
            heading: 'Who receives it',
            paragraphs: [
              'The lawyer you book (your email, the booking and your note). The payment provider, when you pay (with Stripe, Stripe Payments Europe, Ltd., Ireland). The email provider that sends our messages. We do not sell data or use it for advertising.',
            ],
          },
          {
            heading: 'Your rights',
            paragraphs: [
              `You may ask for access, rectification, erasure, restriction or portability, or object, by writing to ${f.legal.email} or with the contact form. You can delete your account yourself under Account. If you think we have not respected your rights, you may complain to the Spanish Data Protection Agency (www.aepd.es).`,
            ],
          },
          { heading: 'Cookies', paragraphs: ['We only use strictly necessary cookies; the cookie statement lists them.'] },
        ],
      };
    case 'terms':
      return {
        title: 'Booking terms',
        intro: `What you agree to when you book a consultation on Consulta with ${f.legal.name}. Please read them before paying; the booking summary links to them.`,
        sections: [
          { heading: 'Who provides what', paragraphs: ['The consultation is given by the lawyer you choose, in full professional independence. Consulta handles the booking and the payment on the lawyer\'s behalf.'] },
          {
            heading: 'Price and payment',
            paragraphs: [
              'The price on the lawyer\'s page is the total you pay, taxes included; nothing is added at payment. Consulta\'s share is taken from the lawyer\'s fee. You are charged when you confirm the booking.',
              `A free time is held for you for ${HOLD_MINUTES} minutes while you sign in and pay; if you do not pay in that time it is released at no cost.`,
            ],
          },
          {
            heading: 'Cancelling or changing the time',
            paragraphs: ['You can cancel your consultation or change its time from My consultations. The consultation\'s page and the receipt say until when you can do it free of charge.'],
            list: [
              `Up to ${FREE_CHANGE_HOURS} hours before the start: cancel free of charge with a full refund, or move to another free time of the same lawyer at no cost.`,
              'When you move it, the payment is kept: you do not pay again and nothing is refunded; the consultation takes the new time.',
              `Less than ${FREE_CHANGE_HOURS} hours before: you may still cancel (the time is freed for others), but there is no refund, unless the lawyer decides to refund you; you can no longer move it.`,
              'Once the consultation has started, it can no longer be cancelled or moved.',
              'If the lawyer cancels, we always refund the full amount, whenever that happens.',
              'Refunds go back to the same payment method; your bank may take a few days to show them.',
            ],
          },
          {
            heading: 'Reviews',
            list: [
              'Only the person who booked a consultation that was held can review it: one review per consultation, with a rating from 1 to 5 and an optional comment.',
              `You can edit your review for ${REVIEW_EDIT_DAYS} days. The lawyer may publish an answer.`,
              'Anyone can report a review. After a report, Consulta may hide it if it breaks the rules for reviews (for instance, it reveals personal data, insults someone, or is not about the consultation); the reason is recorded, and the review can be shown again.',
            ],
            link: { href: REVIEWS_HELP_PATH, text: 'How reviews work' },
          },
          {
            heading: 'Right of withdrawal',
            paragraphs: [
              'As a consumer you have the legal right to withdraw from the contract within 14 days of booking (Spain\'s consumer protection law, TRLGDCU, arts. 102 to 108). By choosing a date within that period you ask for the consultation to be given then; once it has been given, you lose that right (art. 103(a)).',
              'Nothing in these terms limits your statutory rights as a consumer.',
            ],
          },
          { heading: 'Complaints', paragraphs: [`Write to us with the contact form or at ${f.legal.email}. Complaint forms (hojas de reclamaciones) are available, as is the EU online dispute resolution platform (https://ec.europa.eu/consumers/odr).`] },
        ],
      };
    case 'cookies':
      return {
        title: 'Cookie statement',
        intro: 'This site only uses cookies that are strictly necessary for the service you ask for: signing in, protecting forms, and remembering your language and time zone. It uses no analytics, advertising or third-party cookies. That is why we do not ask for consent or show a cookie banner (LSSI-CE art. 22.2 and the Spanish Data Protection Agency\'s guide on cookies).',
        sections: [
          { heading: 'Every cookie', paragraphs: ['This is the list of every cookie the site may store. An automated test fails if any response of the site stores a cookie that is not listed here.'] },
          { heading: 'How to remove them', paragraphs: ['You can delete them in your browser\'s settings. If you delete the session cookie, you will need to sign in again.'] },
        ],
      };
  }
}

const DOCUMENTS: Readonly<Record<Locale, (page: LegalPage, facts: Facts) => LegalDocument>> = { es, en, fr, ar, uk, ro };

/** The document in `locale` (every language of the site has its own text). */
export function legalDocument(page: LegalPage, locale: Locale, facts: Facts): LegalDocument {
  return DOCUMENTS[locale](page, { ...facts, legal: localLegal(facts.legal, locale) });
}

/** The operator's facts with each unset one's demonstration value in `locale` (the email is an address in every language). */
export function localLegal(legal: LegalIdentity, locale: Locale): LegalIdentity {
  if (legal.missing.length === 0) return legal;
  const demo = LEGAL_CHROME[locale].demoValues;
  const unset = (setting: LegalSetting) => legal.missing.includes(setting);
  return {
    ...legal,
    name: unset('LEGAL_NAME') ? demo.name : legal.name,
    taxId: unset('LEGAL_TAX_ID') ? demo.taxId : legal.taxId,
    address: unset('LEGAL_ADDRESS') ? demo.address : legal.address,
    registry: unset('LEGAL_REGISTRY') ? demo.registry : legal.registry,
  };
}
