import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pino from 'pino';
import { createApp } from '../../api/app.js';
import type { Database } from '../../core/db/database.js';
import type { PlanId } from '../../core/plans.js';
import { type Services, createServices } from '../../core/services.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** A real Lore HTTP server on an ephemeral port, over a real database. */
export interface TestApp {
  url: string;
  services: Services;
  db: Database;
  close(): Promise<void>;
}

export async function startTestApp(db: Database, overrides: { adminToken?: string | undefined } = {}): Promise<TestApp> {
  const services = createServices(db, { apiKeyPrefix: 'lore' });
  const app = createApp({
    config: {
      adminToken: 'adminToken' in overrides ? overrides.adminToken : TEST_ADMIN_TOKEN,
      metricsEnabled: true,
      publicBaseUrl: undefined,
    },
    services,
    log: pino({ level: 'silent' }),
    version: 'test',
  });
  const server: Server = app.express.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    db,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small JSON client: `api(url, key)('POST', '/v1/...', body)`. */
export function client(baseUrl: string, key?: string) {
  return async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}

let tenantCounter = 0;

/** Creates a tenant through the internal admin API; returns its id and first admin key. */
export async function createTenant(app: TestApp, plan: PlanId = 'standard'): Promise<{ id: string; key: string }> {
  tenantCounter += 1;
  const res = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', {
    name: `Tenant ${tenantCounter}`,
    plan,
  });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, key: res.body.api_key as string };
}

/** Creates an extra key of a role for a tenant, using its admin key. */
export async function createKey(app: TestApp, adminKey: string, role: 'read' | 'write' | 'admin'): Promise<string> {
  const res = await client(app.url, adminKey)('POST', '/v1/auth/keys', { name: `${role} key`, role });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key as string;
}
