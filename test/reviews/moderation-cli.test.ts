/**
 * `consulta reviews …` (docs/reviews.md#answers-reports-and-moderation) as a child process on both databases: the
 * open reports, hide (a published reason and a note, else exit 2), restore, keep; the lawyer's
 * rating recomputed and seen by the API; every decision audited as `cli`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { jsonLine, runConsulta, type RunResult } from '../support/cli.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS', 'FENCE_SECRET'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));

for (const target of databaseTargets()) {
  describe(`consulta reviews (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    let low: string;
    let high: string;

    before(async () => {
      ctx = await createTestContext(target);
      [lawyerId] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Reseñada CLI', reviews: [{ rating: 5, comment: 'Bien.', date: '2026-10-01T10:00:00Z' }, { rating: 1, comment: 'Spam \u001b[31m http://x.example', date: '2026-10-02T10:00:00Z' }] }),
      ])) as [string];
      const rows = await ctx.database.db.selectFrom('reviews').select(['id', 'rating']).where('lawyer_id', '=', lawyerId).execute();
      low = rows.find((r) => Number(r.rating) === 1)!.id;
      high = rows.find((r) => Number(r.rating) === 5)!.id;
      const m = ctx.app.services.reviewModeration;
      await m.report({ reviewId: low, reason: 'spam', details: 'Links.', userId: null, ip: '203.0.113.1' });
      await m.report({ reviewId: high, reason: 'other', details: null, userId: null, ip: '203.0.113.2' });
    });
    after(async () => ctx?.close());

    const cli = (...args: string[]): Promise<RunResult> => runConsulta(args, { ...BASE_ENV, DATABASE_URL: ctx.url, LOG_LEVEL: 'silent', FENCE_SECRET: 'test-fence-secret-0123456789' });
    const rating = async () => (await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyerId}/reviews` })).json() as { average_rating: number; total_reviews: number };
    const audit = (id: string) => ctx.database.db.selectFrom('operator_audit').select(['action', 'actor_type']).where('target_id', '=', id).orderBy('id').execute();

    it('reports lists the reviews with open reports; show prints a control character as text', async () => {
      const out = jsonLine(await cli('reviews', 'reports', '--json'));
      assert.deepEqual(out.reviews.map((r: { id: string }) => r.id).sort(), [low, high].sort());
      const human = await cli('reviews', 'show', low);
      assert.equal(human.code, 0);
      assert.ok(!human.stdout.includes('\u001b'), 'no escape sequence reaches the terminal');
      assert.match(human.stdout, /\\u001b\[31m/);
    });

    it('hide needs a listed reason and a note; then the average changes; restore brings it back; audited as cli', async () => {
      assert.equal((await cli('reviews', 'hide', low, '--reason', 'rude', '--note', 'x')).code, 2);
      assert.equal((await cli('reviews', 'hide', low, '--reason', 'spam')).code, 2);
      assert.equal((await rating()).total_reviews, 2);
      const hidden = jsonLine(await cli('reviews', 'hide', low, '--reason', 'spam', '--note', 'Advertising links.', '--json'));
      assert.equal(hidden.hidden_reason, 'spam');
      const after = await rating();
      assert.equal(after.average_rating, 5);
      assert.equal(after.total_reviews, 1);
      assert.equal((await cli('reviews', 'hide', low, '--reason', 'spam', '--note', 'again')).code, 1);
      const restored = jsonLine(await cli('reviews', 'restore', low, '--note', 'Mistake.', '--json'));
      assert.equal(restored.hidden_at, null);
      assert.equal((await rating()).total_reviews, 2);
      assert.deepEqual(await audit(low), [
        { action: 'review.hide', actor_type: 'cli' },
        { action: 'review.restore', actor_type: 'cli' },
      ]);
    });

    it('keep dismisses the open reports; an unknown id exits 1', async () => {
      const kept = jsonLine(await cli('reviews', 'keep', high, '--json'));
      assert.ok(kept.reports.every((r: { resolved_at: string | null }) => r.resolved_at !== null));
      assert.deepEqual(await audit(high), [{ action: 'review.keep', actor_type: 'cli' }]);
      assert.equal((await cli('reviews', 'show', '00000000-0000-0000-0000-000000000000')).code, 1);
      assert.equal((await cli('reviews', 'frobnicate')).code, 2);
    });
  });
}
