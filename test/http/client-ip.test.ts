import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { clientIp } from '../../src/http/client-ip.ts';

/** GETs `/` on one keep-alive connection per agent, with the given X-Forwarded-For (or none). */
function ask(port: number, agent: http.Agent, forwarded: string | undefined): Promise<{ fast: string; fastify: string; socket: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(JSON.parse(body) as { fast: string; fastify: string; socket: number }));
    });
    req.on('error', reject);
  });
}

const HEADERS = [undefined, '203.0.113.5', ' 203.0.113.6 ', '203.0.113.7', '', '198.51.100.1, 203.0.113.8', '198.51.100.1,127.0.0.1', 'not-an-address', '2001:db8::1'];

const CASES: Array<[string, string[] | false]> = [
  ['the peer is a trusted proxy', ['127.0.0.1']],
  ['the peer is not a trusted proxy', ['192.0.2.1']],
  ['no proxy is trusted', false],
];

for (const [label, trustProxy] of CASES) {
  describe(`clientIp when ${label}`, () => {
    let app: FastifyInstance;
    let port: number;
    before(async () => {
      app = Fastify({ trustProxy });
      let sockets = 0;
      const ids = new WeakMap<object, number>();
      app.get('/', async (request) => {
        if (!ids.has(request.raw.socket)) ids.set(request.raw.socket, ++sockets);
        // clientIp first: on a new connection it is what asks whether the peer is trusted.
        const fast = clientIp(request);
        return { fast, fastify: request.ip, socket: ids.get(request.raw.socket) };
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      port = (app.server.address() as AddressInfo).port;
    });
    after(() => app.close());

    it("gives request.ip's answer for every header, again and again on one keep-alive connection", async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const seen = new Set<number>();
        for (let round = 0; round < 3; round++) {
          for (const header of HEADERS) {
            const answer = await ask(port, agent, header);
            seen.add(answer.socket);
            assert.equal(answer.fast, answer.fastify, `X-Forwarded-For ${JSON.stringify(header)}, round ${round + 1}`);
          }
        }
        assert.equal(seen.size, 1, 'every request went over the same connection');
        const client = await ask(port, agent, '203.0.113.9');
        assert.equal(client.fast, trustProxy === false || !trustProxy.includes('127.0.0.1') ? '127.0.0.1' : '203.0.113.9');
      } finally {
        agent.destroy();
      }
    });
  });
}
