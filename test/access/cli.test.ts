/**
 * `consulta keys …` and `consulta firms …` end to end: the real command spawned as operators run
 * it, on a temporary SQLite file. Output (--json and human), exit codes (0 ok, 1 refused,
 * 2 usage), the token shown once, and firm rules exercised with --as.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jsonLine, runConsulta, type RunResult } from '../support/cli.ts';
import SQLite from 'better-sqlite3';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));


let dir: string;
let dbFile: string;

function cli(...args: string[]): Promise<RunResult> {
  return runConsulta(args, { ...BASE_ENV, DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'silent' });
}

const json = jsonLine;

describe('consulta keys / firms (CLI, SQLite)', () => {
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-keys-cli-'));
    dbFile = path.join(dir, 'cli.db');
    // keys and firms work on an existing database only (they never create one).
    assert.equal((await cli('migrate')).code, 0);
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let keyId = '';
  let token = '';

  it('firms create and add-member (as the operator)', async () => {
    const firm = json(await cli('firms', 'create', 'bufete-sol', '--name', 'Bufete Sol', '--owner', 'Ana@Example.com', '--json'));
    assert.equal(firm.slug, 'bufete-sol');
    assert.deepEqual([firm.owner.email, firm.owner.role], ['ana@example.com', 'owner']);
    const added = json(await cli('firms', 'add-member', 'bufete-sol', 'dani@example.com', '--role', 'member', '--permissions', 'keys:manage', '--json'));
    assert.deepEqual([added.member.email, added.member.role, added.member.permissions], ['dani@example.com', 'member', ['keys:manage']]);
    const human = await cli('firms', 'add-member', 'bufete-sol', 'eva@example.com', '--role', 'admin');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /Added to bufete-sol: eva@example\.com\s+admin/);
  });

  it('keys create --json prints the token once; only its hash is stored', async () => {
    const created = json(await cli('keys', 'create', '--firm', 'bufete-sol', '--name', 'Zapier', '--as', 'dani@example.com', '--allow-ip', '203.0.113.0/24,2001:DB8::/32', '--json'));
    token = created.token;
    keyId = created.id;
    assert.match(token, /^svc_[0-9A-Za-z]{38}$/);
    assert.ok(token.startsWith(created.prefix));
    assert.deepEqual(created.owner.slug, 'bufete-sol');
    assert.equal(created.tier, 'free');
    assert.equal(created.scopes.length, 6);
    assert.equal(created.status, 'active');
    assert.deepEqual(created.allowed_ips, ['203.0.113.0/24', '2001:db8::/32']);
    const db = new SQLite(dbFile, { readonly: true });
    try {
      const row = db.prepare('select key_hash, created_by_user_id from api_keys where id = ?').get(keyId) as { key_hash: string; created_by_user_id: string };
      assert.equal(row.key_hash, createHash('sha256').update(token).digest('hex'));
      assert.ok(row.created_by_user_id);
    } finally {
      db.close();
    }
  });

  it('keys create (human) shows the token with a warning', async () => {
    const r = await cli('keys', 'create', '--test', '--owner', 'dev@example.com', '--scopes', 'lawyers:read,availability:read');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /shown this once/);
    assert.match(r.stdout, /^ {2}svc_test_[0-9A-Za-z]{38}$/m);
    assert.match(r.stdout, /scopes\s+lawyers:read, availability:read/);
  });

  it('keys show never prints the token', async () => {
    const shown = json(await cli('keys', 'show', keyId, '--json'));
    assert.equal(shown.id, keyId);
    assert.equal(shown.name, 'Zapier');
    assert.ok(!('token' in shown));
    const human = await cli('keys', 'show', keyId);
    assert.equal(human.code, 0);
    assert.ok(!human.stdout.includes(token));
    assert.match(human.stdout, /owner\s+firm bufete-sol/);
  });

  it('keys suspend / unsuspend: a firm suspension is lifted by the firm, an operator one only by the operator', async () => {
    const byFirm = json(await cli('keys', 'suspend', keyId, '--reason', 'holiday', '--as', 'ana@example.com', '--json'));
    assert.equal(byFirm.status, 'suspended');
    assert.deepEqual([byFirm.suspension.by, byFirm.suspension.reason], ['firm', 'holiday']);
    const lifted = json(await cli('keys', 'unsuspend', keyId, '--as', 'ana@example.com', '--json'));
    assert.equal(lifted.suspension, null);
    assert.equal(lifted.status, 'active');

    const byOperator = json(await cli('keys', 'suspend', keyId, '--reason', 'abuse report', '--json'));
    assert.equal(byOperator.suspension.by, 'operator');
    const refused = json(await cli('keys', 'unsuspend', keyId, '--as', 'ana@example.com', '--json'), 1);
    assert.equal(refused.error.code, 'forbidden');
    const refusedHuman = await cli('keys', 'unsuspend', keyId, '--as', 'ana@example.com');
    assert.equal(refusedHuman.code, 1);
    assert.match(refusedHuman.stderr, /only the operator/);
    assert.equal(json(await cli('keys', 'unsuspend', keyId, '--json')).suspension, null);
  });

  it('a member without keys:manage cannot see the firm\'s keys; an outsider cannot even see the firm', async () => {
    json(await cli('firms', 'add-member', 'bufete-sol', 'plain@example.com', '--role', 'member', '--json'));
    json(await cli('firms', 'create', 'otro-bufete', '--name', 'Otro', '--owner', 'mallory@example.com', '--json'));
    assert.equal(json(await cli('keys', 'show', keyId, '--as', 'plain@example.com', '--json'), 1).error.code, 'not_found');
    assert.equal(json(await cli('keys', 'show', keyId, '--as', 'mallory@example.com', '--json'), 1).error.code, 'not_found');
    assert.equal(json(await cli('keys', 'list', '--firm', 'bufete-sol', '--as', 'mallory@example.com', '--json'), 1).error.code, 'not_found');
  });

  it('firms remove-member: the creator\'s keys keep working and owners/admins are notified', async () => {
    const removed = json(await cli('firms', 'remove-member', 'bufete-sol', 'dani@example.com', '--json'));
    assert.equal(removed.removed, 'dani@example.com');
    assert.deepEqual(removed.keys_to_review.map((k: { id: string }) => k.id), [keyId]);
    assert.deepEqual([...removed.notified].sort(), ['ana@example.com', 'eva@example.com']);
    const still = json(await cli('keys', 'show', keyId, '--json'));
    assert.equal(still.status, 'active');
    const members = json(await cli('firms', 'members', 'bufete-sol', '--json'));
    assert.deepEqual(members.members.map((m: { email: string }) => m.email), ['ana@example.com', 'eva@example.com', 'plain@example.com']);
  });

  it('the last owner cannot be removed (exit 1); bad arguments are usage errors (exit 2)', async () => {
    const last = json(await cli('firms', 'remove-member', 'bufete-sol', 'ana@example.com', '--json'), 1);
    assert.equal(last.error.code, 'conflict');
    const badTier = json(await cli('keys', 'set-tier', keyId, 'gold', '--json'), 2);
    assert.equal(badTier.error.code, 'invalid_request');
    assert.equal((await cli('keys', 'create', '--test')).code, 2); // no owner
    assert.equal((await cli('keys', 'suspend', keyId)).code, 2); // no reason
    assert.equal((await cli('keys', 'frobnicate')).code, 2);
    assert.equal((await cli('keys', 'show', keyId, '--as', 'nobody@example.com')).code, 1);
  });

  it('set-tier, set-allowlist and revoke', async () => {
    assert.equal(json(await cli('keys', 'set-tier', keyId, 'partner', '--json')).tier, 'partner');
    assert.deepEqual(json(await cli('keys', 'set-allowlist', keyId, '198.51.100.7/32', '--as', 'eva@example.com', '--json')).allowed_ips, ['198.51.100.7']);
    assert.equal(json(await cli('keys', 'set-allowlist', keyId, '--clear', '--json')).allowed_ips, null);
    const revoked = json(await cli('keys', 'revoke', keyId, '--as', 'eva@example.com', '--json'));
    assert.equal(revoked.status, 'revoked');
    const list = json(await cli('keys', 'list', '--firm', 'bufete-sol', '--json'));
    assert.deepEqual(list.keys.map((k: { id: string; status: string }) => [k.id, k.status]), [[keyId, 'revoked']]);
  });

  it('every command that takes an email refuses a form the mailer would read as another mailbox (exit 2), and reads case and Unicode variants as one account', async () => {
    const bad = '(1)ana@example.com';
    const commands: string[][] = [
      ['keys', 'create', '--owner', bad],
      ['keys', 'list', '--owner', bad],
      ['webhooks', 'list', '--owner', bad],
      ['firms', 'create', 'bufete-luna', '--name', 'Bufete Luna', '--owner', bad],
      ['firms', 'add-member', 'bufete-sol', bad, '--role', 'member'],
      ['operators', 'add', bad],
      ['mail', 'list', '--to', bad],
      ['oauth', 'grants', '--user', bad],
      ['keys', 'list', '--as', bad],
    ];
    for (const args of commands) {
      const r = await cli(...args, '--json');
      assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, /just the address/, args.join(' '));
    }
    const before = new SQLite(dbFile, { readonly: true });
    const accounts = () => (before.prepare("select email from users where email like '%ana%' or email like '%xn--%' order by email").all() as Array<{ email: string }>).map((u) => u.email);
    try {
      assert.deepEqual(accounts(), ['ana@example.com'], 'no account was made for the refused form');
      json(await cli('keys', 'create', '--owner', ' ANA@EXAMPLE.COM ', '--json'));
      json(await cli('operators', 'add', 'Zoe@Bücher.de', '--json'));
      const op = json(await cli('operators', 'add', 'ZOE@xn--BCHER-KVA.de', '--json'));
      assert.deepEqual([op.email, op.added], ['zoe@xn--bcher-kva.de', false], 'the Unicode and the A-label spelling are one account');
      assert.deepEqual(accounts(), ['ana@example.com', 'zoe@xn--bcher-kva.de']);
    } finally {
      before.close();
    }
  });
});
