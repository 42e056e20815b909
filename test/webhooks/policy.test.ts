/**
 * Pure pieces of webhooks: the SSRF address policy, secrets and signatures, payload shaping,
 * and the configuration knobs (each bad value names its variable).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { isTransientConflict } from '../../src/db/repositories/webhook.repository.ts';
import { embeddedIPv4, ipv6Bytes, refusalReason, resolveTarget, TargetRefusedError } from '../../src/domain/webhooks/address-policy.ts';
import { eventPayload } from '../../src/domain/webhooks/dispatcher.ts';
import { generateSecret, signatureHeader } from '../../src/domain/webhooks/signing.ts';

describe('address policy (SSRF)', () => {
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /metadata/],
    ['169.254.0.1', /link-local/],
    ['100.64.0.1', /CGNAT/],
    ['100.127.255.255', /CGNAT/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /this network/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['192.0.0.192', /IETF/],
    ['192.0.2.10', /documentation/],
    ['198.51.100.10', /documentation/],
    ['203.0.113.10', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['198.19.255.255', /benchmarking/],
    ['192.88.99.1', /6to4 relay/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['fc00::1', /unique local/],
    ['fd00:ec2::254', /unique local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /IPv4-mapped.*loopback/],
    ['::ffff:7f00:1', /IPv4-mapped.*loopback/],
    ['::ffff:10.0.0.1', /IPv4-mapped.*private/],
    ['::ffff:169.254.169.254', /IPv4-mapped.*metadata/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::ffff:0:127.0.0.1', /IPv4-translated/],
    ['64:ff9b::7f00:1', /NAT64.*loopback/],
    ['64:ff9b::a9fe:a9fe', /NAT64.*metadata/],
    ['64:ff9b:1::1', /not a global unicast/],
    ['2002:7f00:1::1', /6to4.*loopback/],
    ['2002:c0a8:101::1', /6to4.*private/],
    ['2001::1', /Teredo/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['100::1', /not a global unicast/],
    ['not-an-address', /not an IP address/],
  ];
  for (const [address, reason] of refused) {
    it(`refuses ${address}`, () => {
      const why = refusalReason(address);
      assert.ok(why, `${address} should be refused`);
      assert.match(why, reason);
    });
  }

  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
    it(`allows the public address ${address}`, () => assert.equal(refusalReason(address), null));
  }

  it('parses IPv6 forms into bytes and finds embedded IPv4 addresses', () => {
    assert.deepEqual([...ipv6Bytes('::1')!], [...new Array(15).fill(0), 1]);
    assert.deepEqual([...ipv6Bytes('[2001:db8::ff00:42:8329]')!].slice(12), [0x00, 0x42, 0x83, 0x29]);
    assert.equal(ipv6Bytes('1.2.3.4'), null);
    assert.deepEqual(embeddedIPv4(ipv6Bytes('::ffff:192.168.0.1')!), { kind: 'IPv4-mapped', ipv4: '192.168.0.1' });
    assert.deepEqual(embeddedIPv4(ipv6Bytes('2002:0a00:0001::')!), { kind: '6to4', ipv4: '10.0.0.1' });
    assert.equal(embeddedIPv4(ipv6Bytes('2606:4700::1')!), null);
  });

  it('checks every resolved address: one private address among public ones refuses the host', async () => {
    const resolver = async () => ['93.184.216.34', '10.0.0.7'];
    await assert.rejects(resolveTarget('mixed.example.com', resolver), (err: Error) => err instanceof TargetRefusedError && /10\.0\.0\.7 is private/.test(err.message));
    assert.deepEqual(await resolveTarget('public.example.com', async () => ['93.184.216.34', '2606:4700::1']), ['93.184.216.34', '2606:4700::1']);
  });

  it('refuses localhost names without asking DNS, and names that do not resolve', async () => {
    let asked = 0;
    const resolver = async () => {
      asked++;
      return ['93.184.216.34'];
    };
    for (const name of ['localhost', 'LOCALHOST.', 'api.localhost']) await assert.rejects(resolveTarget(name, resolver), /names this machine/);
    assert.equal(asked, 0);
    const nx = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    await assert.rejects(resolveTarget('nx.example.com', async () => Promise.reject(nx)), /could not resolve nx.example.com: ENOTFOUND/);
    await assert.rejects(resolveTarget('empty.example.com', async () => []), /no addresses/);
  });

  it('judges IP-literal hosts (as the URL parser normalised them) without DNS', async () => {
    const resolver = async (): Promise<string[]> => {
      throw new Error('DNS must not be asked for an IP literal');
    };
    for (const raw of ['https://2130706433/', 'https://0177.0.0.1/', 'https://0x7f.1/', 'https://127.1/', 'https://0x7f000001/', 'https://017700000001/', 'https://[::ffff:127.0.0.1]/', 'https://[::1]/']) {
      const host = new URL(raw).hostname;
      await assert.rejects(resolveTarget(host, resolver), /refused/, raw);
    }
  });
});

describe('secrets and signatures', () => {
  it('issues whsec_ + base64 of 32 random bytes', () => {
    const a = generateSecret();
    const b = generateSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(a.slice('whsec_'.length), 'base64').length, 32);
    assert.notEqual(a, b);
  });

  it('signs {id}.{timestamp}.{body} with HMAC-SHA256, once per secret, space-separated', async () => {
    const { createHmac } = await import('node:crypto');
    const secret = generateSecret();
    const other = generateSecret();
    const at = new Date('2026-11-23T08:00:00.900Z');
    const body = '{"id":"evt_1","type":"booking_intent.confirmed","created_at":"2026-11-23T08:00:00.000Z","data":{}}';
    const header = signatureHeader([secret, other], 'msg_1', at, body);
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`msg_1.1795420800.${body}`).digest('base64');
    assert.equal(header.split(' ')[0], `v1,${expected}`);
    assert.equal(header.split(' ').length, 2);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1795420800', 'webhook-signature': header };
    const realNow = Date.now;
    Date.now = () => at.getTime();
    try {
      for (const s of [secret, other]) assert.ok(new Webhook(s).verify(body, headers));
      assert.throws(() => new Webhook(generateSecret()).verify(body, headers), /No matching signature/);
    } finally {
      Date.now = realNow;
    }
  });
});

describe('transaction conflicts', () => {
  it('retries deadlocks, serialization failures and a busy SQLite, nothing else', () => {
    for (const code of ['40P01', '40001', 'SQLITE_BUSY']) assert.equal(isTransientConflict(Object.assign(new Error('x'), { code })), true, code);
    for (const err of [new Error('x'), Object.assign(new Error('x'), { code: '23505' }), null, undefined, 'text']) assert.equal(isTransientConflict(err), false);
  });
});

describe('payload', () => {
  it('is exactly {id, type, created_at, data} with the whitelisted intent fields', () => {
    const payload = eventPayload({
      id: 'evt_1',
      type: 'booking_intent.confirmed',
      created_at: '2026-11-23T08:00:00.000Z',
      data: JSON.stringify({
        booking_intent_id: 'bi',
        status: 'confirmed',
        lawyer_id: 'l',
        slot: { date: '2026-12-01', start_time: '10:00:00', end_time: '11:00:00' },
        confirmed_at: '2026-11-23T08:00:00.000Z',
        email: 'someone@example.com',
      }),
    });
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['id', 'type', 'created_at', 'data']);
    assert.deepEqual(Object.keys(parsed.data as object), ['booking_intent_id', 'status', 'lawyer_id', 'slot', 'confirmed_at']);
    const expired = JSON.parse(eventPayload({ id: 'evt_2', type: 'booking_intent.expired', created_at: 'x', data: '{"booking_intent_id":"bi","status":"expired","confirmed_at":null}' }));
    assert.deepEqual(expired.data, { booking_intent_id: 'bi', status: 'expired' });
  });
});

describe('webhook configuration', () => {
  it('has the spec defaults', () => {
    const c = loadConfig({});
    assert.deepEqual(c.webhookRetryScheduleSeconds, [60, 300, 1800, 7200, 43_200]);
    assert.equal(c.webhookAllowInsecureTargets, false);
    assert.equal(c.webhookTimeoutMs, 15_000);
    assert.equal(c.webhookDisableAfterFailures, 20);
    assert.ok(c.webhookLeaseSeconds * 1000 > c.webhookTimeoutMs);
    assert.ok(c.webhookConcurrency >= 1 && c.webhookEndpointConcurrency >= 1 && c.webhookDispatchIntervalMs >= 10);
  });

  it('reads every knob', () => {
    const c = loadConfig({
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1, 2,3',
      WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '500',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      WEBHOOK_DISABLE_AFTER_FAILURES: '5',
      WEBHOOK_LEASE_SECONDS: '2',
    });
    assert.deepEqual(
      [c.webhookRetryScheduleSeconds, c.webhookAllowInsecureTargets, c.webhookTimeoutMs, c.webhookConcurrency, c.webhookEndpointConcurrency, c.webhookDispatchIntervalMs, c.webhookDisableAfterFailures, c.webhookLeaseSeconds],
      [[1, 2, 3], true, 500, 8, 2, 100, 5, 2],
    );
  });

  const bad: Array<[string, string]> = [
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', '60,five'],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', '0'],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', '60,,300'],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', Array.from({ length: 21 }, () => '1').join(',')],
    ['WEBHOOK_ALLOW_INSECURE_TARGETS', 'yes please'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_TIMEOUT_MS', 'fast'],
    ['WEBHOOK_CONCURRENCY', '0'],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', '-1'],
    ['WEBHOOK_DISPATCH_INTERVAL_MS', '1'],
    ['WEBHOOK_DISABLE_AFTER_FAILURES', '0'],
    ['WEBHOOK_LEASE_SECONDS', '10'],
  ];
  for (const [variable, value] of bad) {
    it(`refuses ${variable}=${value.length > 20 ? `${value.slice(0, 20)}…` : value}, naming the variable`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(`${variable}:`),
      );
    });
  }
});
