/**
 * The practice-area tree for Spanish immigration law: top-level areas, each with its sub-areas.
 * Two levels only, because search filters by either level and the UI renders one nested list.
 * Spanish procedure names (arraigo, recurso de reposición...) are kept where no English term is
 * in common use, since that is what clients type and what lawyers put on their own websites.
 */

export interface PracticeAreaData {
  slug: string;
  name: string;
  description: string;
  children?: PracticeAreaData[];
}

export const PRACTICE_AREAS: readonly PracticeAreaData[] = [
  {
    slug: 'residence',
    name: 'Residence permits',
    description: 'Applications, renewals and status changes for temporary and long-term residence in Spain.',
    children: [
      {
        slug: 'arraigo-social',
        name: 'Arraigo social',
        description: 'Regularisation for people who have lived in Spain for at least two years and have social ties.',
      },
      {
        slug: 'arraigo-laboral',
        name: 'Arraigo laboral',
        description: 'Regularisation based on a documented employment relationship, including files under the pre-2025 regulation.',
      },
      {
        slug: 'arraigo-sociolaboral',
        name: 'Arraigo sociolaboral',
        description: 'Residence and work authorisation tied to an employment contract for people already in Spain.',
      },
      {
        slug: 'arraigo-socioformativo',
        name: 'Arraigo socioformativo',
        description: 'Residence granted while completing recognised vocational or university training in Spain.',
      },
      {
        slug: 'arraigo-familiar',
        name: 'Arraigo familiar',
        description: 'Residence for relatives of Spanish citizens and for parents of Spanish minors.',
      },
      {
        slug: 'second-chance-arraigo',
        name: 'Arraigo de segunda oportunidad',
        description: 'Recovery of legal status for people who held a permit in the last two years and lost it.',
      },
      {
        slug: 'non-lucrative-residence',
        name: 'Non-lucrative residence',
        description: 'Residence for people with sufficient independent means who will not work in Spain.',
      },
      {
        slug: 'residence-renewals',
        name: 'Renewals and modifications',
        description: 'Renewing temporary permits and switching between residence categories without losing status.',
      },
      {
        slug: 'long-term-residence',
        name: 'Long-term residence',
        description: 'Permanent and EU long-term residence after five years of continuous legal stay.',
      },
      {
        slug: 'tie-and-nie',
        name: 'Foreigner ID cards (TIE and NIE)',
        description: 'Foreigner identity cards, NIE numbers, fingerprint appointments and padrón registration issues.',
      },
    ],
  },
  {
    slug: 'nationality',
    name: 'Spanish nationality',
    description: 'Acquiring Spanish citizenship by residence, option, descent or special regimes.',
    children: [
      {
        slug: 'nationality-by-residence',
        name: 'Nationality by residence',
        description: 'Citizenship applications after the required years of legal residence, including DELE and CCSE exams.',
      },
      {
        slug: 'nationality-by-option',
        name: 'Nationality by option',
        description: 'Opting for Spanish nationality as the child of a Spaniard or person under Spanish guardianship.',
      },
      {
        slug: 'democratic-memory-law',
        name: 'Nationality by descent (Ley de Memoria Democrática)',
        description: 'Citizenship for descendants of Spanish exiles and emigrants under the Democratic Memory Law.',
      },
      {
        slug: 'sephardic-nationality',
        name: 'Sephardic nationality',
        description: 'Pending and appealed files under the nationality route for descendants of Sephardic Jews.',
      },
      {
        slug: 'nationality-appeals',
        name: 'Nationality refusals and delays',
        description: 'Challenging refusals and silence from the Ministry of Justice, including contentious appeals.',
      },
    ],
  },
  {
    slug: 'international-protection',
    name: 'Asylum and international protection',
    description: 'Asylum, subsidiary protection, statelessness and humanitarian residence.',
    children: [
      {
        slug: 'asylum-applications',
        name: 'Asylum applications',
        description: 'Preparing and lodging asylum claims and accompanying applicants to their interview.',
      },
      {
        slug: 'asylum-appeals',
        name: 'Asylum refusals and re-examination',
        description: 'Requests for re-examination and court appeals against refused or inadmissible asylum claims.',
      },
      {
        slug: 'statelessness',
        name: 'Statelessness',
        description: 'Recognition of stateless status and the residence and travel documents that follow.',
      },
      {
        slug: 'humanitarian-residence',
        name: 'Humanitarian reasons',
        description: 'Residence on humanitarian grounds, including for victims of trafficking and gender violence.',
      },
      {
        slug: 'temporary-protection-ukraine',
        name: 'Temporary protection for Ukrainians',
        description: 'Temporary protection permits, renewals and family cases for people displaced from Ukraine.',
      },
    ],
  },
  {
    slug: 'family',
    name: 'Family immigration',
    description: 'Bringing family members to Spain and the rights of relatives of Spanish and EU citizens.',
    children: [
      {
        slug: 'family-reunification',
        name: 'Family reunification',
        description: 'Reunification of spouses, children and dependent parents by foreign residents in Spain.',
      },
      {
        slug: 'eu-family-member-card',
        name: 'EU family member cards',
        description: 'Residence cards for family members of Spanish and other EU citizens.',
      },
      {
        slug: 'registered-partnership',
        name: 'Pareja de hecho',
        description: 'Registering a stable partnership and using it as the basis for a residence card.',
      },
      {
        slug: 'minors-and-guardianship',
        name: 'Unaccompanied minors',
        description: 'Documentation of minors under public guardianship and their transition to adulthood.',
      },
    ],
  },
  {
    slug: 'work-and-business',
    name: 'Work and business',
    description: 'Authorisations to work in Spain as an employee, a self-employed person or an investor.',
    children: [
      {
        slug: 'employer-work-permit',
        name: 'Employer-sponsored work permits',
        description: 'Initial work and residence permits requested by a Spanish employer, including the shortage list.',
      },
      {
        slug: 'highly-qualified-professionals',
        name: 'Highly qualified professionals (EU Blue Card)',
        description: 'Fast-track permits for managers, specialists and EU Blue Card holders.',
      },
      {
        slug: 'self-employment',
        name: 'Self-employment',
        description: 'Residence and work as an autónomo, including the business plan and professional licences.',
      },
      {
        slug: 'entrepreneurs',
        name: 'Entrepreneurs and startups',
        description: 'Residence for innovative business projects under the Entrepreneurs and Startups laws.',
      },
      {
        slug: 'digital-nomad-visa',
        name: 'Digital nomad visa',
        description: 'International teleworking visas and residence for remote workers and freelancers.',
      },
      {
        slug: 'seasonal-work',
        name: 'Seasonal and collective hiring',
        description: 'Recruitment at origin (GECCO) and seasonal permits for agriculture and tourism.',
      },
      {
        slug: 'cross-border-workers',
        name: 'Cross-border workers',
        description: 'Permits for people who live in Morocco and work daily in Ceuta or Melilla, and similar cases.',
      },
    ],
  },
  {
    slug: 'study',
    name: 'Study and training',
    description: 'Student stays and the routes from studies into work in Spain.',
    children: [
      {
        slug: 'student-stay',
        name: 'Student stays',
        description: 'Study authorisations, renewals and permission to work part-time while studying.',
      },
      {
        slug: 'job-search-after-studies',
        name: 'Job search after studies',
        description: 'The residence permit to look for work or start a business after graduating in Spain.',
      },
      {
        slug: 'internships',
        name: 'Internships',
        description: 'Stays for non-work internships with Spanish companies and institutions.',
      },
      {
        slug: 'degree-recognition',
        name: 'Degree recognition',
        description: 'Homologación and equivalence of foreign degrees needed for work or further study.',
      },
    ],
  },
  {
    slug: 'appeals-and-enforcement',
    name: 'Appeals and enforcement',
    description: 'Challenging refusals and defending against sanctions, expulsions and detention.',
    children: [
      {
        slug: 'refusal-appeals',
        name: 'Refusal appeals (recursos)',
        description: 'Administrative and contentious appeals against refused visas and residence applications.',
      },
      {
        slug: 'expulsion-orders',
        name: 'Expulsion and return orders',
        description: 'Defence in expulsion proceedings and applications to revoke or suspend orders.',
      },
      {
        slug: 'cie-detention',
        name: 'Detention in CIE',
        description: 'Urgent assistance for people held in foreigner detention centres pending removal.',
      },
      {
        slug: 'border-entry-refusals',
        name: 'Entry refusals at the border',
        description: 'Legal assistance when entry is refused at an airport or port, often within hours.',
      },
      {
        slug: 'criminal-records',
        name: 'Criminal record issues',
        description: 'Cancelling Spanish criminal records and handling convictions that block permits.',
      },
      {
        slug: 'fines-and-sanctions',
        name: 'Fines and irregular stay sanctions',
        description: 'Responding to sanction proceedings for irregular stay or unauthorised work.',
      },
    ],
  },
  {
    slug: 'investors',
    name: 'Investors',
    description: 'Residence based on significant investment in Spain, including legacy golden visa holders.',
    children: [
      {
        slug: 'golden-visa-legacy',
        name: 'Golden visa renewals (historical)',
        description: 'Renewals and family extensions for investor permits granted before the golden visa ended in 2025.',
      },
      {
        slug: 'business-investment',
        name: 'Business investment',
        description: 'Residence linked to investment in Spanish companies or projects of general interest.',
      },
    ],
  },
];
