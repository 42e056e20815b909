/**
 * The legal pages in French: a translation of the Spanish text (src/site/help/legal-texts.ts),
 * section for section; the Spanish text prevails (LEGAL_CHROME.fr.prevails says so on the page).
 * Spanish official names stay in Spanish, explained where they first appear. Vous, no-break
 * spaces before « : ; ? ! » as French writes them.
 */
import { FREE_CHANGE_HOURS } from '../../../domain/booking/policy.ts';
import { HOLD_MINUTES, REVIEW_EDIT_DAYS, REVIEWS_HELP_PATH, type Facts, type LegalDocument, type LegalPage } from '../legal-texts.ts';

export function fr(page: LegalPage, f: Facts): LegalDocument {
  switch (page) {
    case 'aviso-legal':
      return {
        title: 'Mentions légales',
        intro: 'Conformément à l’article 10 de la loi espagnole 34/2002 sur les services de la société de l’information et le commerce électronique (LSSI-CE), voici les informations sur le prestataire de ce service.',
        sections: [
          {
            heading: 'Titulaire du service',
            list: [
              `Titulaire\u00a0: ${f.legal.name}`,
              `Numéro d’identification fiscale (NIF)\u00a0: ${f.legal.taxId}`,
              `Siège\u00a0: ${f.legal.address}`,
              `Adresse e-mail\u00a0: ${f.legal.email}`,
              ...(f.legal.registry ? [`Immatriculation (Registro Mercantil, registre du commerce espagnol)\u00a0: ${f.legal.registry}`] : []),
              `Site web\u00a0: ${f.siteUrl}`,
            ],
          },
          {
            heading: 'Qu’est-ce que Consulta\u00a0?',
            paragraphs: [
              'Consulta est une plateforme qui permet de trouver des avocates et des avocats vérifiés en droit des étrangers en Espagne, de voir leurs disponibilités et leurs tarifs, puis de réserver et de payer une consultation. Consulta ne donne pas de conseil juridique\u00a0: la consultation est donnée par le cabinet que vous choisissez, qui en répond selon les règles de son ordre des avocats (colegio de abogados).',
              'Chaque profil publié appartient à une avocate ou à un avocat en exercice\u00a0; nous vérifions son numéro d’inscription auprès de l’ordre concerné avant de le publier.',
            ],
          },
          {
            heading: 'Conditions d’utilisation',
            paragraphs: [
              'Utiliser le site implique d’accepter les présentes mentions. Les réservations sont régies par les conditions de réservation. Les personnes qui utilisent le site s’engagent à ne pas saisir d’informations fausses ni de contenus illicites, et à ne pas tenter d’accéder aux comptes ou aux données d’autrui.',
              'Les textes des cabinets (biographies, réponses aux avis) et les avis de la clientèle appartiennent à leurs auteurs\u00a0; Consulta les affiche comme du texte, sans les interpréter, et retire ceux qui enfreignent la loi dès qu’elle en a effectivement connaissance (article 16 de la LSSI-CE).',
            ],
          },
          { heading: 'Propriété intellectuelle', paragraphs: ['La conception, le code et les textes propres du site appartiennent au titulaire ou à ses concédants de licence. Les données des cabinets leur appartiennent.'] },
          { heading: 'Droit applicable', paragraphs: ['Les présentes mentions sont régies par le droit espagnol. Si vous êtes consommateur ou consommatrice, vous pouvez saisir les tribunaux de votre domicile ainsi que la plateforme européenne de règlement en ligne des litiges (https://ec.europa.eu/consumers/odr).'] },
        ],
      };
    case 'privacy':
      return {
        title: 'Politique de confidentialité',
        intro: 'Quelles données personnelles nous traitons, pourquoi, sur quelle base légale et pendant combien de temps, et comment exercer vos droits (article 13 du Règlement général sur la protection des données, RGPD, et loi organique espagnole 3/2018, LOPDGDD).',
        sections: [
          { heading: 'Responsable du traitement', list: [`${f.legal.name}, NIF ${f.legal.taxId}`, `Adresse\u00a0: ${f.legal.address}`, `Contact pour la protection des données\u00a0: ${f.legal.email}`] },
          {
            heading: 'Quelles données, et pourquoi',
            list: [
              'Votre adresse e-mail, pour que vous puissiez vous connecter (nous vous envoyons un code) et pour vous envoyer le reçu, l’invitation d’agenda et les messages concernant votre consultation. Base\u00a0: l’exécution du contrat que vous demandez (article 6, paragraphe 1, point b, du RGPD).',
              'Votre réservation\u00a0: le cabinet, la date, le prix, le format, la note que vous écrivez pour le cabinet et, pour une consultation par téléphone, votre numéro. Base\u00a0: le contrat (article 6.1.b). Lorsque vous réservez, nous les transmettons au cabinet qui vous recevra.',
              'Les données de paiement\u00a0: le montant et la référence du prestataire de paiement. Nous ne voyons ni ne conservons jamais le numéro complet de votre carte. Base\u00a0: le contrat et l’obligation légale de conserver les registres de ventes (article 6.1.c).',
              'Les messages que vous nous envoyez avec le formulaire de contact, pour y répondre. Base\u00a0: notre intérêt légitime à répondre aux questions (article 6.1.f).',
              'L’adresse IP et les données techniques de chaque requête, pour protéger le service contre les abus (limites de tentatives) et corriger les erreurs. Base\u00a0: l’intérêt légitime à la sécurité (article 6.1.f).',
            ],
          },
          {
            heading: 'Pendant combien de temps',
            list: [
              'Votre compte\u00a0: jusqu’à ce que vous le supprimiez (vous pouvez le faire vous-même dans Compte).',
              'Les réservations et les paiements\u00a0: six ans, comme l’exige le Code de commerce espagnol (Código de Comercio, article 30), sans votre nom ni votre adresse e-mail si vous avez supprimé votre compte.',
              `Les e-mails envoyés\u00a0: ${f.mailRetentionDays}\u00a0jours dans notre registre d’envois.`,
              `Les journaux des requêtes de l’API\u00a0: ${f.requestLogRetentionDays}\u00a0jours.`,
              'Les messages de contact\u00a0: un an, ou jusqu’à la suppression de votre compte si elle intervient avant.',
            ],
          },
          {
            heading: 'À qui elles sont communiquées',
            paragraphs: [
              'Au cabinet auprès duquel vous réservez (votre adresse e-mail, la réservation et votre note). Au prestataire de paiement, lorsque vous payez (avec Stripe, Stripe Payments Europe, Ltd., Irlande). Au prestataire qui envoie nos e-mails. Nous ne vendons pas de données et ne les utilisons pas à des fins publicitaires.',
            ],
          },
          {
            heading: 'Vos droits',
            paragraphs: [
              `Vous pouvez demander l’accès, la rectification, l’effacement, la limitation ou la portabilité de vos données, ou vous opposer à leur traitement, en écrivant à ${f.legal.email} ou avec le formulaire de contact. Vous pouvez supprimer vous-même votre compte dans Compte. Si vous estimez que vos droits n’ont pas été respectés, vous pouvez introduire une réclamation auprès de l’Agencia Española de Protección de Datos (AEPD, l’autorité espagnole de protection des données\u00a0: www.aepd.es).`,
            ],
          },
          { heading: 'Cookies', paragraphs: ['Nous n’utilisons que des cookies strictement nécessaires\u00a0; la déclaration relative aux cookies en donne la liste.'] },
        ],
      };
    case 'terms':
      return {
        title: 'Conditions de réservation',
        intro: `Ce que vous acceptez lorsque vous réservez une consultation sur Consulta auprès de ${f.legal.name}. Lisez-les avant de payer\u00a0; le récapitulatif de la réservation vous les rappelle.`,
        sections: [
          {
            heading: 'Qui fournit quoi',
            paragraphs: ['La consultation est donnée par l’avocate ou l’avocat que vous choisissez, en toute indépendance professionnelle. Consulta gère la réservation et l’encaissement pour le compte du cabinet.'],
          },
          {
            heading: 'Prix et paiement',
            paragraphs: [
              'Le prix affiché sur la page du cabinet est le montant total que vous payez, taxes comprises\u00a0; rien n’est ajouté au moment du paiement. La part de Consulta est prélevée sur les honoraires du cabinet. Le paiement est débité lorsque vous confirmez la réservation.',
              `Un créneau libre vous est réservé pendant ${HOLD_MINUTES}\u00a0minutes, le temps de vous connecter et de payer\u00a0; si vous ne payez pas dans ce délai, il est libéré sans frais.`,
            ],
          },
          {
            heading: 'Annuler ou changer l’horaire',
            paragraphs: ['Vous pouvez annuler votre consultation ou en changer l’horaire depuis Mes consultations. La page de la consultation et le reçu indiquent jusqu’à quand vous pouvez le faire gratuitement.'],
            list: [
              `Jusqu’à ${FREE_CHANGE_HOURS}\u00a0heures avant le début\u00a0: vous pouvez annuler gratuitement, avec le remboursement intégral du prix, ou passer sans frais à un autre créneau libre du même cabinet.`,
              'Si vous changez d’horaire, le paiement est conservé\u00a0: vous ne payez pas une nouvelle fois et rien ne vous est remboursé\u00a0; la consultation passe au nouvel horaire.',
              `À moins de ${FREE_CHANGE_HOURS}\u00a0heures du début\u00a0: vous pouvez encore annuler (le créneau est libéré pour d’autres personnes), mais sans remboursement, sauf si le cabinet décide de vous rembourser\u00a0; vous ne pouvez plus changer d’horaire.`,
              'Une fois la consultation commencée, elle ne peut plus être annulée ni déplacée.',
              'Si c’est le cabinet qui annule, nous vous remboursons toujours l’intégralité du montant, quel que soit le moment.',
              'Les remboursements sont effectués sur le moyen de paiement utilisé\u00a0; votre banque peut mettre quelques jours à les afficher.',
            ],
          },
          {
            heading: 'Avis',
            list: [
              'Seule la personne qui a réservé une consultation ayant effectivement eu lieu peut laisser un avis\u00a0: un avis par consultation, avec une note de 1 à 5 et un commentaire facultatif.',
              `Vous pouvez modifier votre avis pendant ${REVIEW_EDIT_DAYS}\u00a0jours. Le cabinet peut publier une réponse.`,
              'Toute personne peut signaler un avis. Après un signalement, Consulta peut le masquer s’il enfreint les règles applicables aux avis (par exemple s’il révèle des données personnelles, contient des insultes ou ne porte pas sur la consultation)\u00a0; le motif est consigné, et l’avis peut être rétabli.',
            ],
            link: { href: REVIEWS_HELP_PATH, text: 'Comment fonctionnent les avis' },
          },
          {
            heading: 'Droit de rétractation',
            paragraphs: [
              'En tant que consommateur ou consommatrice, vous disposez du droit légal de vous rétracter du contrat dans les 14\u00a0jours suivant la réservation (texte refondu de la loi générale espagnole de défense des consommateurs et usagers, TRLGDCU, articles 102 à 108). En choisissant une date comprise dans ce délai, vous demandez que la consultation soit fournie à cette date\u00a0; une fois la consultation fournie, vous perdez ce droit (article 103, point a).',
              'Rien dans les présentes conditions ne limite les droits que la loi vous reconnaît en tant que consommateur ou consommatrice.',
            ],
          },
          {
            heading: 'Réclamations',
            paragraphs: [
              `Écrivez-nous avec le formulaire de contact ou à ${f.legal.email}. Des formulaires officiels de réclamation (hojas de reclamaciones) sont à votre disposition, ainsi que la plateforme européenne de règlement en ligne des litiges (https://ec.europa.eu/consumers/odr).`,
            ],
          },
        ],
      };
    case 'cookies':
      return {
        title: 'Déclaration relative aux cookies',
        intro: 'Ce site n’utilise que des cookies strictement nécessaires au service que vous demandez\u00a0: vous connecter, protéger les formulaires et mémoriser votre langue et votre fuseau horaire. Il n’utilise aucun cookie d’analyse, de publicité ou de tiers. C’est pourquoi nous ne vous demandons pas votre consentement et n’affichons pas de bandeau de cookies (article 22.2 de la LSSI-CE et guide de l’AEPD, l’autorité espagnole de protection des données, sur les cookies).',
        sections: [
          { heading: 'Les cookies, un par un', paragraphs: ['Voici la liste de tous les cookies que le site peut enregistrer. Un test automatique échoue si une réponse du site enregistre un cookie qui n’y figure pas.'] },
          { heading: 'Comment les supprimer', paragraphs: ['Vous pouvez les supprimer dans les réglages de votre navigateur. Si vous supprimez le cookie de session, vous devrez vous reconnecter.'] },
        ],
      };
  }
}
