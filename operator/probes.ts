import { type Server, createServer } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * The operator's HTTP endpoints: `/healthz` (the process answers), `/readyz` (its informers have
 * listed what they watch; a standby replica is ready too, to take over), and `/metrics`.
 */
export function serveProbes(params: { port: number; host: string; registry: Registry; isReady: () => boolean; isLeader: () => boolean }): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (path === '/readyz') {
      const ready = params.isReady();
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ready ? 'ready' : 'syncing', leader: params.isLeader() }));
    } else if (path === '/metrics') {
      params.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': params.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    }
  }).listen(params.port, params.host);
}
