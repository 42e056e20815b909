/**
 * The legal pages in Romanian: a translation of the Spanish text (src/site/help/legal-texts.ts),
 * section for section; the Spanish text prevails (LEGAL_CHROME.ro.prevails says so on the page).
 * Spanish official names stay in Spanish, explained where they first appear. The polite form
 * («dumneavoastră»), as ro.ts writes to people.
 */
import { FREE_CHANGE_HOURS } from '../../../domain/booking/policy.ts';
import { HOLD_MINUTES, REVIEW_EDIT_DAYS, REVIEWS_HELP_PATH, type Facts, type LegalDocument, type LegalPage } from '../legal-texts.ts';

/** Romanian puts «de» between a number from 20 up and its noun («30 de zile», «15 minute»). */
const de = (n: number): string => (n % 100 >= 20 || n % 100 === 0 ? `${n} de` : `${n}`);

export function ro(page: LegalPage, f: Facts): LegalDocument {
  switch (page) {
    case 'aviso-legal':
      return {
        title: 'Informații legale',
        intro: 'În conformitate cu articolul 10 din Legea spaniolă 34/2002 privind serviciile societății informaționale și comerțul electronic (LSSI-CE), acestea sunt datele celui care prestează acest serviciu.',
        sections: [
          {
            heading: 'Titularul serviciului',
            list: [
              `Titular: ${f.legal.name}`,
              `Cod de identificare fiscală (NIF): ${f.legal.taxId}`,
              `Sediu: ${f.legal.address}`,
              `E-mail: ${f.legal.email}`,
              ...(f.legal.registry ? [`Date de înregistrare (Registro Mercantil, registrul comerțului din Spania): ${f.legal.registry}`] : []),
              `Site web: ${f.siteUrl}`,
            ],
          },
          {
            heading: 'Ce este Consulta',
            paragraphs: [
              'Consulta este o platformă care vă permite să găsiți avocate și avocați verificați, specializați în dreptul străinilor în Spania, să vedeți când sunt disponibili și cât costă, apoi să rezervați și să plătiți o consultație. Consulta nu oferă consultanță juridică: consultația este oferită de cabinetul pe care îl alegeți, care răspunde pentru ea potrivit regulilor baroului din care face parte (colegio de abogados).',
              'Fiecare profil publicat aparține unei avocate sau unui avocat în exercițiu; înainte de publicare verificăm numărul de înscriere la baroul respectiv.',
            ],
          },
          {
            heading: 'Condiții de utilizare',
            paragraphs: [
              'Folosirea site-ului înseamnă acceptarea acestor informații legale. Rezervările sunt guvernate de condițiile de rezervare. Cei care folosesc site-ul se angajează să nu introducă informații false sau conținut ilicit și să nu încerce să acceseze conturile sau datele altor persoane.',
              'Textele cabinetelor (biografii, răspunsuri la recenzii) și recenziile clienților aparțin autorilor lor; Consulta le afișează ca text, fără să le interpreteze, și le elimină pe cele care încalcă legea de îndată ce are cunoștință efectivă de acest lucru (articolul 16 din LSSI-CE).',
            ],
          },
          { heading: 'Proprietate intelectuală', paragraphs: ['Designul, codul și textele proprii ale site-ului aparțin titularului sau licențiatorilor săi. Datele cabinetelor le aparțin acestora.'] },
          { heading: 'Legea aplicabilă', paragraphs: ['Aceste informații legale sunt guvernate de legea spaniolă. Dacă sunteți consumator, vă puteți adresa instanțelor de la domiciliul dumneavoastră și platformei europene de soluționare online a litigiilor (https://ec.europa.eu/consumers/odr).'] },
        ],
      };
    case 'privacy':
      return {
        title: 'Politica de confidențialitate',
        intro: 'Ce date cu caracter personal prelucrăm, în ce scop, pe ce temei juridic și cât timp, și cum vă puteți exercita drepturile (articolul 13 din Regulamentul general privind protecția datelor, RGPD, și Legea organică spaniolă 3/2018, LOPDGDD).',
        sections: [
          { heading: 'Operatorul de date', list: [`${f.legal.name}, cod fiscal (NIF) ${f.legal.taxId}`, `Adresă: ${f.legal.address}`, `Contact pentru protecția datelor: ${f.legal.email}`] },
          {
            heading: 'Ce date și de ce',
            list: [
              'Adresa dumneavoastră de e-mail, ca să vă puteți conecta (vă trimitem un cod) și ca să vă trimitem chitanța, invitația de calendar și mesajele despre consultația dumneavoastră. Temei: executarea contractului pe care îl solicitați (articolul 6 alineatul (1) litera (b) din RGPD).',
              'Rezervarea dumneavoastră: cabinetul, data, prețul, formatul, nota pe care o scrieți pentru cabinet și, pentru o consultație telefonică, numărul dumneavoastră. Temei: contractul (articolul 6 alineatul (1) litera (b)). Când rezervați, le comunicăm cabinetului care vă va primi.',
              'Datele de plată: suma și referința furnizorului de plăți. Nu vedem și nu păstrăm niciodată numărul complet al cardului dumneavoastră. Temei: contractul și obligația legală de a păstra evidența vânzărilor (articolul 6 alineatul (1) litera (c)).',
              'Mesajele pe care ni le trimiteți prin formularul de contact, pentru a vă răspunde. Temei: interesul nostru legitim de a răspunde la întrebări (articolul 6 alineatul (1) litera (f)).',
              'Adresa IP și datele tehnice ale fiecărei cereri, pentru a proteja serviciul împotriva abuzurilor (limite de încercări) și pentru a corecta erorile. Temei: interesul legitim privind securitatea (articolul 6 alineatul (1) litera (f)).',
            ],
          },
          {
            heading: 'Cât timp',
            list: [
              'Contul dumneavoastră: până când îl ștergeți (o puteți face singur(ă), în Cont).',
              'Rezervările și plățile: șase ani, așa cum cere Codul comercial spaniol (Código de Comercio, articolul 30), fără numele și adresa dumneavoastră de e-mail dacă v-ați șters contul.',
              `E-mailurile trimise: ${de(f.mailRetentionDays)} zile în registrul nostru de trimiteri.`,
              `Jurnalele cererilor către API: ${de(f.requestLogRetentionDays)} zile.`,
              'Mesajele de contact: un an sau până când vă ștergeți contul, dacă aceasta se întâmplă mai devreme.',
            ],
          },
          {
            heading: 'Cui le comunicăm',
            paragraphs: [
              'Cabinetului la care rezervați (adresa de e-mail, rezervarea și nota dumneavoastră). Furnizorului de plăți, când plătiți (în cazul Stripe, Stripe Payments Europe, Ltd., Irlanda). Furnizorului de e-mail care ne trimite mesajele. Nu vindem date și nu le folosim în scopuri publicitare.',
            ],
          },
          {
            heading: 'Drepturile dumneavoastră',
            paragraphs: [
              `Puteți cere accesul la date, rectificarea, ștergerea, restricționarea prelucrării sau portabilitatea lor ori vă puteți opune prelucrării, scriind la ${f.legal.email} sau prin formularul de contact. Vă puteți șterge singur(ă) contul, în Cont. Dacă considerați că nu v-am respectat drepturile, puteți depune o plângere la Agencia Española de Protección de Datos (AEPD, autoritatea spaniolă pentru protecția datelor: www.aepd.es).`,
            ],
          },
          { heading: 'Cookie-uri', paragraphs: ['Folosim doar cookie-uri strict necesare; declarația privind cookie-urile le enumeră.'] },
        ],
      };
    case 'terms':
      return {
        title: 'Condiții de rezervare',
        intro: `La ce vă angajați când rezervați o consultație pe Consulta cu ${f.legal.name}. Citiți-le înainte de a plăti; rezumatul rezervării vi le amintește.`,
        sections: [
          {
            heading: 'Cine ce oferă',
            paragraphs: ['Consultația este oferită de avocata sau avocatul pe care îl alegeți, cu deplină independență profesională. Consulta se ocupă de rezervare și de încasarea plății în numele cabinetului.'],
          },
          {
            heading: 'Preț și plată',
            paragraphs: [
              'Prețul afișat pe pagina cabinetului este suma totală pe care o plătiți, cu taxele incluse; nu se adaugă nimic la plată. Partea Consulta se scade din onorariul cabinetului. Plata se încasează când confirmați rezervarea.',
              `O oră liberă este rezervată pentru dumneavoastră timp de ${de(HOLD_MINUTES)} minute, cât vă conectați și plătiți; dacă nu plătiți în acest timp, ea este eliberată fără niciun cost.`,
            ],
          },
          {
            heading: 'Anularea sau schimbarea orei',
            paragraphs: ['Vă puteți anula consultația sau îi puteți schimba ora din Consultațiile mele. Pagina consultației și chitanța arată până când o puteți face gratuit.'],
            list: [
              `Cu cel puțin ${de(FREE_CHANGE_HOURS)} ore înainte de început: puteți anula gratuit, cu rambursarea integrală a prețului, sau vă puteți muta fără cost la altă oră liberă a aceluiași cabinet.`,
              'Când schimbați ora, plata se păstrează: nu plătiți din nou și nu vi se rambursează nimic; consultația trece la noua oră.',
              `Cu mai puțin de ${de(FREE_CHANGE_HOURS)} ore înainte: puteți încă anula (ora se eliberează pentru alte persoane), dar fără rambursare, cu excepția cazului în care cabinetul decide să vă ramburseze; nu mai puteți schimba ora.`,
              'După ce consultația a început, ea nu mai poate fi anulată sau mutată.',
              'Dacă cabinetul anulează, vă rambursăm întotdeauna suma integrală, oricând s-ar întâmpla acest lucru.',
              'Rambursările se fac pe același mijloc de plată; banca poate avea nevoie de câteva zile ca să le afișeze.',
            ],
          },
          {
            heading: 'Recenzii',
            list: [
              'Doar persoana care a rezervat o consultație care a avut loc efectiv poate lăsa o recenzie: una pentru fiecare consultație, cu o notă de la 1 la 5 și un comentariu opțional.',
              `Vă puteți modifica recenzia timp de ${de(REVIEW_EDIT_DAYS)} zile. Cabinetul poate publica un răspuns.`,
              'Oricine poate semnala o recenzie. După o semnalare, Consulta o poate ascunde dacă încalcă regulile pentru recenzii (de exemplu, dacă dezvăluie date personale, conține insulte sau nu se referă la consultație); motivul se consemnează, iar recenzia poate fi afișată din nou.',
            ],
            link: { href: REVIEWS_HELP_PATH, text: 'Cum funcționează recenziile' },
          },
          {
            heading: 'Dreptul de retragere',
            paragraphs: [
              'În calitate de consumator aveți dreptul legal de a vă retrage din contract în termen de 14 zile de la rezervare (textul consolidat al Legii generale spaniole pentru apărarea consumatorilor și utilizatorilor, TRLGDCU, articolele 102–108). Alegând o dată din acest termen, cereți ca consultația să fie prestată atunci; după ce consultația a fost prestată, pierdeți acest drept (articolul 103 litera a).',
              'Nimic din aceste condiții nu vă limitează drepturile legale de consumator.',
            ],
          },
          {
            heading: 'Reclamații',
            paragraphs: [
              `Scrieți-ne prin formularul de contact sau la ${f.legal.email}. Aveți la dispoziție formularele oficiale de reclamație (hojas de reclamaciones), precum și platforma europeană de soluționare online a litigiilor (https://ec.europa.eu/consumers/odr).`,
            ],
          },
        ],
      };
    case 'cookies':
      return {
        title: 'Declarația privind cookie-urile',
        intro: 'Acest site folosește doar cookie-uri strict necesare pentru serviciul pe care îl solicitați: conectarea, protecția formularelor și reținerea limbii și a fusului dumneavoastră orar. Nu folosește cookie-uri de analiză, de publicitate sau ale unor terți. De aceea nu vă cerem consimțământul și nu afișăm un banner de cookie-uri (articolul 22.2 din LSSI-CE și ghidul AEPD, autoritatea spaniolă pentru protecția datelor, privind cookie-urile).',
        sections: [
          { heading: 'Cookie-urile, unul câte unul', paragraphs: ['Aceasta este lista tuturor cookie-urilor pe care le poate salva site-ul. Un test automat eșuează dacă vreun răspuns al site-ului salvează un cookie care nu figurează aici.'] },
          { heading: 'Cum le ștergeți', paragraphs: ['Le puteți șterge din setările browserului. Dacă ștergeți cookie-ul de sesiune, va trebui să vă conectați din nou.'] },
        ],
      };
  }
}
