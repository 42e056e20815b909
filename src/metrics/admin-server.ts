/**
 * The admin listener (METRICS_PORT): GET /metrics without a token, on its own port, bound to
 * METRICS_HOST (127.0.0.1 unless set). It answers nothing else. Plain node:http: it shares no
 * hooks, limits or logs with the public app, and a scrape never waits behind public traffic's
 * middleware.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newRequestId } from '../http/request-id.ts';
import { problemBody, PROBLEM_CONTENT_TYPE } from '../http/problem.ts';
import { METRICS_PATH } from './metrics.routes.ts';
import type { AppMetrics } from './metrics.ts';

export interface AdminServer {
  /** `http://host:port` actually bound (port 0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

export async function startAdminServer(options: { metrics: AppMetrics; host: string; port: number; siteUrl: string; onError(err: unknown): void }): Promise<AdminServer> {
  const { metrics, siteUrl } = options;
  const problem = (res: http.ServerResponse, code: 'not_found' | 'internal_error', detail: string) => {
    const id = newRequestId();
    const body = problemBody(siteUrl, id, code, detail);
    res.writeHead(body.status, { 'content-type': PROBLEM_CONTENT_TYPE, 'x-request-id': id, 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return problem(res, 'not_found', 'The admin listener serves GET /metrics only.');
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        options.onError(err);
        problem(res, 'internal_error', 'The metrics could not be collected.');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
