/**
 * The raw baseline: a bare `node:http` server that answers each benchmark path with the bytes
 * the service answered for it (status, content type, body), and does nothing else — no routing
 * framework, validation, database, serialisation or logging. What it costs is what any Node
 * server on this machine pays for HTTP alone, so the service's throughput as a share of it
 * isolates the service's own cost from the machine's speed.
 *
 * Run as a child of bench/run.ts: `node --import tsx bench/baseline-server.ts FILE PORT`.
 */
import fs from 'node:fs';
import http from 'node:http';

interface Entry {
  status: number;
  headers: Record<string, string | number>;
  body: Buffer;
}

const [file, portArg] = process.argv.slice(2);
if (!file || !portArg) {
  process.stderr.write('usage: baseline-server.ts RESPONSES.json PORT\n');
  process.exit(2);
}

const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ path: string; status: number; content_type: string; body: string }>;
const responses = new Map<string, Entry>();
for (const r of raw) {
  const body = Buffer.from(r.body, 'base64');
  responses.set(r.path, { status: r.status, headers: { 'content-type': r.content_type, 'content-length': body.length }, body });
}
const notFound = Buffer.from('{"status":404}');

const server = http.createServer((req, res) => {
  const entry = responses.get(req.url ?? '');
  if (!entry) {
    res.writeHead(404, { 'content-type': 'application/json', 'content-length': notFound.length }).end(notFound);
    return;
  }
  res.writeHead(entry.status, entry.headers).end(entry.body);
});
// Same keep-alive window as Fastify's default, so connections behave alike under load.
server.keepAliveTimeout = 72_000;
server.listen(Number(portArg), '127.0.0.1');

process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
