/**
 * The legal pages a Spanish web service publishes (docs/site.md#legal-pages), in Spanish and
 * English: the legal notice (aviso legal, LSSI-CE art. 10), privacy (GDPR art. 13), the booking
 * terms with the cancellation policy (DESIGN §11) and the cookie statement. The operator's
 * identity comes from the LEGAL_* settings (config.legal); while any is a demonstration default
 * the pages say so.
 *
 * Kept apart from the string catalogues because they are documents, not interface strings: the
 * Spanish text is the one that binds; other languages show the English text with a line saying
 * so, until a checked translation exists (a legal text is not machine-translated).
 */
import type { LegalIdentity } from '../../config.ts';
import type { SiteCookies } from '../plugin.ts';
import { ZONE_COOKIE } from '../booking/visitor-zone.ts';

export type LegalPage = 'aviso-legal' | 'privacy' | 'terms' | 'cookies';
export const LEGAL_PAGES: readonly LegalPage[] = ['aviso-legal', 'privacy', 'terms', 'cookies'];

/** Free cancellation (full refund) or a move up to this many hours before the start (DESIGN §11). */
export const FREE_CANCELLATION_HOURS = 24;

/** The date the texts last changed in substance (shown on each page). */
export const LEGAL_UPDATED = '2026-11-25';

export interface LegalSection {
  heading: string;
  paragraphs?: string[];
  list?: string[];
}

export interface LegalDocument {
  title: string;
  intro: string;
  sections: LegalSection[];
}

/** One cookie the site may set: every one is strictly necessary (no consent banner, LSSI-CE art. 22.2). */
export interface CookieEntry {
  /** The cookie's names (one, or a family set together). */
  names: string[];
  /** Which part of the site sets it. */
  where: 'site' | 'oauth';
  purpose: { es: string; en: string };
  lifetime: { es: string; en: string };
}

/**
 * Every cookie any response may set. test/site/cookies.test.ts fails when a response sets one
 * that is not here: adding a cookie means adding it to the statement first.
 */
export function cookieList(cookies: Pick<SiteCookies, 'session' | 'csrf' | 'signIn' | 'lang' | 'holds'>, sessionMaxDays: number): CookieEntry[] {
  return [
    {
      names: [cookies.session],
      where: 'site',
      purpose: { es: 'Mantiene tu sesión iniciada después de entrar.', en: 'Keeps you signed in after you sign in.' },
      lifetime: { es: `hasta que sales, o ${sessionMaxDays} días como máximo`, en: `until you sign out, ${sessionMaxDays} days at most` },
    },
    {
      names: [cookies.csrf],
      where: 'site',
      purpose: { es: 'Protege los formularios: comprueba que los envías tú desde este sitio (falsificación de peticiones).', en: 'Protects forms: checks that you sent them from this site (request forgery).' },
      lifetime: { es: 'la sesión del navegador', en: 'the browser session' },
    },
    {
      names: [cookies.signIn],
      where: 'site',
      purpose: { es: 'Une el enlace de acceso del correo al navegador que lo pidió.', en: 'Ties the sign-in link in the email to the browser that asked for it.' },
      lifetime: { es: '10 minutos', en: '10 minutes' },
    },
    {
      names: [cookies.lang],
      where: 'site',
      purpose: { es: 'Recuerda el idioma que elegiste con el selector de idioma.', en: 'Remembers the language you chose with the language switch.' },
      lifetime: { es: '1 año', en: '1 year' },
    },
    {
      names: [cookies.holds],
      where: 'site',
      purpose: {
        es: 'Recuerda las horas que reservaste en este navegador mientras confirmas: al elegir otra hora con el mismo despacho, sustituye a la anterior en lugar de contar como una reserva más.',
        en: 'Remembers the times you held in this browser while you confirm: choosing another time with the same lawyer replaces the earlier one instead of counting as one more hold.',
      },
      lifetime: { es: '1 hora', en: '1 hour' },
    },
    {
      names: [ZONE_COOKIE],
      where: 'site',
      purpose: {
        es: 'Recuerda tu zona horaria (la de tu navegador, o la que elegiste) para mostrar las horas también en tu hora local. Solo el nombre de la zona, como Europe/Madrid.',
        en: 'Remembers your time zone (your browser\'s, or the one you chose) to show times in your own local time too. Only the zone\'s name, such as Europe/Madrid.',
      },
      lifetime: { es: '1 año', en: '1 year' },
    },
    {
      names: ['_interaction', '_interaction.sig', '_interaction_resume', '_interaction_resume.sig', '_session', '_session.sig', '_session.legacy', '_session.legacy.sig'],
      where: 'oauth',
      purpose: {
        es: 'Solo al conectar un asistente de IA a tu cuenta (servidor de autorización, /oauth): recuerdan la autorización en curso y su firma.',
        en: 'Only while connecting an AI assistant to your account (the authorization server, /oauth): they remember the authorization in progress, and sign it.',
      },
      lifetime: { es: 'hasta terminar la autorización, o lo que dure tu sesión', en: 'until the authorization ends, or as long as your session' },
    },
  ];
}

interface Facts {
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
              'Consulta es una plataforma que permite encontrar abogados y abogadas de extranjería verificados en España, ver su disponibilidad y precio, y reservar y pagar una consulta. Consulta no presta asesoramiento jurídico: la consulta la presta el profesional, que es responsable de ella conforme a las normas de su colegio.',
              'Cada profesional publicado está colegiado; comprobamos su número de colegiación con el colegio correspondiente antes de publicarlo.',
            ],
          },
          {
            heading: 'Condiciones de uso',
            paragraphs: [
              'El uso del sitio implica aceptar este aviso. Las reservas se rigen por las condiciones de reserva. Quien use el sitio se compromete a no introducir información falsa ni contenidos ilícitos, y a no intentar acceder a cuentas o datos ajenos.',
              'Los textos de los profesionales (biografías, respuestas a opiniones) y las opiniones de los clientes son de sus autores; Consulta los muestra como texto sin interpretarlos y retira los que infrinjan la ley cuando tiene conocimiento efectivo de ello (LSSI-CE art. 16).',
            ],
          },
          { heading: 'Propiedad intelectual', paragraphs: ['El diseño, el código y los textos propios del sitio pertenecen al titular o a sus licenciantes. Los datos de los profesionales son suyos.'] },
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
              'Tu reserva: el profesional, la fecha, el precio, el formato, la nota que escribas para el profesional y, si la consulta es por teléfono, tu número. Base: el contrato (art. 6.1.b). Al reservar, se los comunicamos al profesional que te atenderá.',
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
              'Al profesional con quien reservas (tu correo, la reserva y tu nota). Al proveedor de pagos, cuando pagas (si se usa Stripe, Stripe Payments Europe, Ltd., Irlanda). Al proveedor de correo electrónico que envía nuestros mensajes. No vendemos datos ni los usamos para publicidad.',
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
              'La consulta la presta el abogado o la abogada que eliges, con plena independencia profesional. Consulta gestiona la reserva y el cobro por cuenta del profesional.',
            ],
          },
          {
            heading: 'Precio y pago',
            paragraphs: [
              'El precio que ves en la página del profesional es el total que pagas, impuestos incluidos; no se añade nada al pagar. La parte de Consulta se descuenta de los honorarios del profesional. Se cobra al confirmar la reserva.',
              'Una hora libre se aparta para ti durante 15 minutos mientras entras y pagas; si no pagas en ese tiempo, se libera sin coste.',
            ],
          },
          {
            heading: 'Cancelar o cambiar la hora',
            list: [
              `Hasta ${FREE_CANCELLATION_HOURS} horas antes del inicio: puedes cancelar gratis, con reembolso completo del precio, o cambiar a otra hora libre del mismo profesional sin coste (el pago se mantiene).`,
              `Con menos de ${FREE_CANCELLATION_HOURS} horas: no hay reembolso, salvo que el profesional decida reembolsarte.`,
              'Si el profesional cancela, te devolvemos el importe completo.',
              'Los reembolsos vuelven al mismo medio de pago; el banco puede tardar unos días en mostrarlos.',
            ],
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
        intro: 'Este sitio solo usa cookies estrictamente necesarias para prestar el servicio que pides: entrar, proteger los formularios y recordar el idioma. No usa cookies de análisis, publicidad ni de terceros. Por eso no te pedimos consentimiento ni mostramos un aviso de cookies (LSSI-CE art. 22.2, y la guía de la AEPD sobre cookies).',
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
              'A free time is held for you for 15 minutes while you sign in and pay; if you do not pay in that time it is released at no cost.',
            ],
          },
          {
            heading: 'Cancelling or changing the time',
            list: [
              `Up to ${FREE_CANCELLATION_HOURS} hours before the start: cancel free of charge with a full refund, or move to another free time of the same lawyer at no cost (the payment is kept).`,
              `Less than ${FREE_CANCELLATION_HOURS} hours before: no refund, unless the lawyer decides to refund you.`,
              'If the lawyer cancels, we refund the full amount.',
              'Refunds go back to the same payment method; your bank may take a few days to show them.',
            ],
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
        intro: 'This site only uses cookies that are strictly necessary for the service you ask for: signing in, protecting forms and remembering your language. It uses no analytics, advertising or third-party cookies. That is why we do not ask for consent or show a cookie banner (LSSI-CE art. 22.2 and the Spanish Data Protection Agency\'s guide on cookies).',
        sections: [
          { heading: 'Every cookie', paragraphs: ['This is the list of every cookie the site may store. An automated test fails if any response of the site stores a cookie that is not listed here.'] },
          { heading: 'How to remove them', paragraphs: ['You can delete them in your browser\'s settings. If you delete the session cookie, you will need to sign in again.'] },
        ],
      };
  }
}

/**
 * What a page in a language without a checked legal translation says above the English text (in
 * that language): that the text is the English version and that the Spanish one binds. A legal
 * translation needs a lawyer's check, which the people-only languages do not have yet
 * (docs/site.md, "Legal pages"); an interface string would not do, as it names the document.
 */
export const UNTRANSLATED_NOTE: Readonly<Record<string, string>> = {
  fr: 'Cette page n’existe pas encore en français\u00a0: voici sa version anglaise. Seule la version espagnole fait foi.',
  ar: 'هذه الصفحة غير متوفرة بعد باللغة العربية، وهذه نسختها الإنجليزية. النسخة الإسبانية وحدها هي المعتمدة قانونيًا.',
  uk: 'Ця сторінка ще не перекладена українською, тож ось її англійська версія. Юридичну силу має лише іспанська версія.',
  ro: 'Această pagină nu este încă tradusă în limba română, așa că iată versiunea ei în engleză. Doar versiunea în spaniolă are valoare juridică.',
};

/** The document in `locale`: Spanish or English; other languages get English, marked as such by the page (and UNTRANSLATED_NOTE above it). */
export function legalDocument(page: LegalPage, locale: string, facts: Facts): { doc: LegalDocument; language: 'es' | 'en' } {
  if (locale === 'es') return { doc: es(page, facts), language: 'es' };
  return { doc: en(page, facts), language: 'en' };
}
