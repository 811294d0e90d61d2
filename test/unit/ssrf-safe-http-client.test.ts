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

  it('refuses IPv6 forms that embed an IPv4 address (IPv4-compatible, translated, NAT64, 6to4, Teredo), as literals and as DNS answers', async () => {
    const spellings = [
      '::7f00:1', // IPv4-compatible 127.0.0.1, the spelling the probe got through
      '::127.0.0.1',
      '0:0:0:0:0:0:7f00:1',
      '::a9fe:a9fe', // 169.254.169.254
      '::a00:1', // 10.0.0.1
      '::c0a8:101', // 192.168.1.1
      '::5db8:d822', // 93.184.216.34: the deprecated form is refused whatever it embeds
      '::ffff:a9fe:a9fe', // IPv4-mapped 169.254.169.254
      '::ffff:a00:1',
      '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
      '64:ff9b::7f00:1', // NAT64, well-known prefix
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::a00:1',
      '64:ff9b::5db8:d822',
      '64:ff9b:1::a00:1', // NAT64, local-use prefix
      '64:ff9b:1:a9fe:a9fe::',
      '2002:a9fe:a9fe::1', // 6to4
      '2002:a00:1::1',
      '2002:7f00:1::',
      '2001:0:a00:1::1', // Teredo
      '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo whose client is 10.0.0.1 (obfuscated)
      '::1:0:0:1', // the rest of ::/8, reserved
      '100::1', // discard-only
      '2001:db8::1', // documentation
    ];
    const dns: Record<string, string[]> = {};
    for (const [i, address] of spellings.entries()) {
      const literal = await refusal(post(strict, `https://[${address}]:8443/hook`));
      assert.equal(literal.reason, 'blocked_address', address);
      dns[`aaaa-${i}.example`] = [address];
    }
    const answering = new SsrfSafeHttpClient({ allowedNetworks: [], timeoutMs: 2000, resolve: (hostname) => Promise.resolve(dns[hostname] ?? []) });
    for (const [i, address] of spellings.entries()) {
      assert.equal((await refusal(answering.check(`https://aaaa-${i}.example/`))).reason, 'blocked_address', address);
    }
    // An allow-listed IPv4 network does not let its IPv4-compatible or NAT64 spelling through.
    const allowed = new SsrfSafeHttpClient({ allowedNetworks: ['127.0.0.1/32'], timeoutMs: 2000, resolve });
    for (const address of ['::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::1']) {
      assert.equal((await refusal(post(allowed, `https://[${address}]/hook`))).reason, 'blocked_address', address);
    }
    // Global unicast IPv6 stays reachable.
    await strict.check('https://[2606:4700:4700::1111]/hook');
    await strict.check('https://[2001:4860:4860::8888]/hook');
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
