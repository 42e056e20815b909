/**
 * Photos stored before uploads were re-encoded (issue 25 item 3; docs/lawyers.md#photos-stored-before),
 * on both databases: the pass a server runs at start and `consulta lawyers photos --normalise`.
 * A stored PNG declaring 60,000 × 60,000 pixels is removed (her profile shows her initials), a
 * 1200 × 900 PNG carrying EXIF becomes a 512 × 512 JPEG without it, an already re-encoded JPEG is
 * left as it is; a second run changes nothing; two runs at once write each photo once.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { PHOTO_SIDE, reencodePhoto } from '../../src/domain/lawyers/photo.ts';
import { startJobs } from '../../src/jobs/jobs.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { jsonLine, runConsulta } from '../support/cli.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pngDeclaring } from '../support/images.ts';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));

const STORED_AT = '2026-01-10T10:00:00.000Z';
const row = (lawyerId: string, contentType: string, bytes: Buffer) => ({
  lawyer_id: lawyerId,
  content_type: contentType,
  sha256: createHash('sha256').update(bytes).digest('hex'),
  byte_size: bytes.length,
  data_base64: bytes.toString('base64'),
  updated_at: STORED_AT,
});

for (const target of databaseTargets()) {
  describe(`photos stored before re-encoding (${target.name})`, () => {
    let ctx: TestContext;
    let camera: Buffer;
    let normalised: Buffer;

    before(async () => {
      ctx = await createTestContext(target);
      // A camera photo as stored before: 1200 × 900 PNG with an EXIF block naming where she lives.
      camera = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#3366aa' } })
        .png()
        .withExif({ IFD0: { Copyright: 'Home: Calle Falsa 123', ImageDescription: 'secret-location' } })
        .toBuffer();
      assert.ok(camera.includes('secret-location'));
      normalised = (await reencodePhoto(await sharp({ create: { width: 800, height: 800, channels: 3, background: '#aa6633' } }).jpeg().toBuffer())).bytes;
    });
    after(async () => ctx?.close());

    /** Three lawyers with photos as stored before the change: hostile, big with EXIF, already normalised. */
    async function storedPhotos(tag: string) {
      const [hostile, big, done] = (await insertLawyers(ctx.database, [lawyerRecord({ name: `Hostil ${tag} Bomba` }), lawyerRecord({ name: `Grande ${tag} Foto` }), lawyerRecord({ name: `Hecha ${tag} Foto` })])) as [string, string, string];
      await ctx.database.db
        .insertInto('lawyer_photos')
        .values([row(hostile, 'image/png', pngDeclaring(60_000, 60_000)), row(big, 'image/png', camera), row(done, 'image/jpeg', normalised)])
        .execute();
      return { hostile, big, done };
    }
    const photos = (ids: string[]) => ctx.database.db.selectFrom('lawyer_photos').selectAll().where('lawyer_id', 'in', ids).orderBy('lawyer_id').execute();
    const profile = async (id: string) => (await ctx.app.fastify.inject({ url: `/lawyers/${id}`, headers: { accept: 'text/html', 'accept-language': 'es' } })).body;

    it('removes the hostile one, re-encodes the big one without its metadata, leaves the normalised one; a second run changes nothing; the profile serves image/jpeg', async () => {
      const { hostile, big, done } = await storedPhotos('a');
      const ids = [hostile, big, done];
      const doneBefore = (await photos([done]))[0]!;
      // Before: her profile hands every visitor's browser the 60,000 × 60,000 PNG.
      assert.match(await profile(hostile), /<img class="avatar avatar-96" src="\/lawyer-photos\//);

      const report = await ctx.app.services.lawyerPortal.normaliseStoredPhotos();
      const mine = report.outcomes.filter((o) => ids.includes(o.lawyerId));
      assert.deepEqual(
        mine.map((o) => [o.lawyerId, o.action]).sort(),
        [
          [big, 'reencoded'],
          [hostile, 'removed'],
        ].sort(),
      );
      const removed = mine.find((o) => o.action === 'removed');
      assert.match(removed?.action === 'removed' ? removed.reason : '', /60000 × 60000 pixels \(at most 40 megapixels\)/);

      const after = await photos(ids);
      assert.deepEqual(after.map((p) => p.lawyer_id).sort(), [big, done].sort(), 'the hostile photo is gone');
      const bigRow = after.find((p) => p.lawyer_id === big)!;
      const bytes = Buffer.from(bigRow.data_base64, 'base64');
      assert.equal(bigRow.content_type, 'image/jpeg');
      assert.equal(bigRow.sha256, createHash('sha256').update(bytes).digest('hex'));
      assert.equal(bigRow.byte_size, bytes.length);
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, meta.exif, meta.icc, meta.xmp], ['jpeg', PHOTO_SIDE, PHOTO_SIDE, undefined, undefined, undefined]);
      assert.ok(!bytes.includes('secret-location') && !bytes.includes('Calle Falsa'), 'no metadata kept');
      assert.deepEqual(
        after.find((p) => p.lawyer_id === done),
        doneBefore,
        'the normalised photo untouched',
      );
      // Integrators' change feed hears of both lawyers whose photo changed.
      const changed = await ctx.database.db.selectFrom('lawyer_changes').select('lawyer_id').where('lawyer_id', 'in', ids).execute();
      assert.deepEqual([...new Set(changed.map((c) => c.lawyer_id))].sort(), [big, hostile].sort());

      // Her profile: initials for the hostile one; the big one's photo is a JPEG from the photo route.
      const hostilePage = await profile(hostile);
      assert.match(hostilePage, /<span class="avatar avatar-96 avatar-initials" aria-hidden="true">/);
      assert.doesNotMatch(hostilePage, /\/lawyer-photos\//);
      const src = /<img class="avatar avatar-96" src="(\/lawyer-photos\/[^"]+)"/.exec(await profile(big))?.[1];
      assert.ok(src?.endsWith(bigRow.sha256.slice(0, 32)), src);
      const served = await ctx.app.fastify.inject({ url: src });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/jpeg');
      assert.deepEqual(served.rawPayload, bytes);

      const again = await ctx.app.services.lawyerPortal.normaliseStoredPhotos();
      assert.deepEqual(again.outcomes, []);
      assert.equal(again.unchanged, again.checked);
      assert.deepEqual(await photos(ids), after, 'a second run changes nothing');
    });

    it('two passes at once (two server processes): each photo is written once (the write is guarded by the hash read)', async () => {
      const { hostile, big, done } = await storedPhotos('b');
      const ids = [hostile, big, done];
      const [one, two] = await Promise.all([ctx.app.services.lawyerPortal.normaliseStoredPhotos(), ctx.app.services.lawyerPortal.normaliseStoredPhotos()]);
      const all = [...one.outcomes, ...two.outcomes].filter((o) => ids.includes(o.lawyerId));
      assert.equal(all.filter((o) => o.action === 'reencoded').length, 1, JSON.stringify(all));
      assert.equal(all.filter((o) => o.action === 'removed').length, 1, JSON.stringify(all));
      assert.ok(all.every((o) => o.lawyerId !== done));
      const changes = await ctx.database.db.selectFrom('lawyer_changes').select('lawyer_id').where('lawyer_id', 'in', ids).execute();
      assert.deepEqual([...new Set(changes.map((c) => c.lawyer_id))].sort(), [big, hostile].sort());
      const rows = await photos(ids);
      assert.deepEqual(rows.map((p) => p.lawyer_id).sort(), [big, done].sort());

    });

    it('a serving process runs the pass at start (the background jobs)', async () => {
      const { hostile, big, done } = await storedPhotos('d');
      const jobs = startJobs({ app: ctx.app, database: ctx.database, clock: ctx.clock, config: ctx.config });
      try {
        await jobs.photos;
      } finally {
        jobs.stop();
      }
      const rows = await photos([hostile, big, done]);
      assert.deepEqual(rows.map((p) => [p.lawyer_id, p.content_type]).sort(), [[big, 'image/jpeg'], [done, 'image/jpeg']].sort());
      const meta = await sharp(Buffer.from(rows.find((p) => p.lawyer_id === big)!.data_base64, 'base64')).metadata();
      assert.deepEqual([meta.width, meta.height, meta.exif], [PHOTO_SIDE, PHOTO_SIDE, undefined]);
    });

    it('consulta lawyers photos --normalise says what it did; usage without the flag', async () => {
      const { hostile, big } = await storedPhotos('c');
      const cli = (...args: string[]) => runConsulta(args, { ...BASE_ENV, DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' });
      assert.equal((await cli('lawyers', 'photos')).code, 2);
      const human = await cli('lawyers', 'photos', '--normalise');
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, new RegExp(`removed +${hostile} +60000 × 60000 pixels \\(at most 40 megapixels\\)`));
      assert.match(human.stdout, new RegExp(`re-encoded ${big} +image/png, png 1200 × 900, \\d+ bytes -> 512 x 512 JPEG`));
      assert.match(human.stdout, /photos checked: 1 re-encoded, 1 removed, \d+ already normalised/);
      const out = jsonLine(await cli('lawyers', 'photos', '--normalise', '--json'));
      assert.deepEqual([out.reencoded, out.removed, out.outcomes], [0, 0, []]);
      assert.equal(out.unchanged, out.checked);
    });
  });
}
