/**
 * `consulta webhooks …` end to end: the real command, spawned, on a temporary SQLite file, with a
 * real receiver on loopback. add/list/show/rotate-secret/disable/enable/test/deliveries, --json
 * and human output, --as, exit codes (0 ok, 1 refused or failed, 2 usage), the secret shown once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { jsonLine, runConsulta, type RunResult } from '../support/cli.ts';
import { ManualClock } from '../../src/clock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { startReceiver, verifies, webhookKit, type Receiver } from './support.ts';

const BIN = fileURLToPath(new URL('../../bin/consulta.js', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|LOG_LEVEL|SMTP_URL|WEBHOOK_|PORT|HOST|SITE_URL|BASE_URL)/.test(k)));


let dir: string;
let dbFile: string;

function cli(args: string[], env: Record<string, string> = { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' }): Promise<RunResult> {
  return runConsulta(args, { ...BASE_ENV, DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'silent', WEBHOOK_TIMEOUT_MS: '2000', ...env });
}

const json = jsonLine;

describe('consulta webhooks (CLI, SQLite)', () => {
  let receiver: Receiver;
  let id = '';
  let secret = '';

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-webhooks-cli-'));
    dbFile = path.join(dir, 'cli.db');
    receiver = await startReceiver();
    // keys and webhooks work on an existing database only (they never create one).
    assert.equal((await cli(['migrate'])).code, 0);
    assert.equal((await cli(['keys', 'create', '--owner', 'ana@example.com', '--json'])).code, 0);
    assert.equal((await cli(['keys', 'create', '--owner', 'bob@example.com', '--json'])).code, 0);
  });
  after(async () => {
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('add: registers an endpoint and prints its secret once', async () => {
    const added = json(await cli(['webhooks', 'add', '--owner', 'ana@example.com', '--url', `${receiver.url}/hook`, '--events', 'booking_intent.confirmed, booking_intent.expired', '--json']));
    assert.match(added.id, /^ep_[0-9a-f]{32}$/);
    assert.match(added.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual([added.url, added.enabled, added.owner.email, added.event_types], [`${receiver.url}/hook`, true, 'ana@example.com', ['booking_intent.confirmed', 'booking_intent.expired']]);
    id = added.id;
    secret = added.secret;
    const human = await cli(['webhooks', 'add', '--owner', 'ana@example.com', '--url', `${receiver.url}/second`]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /shown this once/);
    assert.match(human.stdout, /^ {2}whsec_\S+$/m);
    assert.match(human.stdout, /events {4}all/);
  });

  it('list and show never print a secret; --as shows a user their own endpoints only', async () => {
    const listed = await cli(['webhooks', 'list', '--json']);
    const all = json(listed);
    assert.equal(all.endpoints.length, 2);
    assert.ok(!listed.stdout.includes('whsec_'));
    const mine = json(await cli(['webhooks', 'list', '--as', 'ana@example.com', '--json']));
    assert.equal(mine.endpoints.length, 2);
    assert.deepEqual(json(await cli(['webhooks', 'list', '--as', 'bob@example.com', '--json'])).endpoints, []);
    const shown = await cli(['webhooks', 'show', id]);
    assert.equal(shown.code, 0);
    assert.match(shown.stdout, new RegExp(`id {8}${id}`));
    assert.ok(!shown.stdout.includes('whsec_'));
    const text = await cli(['webhooks', 'list']);
    assert.match(text.stdout, new RegExp(`${id} +enabled +user ana@example.com {2}${receiver.url.replace(/\./g, '\\.')}/hook`));
  });

  it('test: sends a signed webhook.test message now and reports the attempt', async () => {
    const sent = json(await cli(['webhooks', 'test', id, '--json']));
    assert.match(sent.webhook_id, /^msg_/);
    assert.deepEqual([sent.attempt.success, sent.attempt.status_code, sent.attempt.message_status], [true, 200, 'delivered']);
    assert.equal(receiver.requests.length, 1);
    const req = receiver.requests[0]!;
    assert.equal(req.headers['webhook-id'], sent.webhook_id);
    assert.ok(verifies(secret, req), 'verifies with standardwebhooks');
    assert.equal(JSON.parse(req.body).type, 'webhook.test');
  });

  it('rotate-secret: the new secret is printed once; both sign during the overlap', async () => {
    const rotated = json(await cli(['webhooks', 'rotate-secret', id, '--json']));
    assert.notEqual(rotated.secret, secret);
    assert.ok(rotated.previous_secret_expires_at);
    const human = await cli(['webhooks', 'test', id]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Delivered test message msg_\S+: HTTP 200 in \d+ ms\.$/m);
    const req = receiver.requests[1]!;
    assert.equal(req.headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(verifies(secret, req) && verifies(rotated.secret, req));
    secret = rotated.secret;
  });

  it('disable (with a reason) and enable', async () => {
    assert.equal((await cli(['webhooks', 'disable', id])).code, 2, 'a reason is required');
    const disabled = json(await cli(['webhooks', 'disable', id, '--reason', 'maintenance', '--json']));
    assert.deepEqual([disabled.enabled, disabled.disabled.cause, disabled.disabled.reason], [false, 'manual', 'maintenance']);
    const refused = json(await cli(['webhooks', 'test', id, '--json']), 1);
    assert.equal(refused.error.code, 'conflict');
    const enabled = json(await cli(['webhooks', 'enable', id, '--json']));
    assert.deepEqual([enabled.enabled, enabled.disabled, enabled.consecutive_failures], [true, null, 0]);
  });

  it('a failed test send exits 1; deliveries lists attempts newest first', async () => {
    receiver.answer(() => ({ status: 500, body: 'receiver broke' }));
    const failed = json(await cli(['webhooks', 'test', id, '--json']), 1);
    assert.deepEqual([failed.attempt.success, failed.attempt.status_code, failed.attempt.error, failed.attempt.message_status], [false, 500, 'HTTP 500', 'pending']);
    assert.ok(failed.attempt.next_attempt_at);
    receiver.answer(() => ({ status: 200 }));
    const listed = json(await cli(['webhooks', 'deliveries', id, '--limit', '2', '--json']));
    assert.equal(listed.deliveries.length, 2);
    assert.deepEqual(listed.deliveries.map((d: { status_code: number }) => d.status_code), [500, 200]);
    assert.deepEqual(Object.keys(listed.deliveries[0]).sort(), ['attempt', 'attempted_at', 'duration_ms', 'error', 'event_id', 'event_type', 'message_status', 'next_attempt_at', 'response_body', 'status_code', 'success', 'webhook_id']);
    assert.equal(listed.deliveries[0].response_body, 'receiver broke');
    const human = await cli(['webhooks', 'deliveries', id]);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /webhook\.test +#1 {2}500/);
  });

  it('retry: a dead message is sent again with the same webhook-id, once; only dead ones, only your own', async () => {
    receiver.answer(() => ({ status: 503, body: 'down for maintenance' }));
    const failed = json(await cli(['webhooks', 'test', id, '--json']), 1);
    const messageId: string = failed.webhook_id;
    // The retries run out, as a serving process's dispatcher would make them (a retry schedule of
    // one delay, its clock an hour ahead): the message is dead after its second attempt.
    const database = openDatabase(`sqlite:${dbFile}`);
    const kit = webhookKit(database, { clock: new ManualClock(Date.now() + 3_600_000), config: { webhookRetryScheduleSeconds: [1] } });
    try {
      await kit.dispatcher.runUntilIdle();
    } finally {
      await kit.close();
      await database.close();
    }
    const listed = json(await cli(['webhooks', 'deliveries', id, '--json'])).deliveries as Array<{ webhook_id: string; attempt: number; message_status: string }>;
    const dead = listed.find((d) => d.webhook_id === messageId)!;
    assert.deepEqual([dead.attempt, dead.message_status], [2, 'dead']);

    assert.equal((await cli(['webhooks', 'retry', id])).code, 2, 'the message id is required');
    const foreign = json(await cli(['webhooks', 'retry', id, messageId, '--as', 'bob@example.com', '--json']), 1);
    assert.equal(foreign.error.code, 'not_found');
    const unknown = json(await cli(['webhooks', 'retry', id, 'msg_00000000000000000000000000000000', '--json']), 1);
    assert.equal(unknown.error.code, 'not_found');

    receiver.answer(() => ({ status: 200 }));
    const before = receiver.requests.length;
    const retried = json(await cli(['webhooks', 'retry', id, messageId, '--json']));
    assert.equal(retried.webhook_id, messageId);
    assert.deepEqual([retried.attempt.attempt, retried.attempt.success, retried.attempt.status_code, retried.attempt.message_status], [3, true, 200, 'delivered']);
    assert.equal(receiver.requests.length, before + 1);
    const req = receiver.requests.at(-1)!;
    assert.equal(req.headers['webhook-id'], messageId, 'the same webhook-id: receivers deduplicate');
    assert.equal(req.headers['webhook-attempt'], '3');
    assert.ok(verifies(secret, req));

    const again = json(await cli(['webhooks', 'retry', id, messageId, '--json']), 1);
    assert.equal(again.error.code, 'conflict', 'a delivered message is not retried');
    assert.match(again.error.detail, /only a dead message/);
    assert.equal(receiver.requests.length, before + 1);
  });

  it('refusals and usage errors have the documented exit codes', async () => {
    const noOwner = json(await cli(['webhooks', 'add', '--url', `${receiver.url}/x`, '--json']), 2);
    assert.equal(noOwner.error.code, 'invalid_request');
    assert.equal((await cli(['webhooks', 'add', '--owner', 'ana@example.com', '--firm', 'x', '--url', `${receiver.url}/x`])).code, 2);
    assert.equal((await cli(['webhooks', 'deliveries', id, '--limit', 'ten'])).code, 2);
    assert.equal((await cli(['webhooks', 'frobnicate'])).code, 2);
    assert.equal(json(await cli(['webhooks', 'show', 'ep_00000000000000000000000000000000', '--json']), 1).error.code, 'not_found');
    const attack = json(await cli(['webhooks', 'rotate-secret', id, '--as', 'bob@example.com', '--json']), 1);
    assert.equal(attack.error.code, 'not_found');
    assert.equal(json(await cli(['webhooks', 'add', '--owner', 'ana@example.com', '--url', 'https://hooks.example.com/', '--as', 'bob@example.com', '--json']), 1).error.code, 'forbidden');
  });

  it('without WEBHOOK_ALLOW_INSECURE_TARGETS, plain http and internal targets are refused at registration', async () => {
    for (const url of [`${receiver.url}/hook`, 'https://2130706433/', 'https://169.254.169.254/latest/meta-data/']) {
      const refused = json(await cli(['webhooks', 'add', '--owner', 'ana@example.com', '--url', url, '--json'], {}), 2);
      assert.equal(refused.error.code, 'invalid_request', url);
      assert.equal(refused.error.errors[0].pointer, '/url');
    }
  });

  it('serve warns at start-up when WEBHOOK_ALLOW_INSECURE_TARGETS is set', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      cwd: REPO,
      env: { ...BASE_ENV, DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Array<{ level?: number; msg?: string }> = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('serve did not start')), 30_000);
        let buffered = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          buffered += d;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            try {
              const entry = JSON.parse(line) as { level?: number; msg?: string };
              lines.push(entry);
              if (entry.msg === 'consulta listening') {
                clearTimeout(timer);
                resolve();
              }
            } catch {
              // not a log line
            }
          }
        });
        child.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
      });
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    const warning = lines.find((l) => l.level === 40 && l.msg?.includes('WEBHOOK_ALLOW_INSECURE_TARGETS'));
    assert.ok(warning, 'a warning names the variable');
    assert.match(warning.msg!, /development and tests only/);
  });

  it('the help lists the webhooks commands', async () => {
    const help = await cli(['--help']);
    assert.match(help.stdout, /webhooks add \(--owner EMAIL \| --firm SLUG\) --url URL \[--events a,b\]/);
    assert.match(help.stdout, /webhooks deliveries ID \[--limit N\]/);
    assert.match(help.stdout, /webhooks retry ID MESSAGE_ID/);
  });
});
