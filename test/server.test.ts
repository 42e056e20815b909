import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/server.ts';
import { testConfig } from './support/app.ts';

describe('a real server on loopback', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-server-'));
  let server: RunningServer | undefined;
  after(async () => {
    await server?.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('drains in-flight requests on stop, refuses new ones, then closes the database', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    server = await startServer(testConfig({ port: 0, host: '127.0.0.1', databaseUrl: `sqlite:${path.join(dir, 's.db')}` }), {
      beforeListen: (app) => {
        app.fastify.get('/api/v1/__slow', async () => {
          entered();
          await gate;
          return { done: true };
        });
      },
    });
    const base = server.url;
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal((await fetch(`${base}/readyz`)).status, 200);

    const inFlight = fetch(`${base}/api/v1/__slow`);
    await inHandler;
    const stopping = server.stop();

    // New connections are refused while the in-flight request is still running.
    await assert.rejects(fetch(`${base}/healthz`, { headers: { connection: 'close' } }));

    release();
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { done: true });
    // The in-flight request's keep-alive connection is closed once it is idle: the stop does not
    // wait for the client or the 72 s keep-alive timeout (it did, 70 s here).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      stopping,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('stop waited for an idle keep-alive connection')), 10_000))),
    ]).finally(() => clearTimeout(timer));
    await assert.rejects(server.database.ping(), 'the database is closed after stop');
    server = undefined;
  });

  it('builds the search index before it listens, so no request waits for it', async () => {
    const databaseUrl = `sqlite:${path.join(dir, 'warm.db')}`;
    let versionAtListen: number | undefined;
    server = await startServer(testConfig({ port: 0, host: '127.0.0.1', databaseUrl }), {
      beforeListen: (app) => {
        versionAtListen = app.services.directoryCache.indexedVersion;
      },
    });
    const ref = await server.app.services.directoryCache.current();
    assert.equal(versionAtListen, ref.version, 'the index of the current version was built before listening');
    const res = await fetch(`${server.url}/api/v1/lawyers/search`);
    assert.equal(res.status, 200);
    await server.stop();
    server = undefined;
  });
});
