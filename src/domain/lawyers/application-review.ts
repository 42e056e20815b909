/**
 * The operator's queue of applications (docs/lawyers.md#joining-and-verification): the
 * applications waiting (VerificationService.applications, oldest first) and one application as
 * she claimed it (ApplicationService), with where to check it — the public census and her
 * colegio's website. Operators only; the decisions (verify, refuse) stay VerificationService's.
 */
import type { Database } from '../../db/database.ts';
import { findBarAssociation } from '../../db/repositories/lawyer-lifecycle.repository.ts';
import type { Actor } from '../access/types.ts';
import { forbidden, notFound } from '../errors.ts';
import type { ApplicationService, MyApplication } from './application.service.ts';
import type { Application, VerificationService } from './verification.service.ts';
import { CENSUS_URL } from './bar-associations.ts';

export interface ApplicationReview {
  application: MyApplication;
  /** Her email (the account she applied with, else her contact address), for the operator only. */
  email: string | null;
  censusUrl: string;
  /** Her colegio's own website (https), when the reference data has one. */
  colegioWebsite: string | null;
}

export class ApplicationReviewService {
  constructor(private readonly deps: { database: Database; verification: VerificationService; applications: ApplicationService }) {}

  private operator(actor: Actor): void {
    if (actor.type !== 'operator') throw forbidden('operators only');
  }

  /** Applications waiting for a decision, oldest first. */
  queue(actor: Actor): Promise<Application[]> {
    return this.deps.verification.applications(actor);
  }

  /** One lawyer's application as she claimed it, and where to check it. Not found: a 404. */
  async review(actor: Actor, lawyerId: string): Promise<ApplicationReview> {
    this.operator(actor);
    const application = await this.deps.applications.claimOf(lawyerId);
    if (!application) throw notFound(`no lawyer ${lawyerId}`);
    const colegio = application.colegio ? await findBarAssociation(this.deps.database.db, application.colegio.id) : undefined;
    const website = colegio?.website_url && /^https:\/\//.test(colegio.website_url) ? colegio.website_url : null;
    return { application, email: application.contactEmail, censusUrl: CENSUS_URL, colegioWebsite: website };
  }
}
