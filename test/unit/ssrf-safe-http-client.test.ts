import assert from 'node:assert/strict';
import { SsrfSafeHttpClient } from '../../core/adapters/ssrf-safe.http-client.js';
import { OutboundFailedError, OutboundRefusedError } from '../../core/ports/outbound-http.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** A resolver that maps names to chosen addresses, as a hostile DNS zone would. */
const zone: Record<string, string[]> = {
  'localhost.example': ['127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '10.0.0.7'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'public.example': ['93.184.216.34'],
};
const resolve = (hostname: string): Promise<string[]> => {
  const addresses = zone[hostname];
  if (addresses) return Promise.resolve(addresses);
  return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
};

async function refusal(promise: Promise<unknown>): Promise<OutboundRefusedError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutboundRefusedError, `expected a refusal, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to be refused');
}

describe('SsrfSafeHttpClient', () => {
  const strict = new SsrfSafeHttpClient({ allowedNetworks: [], timeoutMs: 2000, resolve });
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await WebhookReceiver.start();
  });
  after(() => receiver.close());

  const post = (client: SsrfSafeHttpClient, url: string) => client.post(url, { 'content-type': 'application/json' }, '{}');

  it('refuses loopback, private, link-local, CGNAT, multicast, unique-local and unspecified addresses, in every spelling', async () => {
    const urls = [
      'https://127.0.0.1/hook',
      'https://2130706433/hook', // 127.0.0.1 as one number
      'https://0x7f.1/hook', // and in hex
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped IPv6
      'https://[::ffff:7f00:1]/hook',
      'https://10.0.0.1/hook',
      'https://172.16.5.4/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data', // cloud metadata
      'https://[fd00:ec2::254]/latest/meta-data', // AWS's IPv6 metadata
      'https://100.64.0.1/hook', // CGNAT
      'https://224.0.0.1/hook',
      'https://0.0.0.0/hook',
      'https://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
      'https://[2002:7f00:1::1]/hook', // 6to4 of 127.0.0.1
    ];
    for (const url of urls) {
      const error = await refusal(post(strict, url));
      assert.equal(error.reason, 'blocked_address', url);
    }
  });

  it('refuses a host name that resolves to a private address, at connect time', async () => {
    assert.equal((await refusal(post(strict, 'https://localhost.example/hook'))).reason, 'blocked_address');
    assert.equal((await refusal(post(strict, 'https://metadata.example/'))).reason, 'blocked_address');
    assert.equal((await refusal(post(strict, 'https://mapped.example/'))).reason, 'blocked_address');
    // One private address among public ones is enough to refuse.
    assert.equal((await refusal(post(strict, 'https://mixed.example/'))).reason, 'blocked_address');
    // The system's resolver too: localhost is loopback.
    const system = new SsrfSafeHttpClient({ allowedNetworks: [], timeoutMs: 2000 });
    assert.equal((await refusal(post(system, 'https://localhost/hook'))).reason, 'blocked_address');
  });

  it('checks the address again when it sends: a name that rebinds to loopback after the request was accepted is refused', async () => {
    let answers = 0;
    const rebinding = new SsrfSafeHttpClient({
      allowedNetworks: [],
      timeoutMs: 2000,
      resolve: () => Promise.resolve(answers++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
    });
    await rebinding.check('https://rebind.example/hook');
    assert.equal((await refusal(post(rebinding, 'https://rebind.example/hook'))).reason, 'blocked_address');
  });

  it('refuses plain http, other schemes, credentials in the URL, and names that do not resolve', async () => {
    assert.equal((await refusal(post(strict, 'http://public.example/hook'))).reason, 'invalid_url');
    assert.equal((await refusal(post(strict, 'ftp://public.example/hook'))).reason, 'invalid_url');
    assert.equal((await refusal(post(strict, 'https://user:pass@public.example/hook'))).reason, 'invalid_url');
    assert.equal((await refusal(post(strict, 'not a url'))).reason, 'invalid_url');
    assert.equal((await refusal(post(strict, `https://public.example/${'x'.repeat(2100)}`))).reason, 'invalid_url');
    assert.equal((await refusal(post(strict, 'https://nowhere.example/'))).reason, 'unresolvable');
  });

  it('reaches an allow-listed network over http, and nothing else', async () => {
    const allowed = new SsrfSafeHttpClient({ allowedNetworks: ['127.0.0.1/32'], timeoutMs: 2000, resolve });
    assert.equal(await post(allowed, receiver.url), 200);
    assert.equal(await post(allowed, receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]')), 200);
    assert.equal((await refusal(post(allowed, 'http://10.0.0.1/hook'))).reason, 'blocked_address');
    assert.equal((await refusal(post(allowed, 'http://127.0.0.2/hook'))).reason, 'blocked_address');
    // The same receiver without the allow-list: refused before any connection.
    const before = receiver.received.length;
    await refusal(post(strict, receiver.url));
    assert.equal(receiver.received.length, before);
  });

  it('does not follow a redirect, even to an allowed address', async () => {
    const allowed = new SsrfSafeHttpClient({ allowedNetworks: ['127.0.0.1/32'], timeoutMs: 2000 });
    receiver.answers.push({ redirect: 'http://169.254.169.254/latest/meta-data' });
    const before = receiver.received.length;
    assert.equal(await post(allowed, receiver.url), 302);
    assert.equal(receiver.received.length, before + 1);
  });

  it('fails a receiver that does not answer in time, and one that cannot be reached, as retryable', async () => {
    const allowed = new SsrfSafeHttpClient({ allowedNetworks: ['127.0.0.1/32'], timeoutMs: 300 });
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    try {
      const port = (silent.address() as { port: number }).port;
      await assert.rejects(post(allowed, `http://127.0.0.1:${port}/`), (e: unknown) => e instanceof OutboundFailedError && e.reason === 'timeout');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
    await assert.rejects(post(allowed, 'http://127.0.0.1:9/'), (e: unknown) => e instanceof OutboundFailedError && e.reason === 'network');
  });
});
