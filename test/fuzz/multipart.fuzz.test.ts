import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BURST_LIMITS } from '../../core/plans.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import {
  BUDGET_SHARES,
  BurstPacer,
  OperationStats,
  type Part,
  type RawResponse,
  abbreviate,
  capturedErrorLog,
  contractViolations,
  describeResponse,
  exchange,
  fieldPart,
  filePart,
  fuzzSettings,
  multipartBytes,
  nextClientAddress,
  printFigures,
  seedFor,
} from '../support/fuzz.js';
import { FuzzTenant } from '../support/fuzz-tenant.js';
import { multilingualPdf } from '../support/pdf-fixtures.js';

const BOUNDARY = 'FuzzBoundary7MA4YWxk';

/** A valid upload: a metadata part and a text/plain file, or a metadata part and a PDF. */
function baseParts(kind: 'text' | 'pdf', kb: string, pdf: Buffer): Part[] {
  const metadata = fieldPart('metadata', JSON.stringify({ knowledge_base_id: kb, title: `fuzz ${kind}`, tags: { source: 'fuzz' } }));
  return kind === 'text'
    ? [metadata, filePart('file', 'notes.txt', 'text/plain', Buffer.from('Green tea is brewed at 80 degrees.\nLe thé noir infuse quatre minutes.\n'))]
    : [metadata, filePart('file', 'doc.pdf', 'application/pdf', pdf)];
}

// ---------------------------------------------------------------------------------------------
// Mutations, as data (fast-check shrinks them), and how each is applied

const PART_OPS = ['duplicate', 'swap', 'reverse', 'drop', 'extraField', 'extraFile', 'hugeHeaderLine', 'garbageHeader', 'manyParts', 'fileType', 'metadata', 'fileName'] as const;
const BOUNDARY_OPS = ['quoted', 'omitted', 'empty', 'mismatched', 'prefixOnly', 'long', 'spaces', 'specialChars', 'twice', 'mixed', 'upperCase', 'charset', 'textPlain', 'json', 'none', 'junkParameters'] as const;
const BYTE_OPS = ['truncate', 'corruptNearBoundary', 'corruptHeaders', 'lfOnly', 'insert', 'delete', 'randomBody', 'noCloseDelimiter', 'preambleEpilogue'] as const;
const HEAD_OPS = ['garbageHeaderName', 'nulInHeader', 'hugeHeaderLine', 'twoContentTypes', 'twoContentLengths', 'shortContentLength', 'chunked', 'brokenChunks', 'obsFold', 'latin1Header'] as const;

interface Op<K> {
  kind: K;
  at: number;
  variant: number;
}
const op = <K extends string>(kinds: readonly K[]) => fc.record({ kind: fc.constantFrom(...kinds), at: fc.nat(), variant: fc.nat() });

interface Case {
  base: 'text' | 'pdf';
  kb: number;
  parts: Op<(typeof PART_OPS)[number]>[];
  boundary: Op<(typeof BOUNDARY_OPS)[number]> | undefined;
  bytes: (Op<(typeof BYTE_OPS)[number]> & { noise: number[] })[];
  head: Op<(typeof HEAD_OPS)[number]> | undefined;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  base: fc.constantFrom('text' as const, 'pdf' as const),
  kb: fc.nat(),
  parts: fc.array(op(PART_OPS), { maxLength: 3 }),
  boundary: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: op(BOUNDARY_OPS), weight: 1 }),
  bytes: fc.array(fc.tuple(op(BYTE_OPS), fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 16 })).map(([o, noise]) => ({ ...o, noise })), { maxLength: 2 }),
  head: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: op(HEAD_OPS), weight: 1 }),
});

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

function applyPartOp(parts: Part[], o: Op<(typeof PART_OPS)[number]>): { parts: Part[]; note: string } {
  const list = [...parts];
  const i = o.at % Math.max(1, list.length);
  const target = list[i];
  switch (o.kind) {
    case 'duplicate':
      if (target) list.splice(i, 0, target);
      return { parts: list, note: `part ${i} given twice` };
    case 'swap':
      if (list.length > 1) [list[0], list[1]] = [list[1]!, list[0]!];
      return { parts: list, note: 'first two parts swapped' };
    case 'reverse':
      return { parts: list.reverse(), note: 'parts reversed' };
    case 'drop':
      list.splice(i, 1);
      return { parts: list, note: `part ${i} dropped` };
    case 'extraField':
      list.splice(i, 0, fieldPart(pick(['other', 'file', 'metadata', '', 'a"b'], o.variant), pick(['x', '', '{}', 'ä'.repeat(70_000)], o.variant >> 3)));
      return { parts: list, note: `an extra field part at ${i}` };
    case 'extraFile':
      list.splice(i, 0, filePart(pick(['other', 'metadata', 'file2'], o.variant), 'x.bin', 'application/octet-stream', Buffer.alloc(o.variant % 5000, 7)));
      return { parts: list, note: `an extra file part at ${i}` };
    case 'hugeHeaderLine': {
      const n = pick([1000, 20_000, 100_000], o.variant);
      if (target) list[i] = { ...target, headers: [...target.headers, `X-Pad: ${'a'.repeat(n)}`] };
      return { parts: list, note: `part ${i}: a header line of ${n} characters` };
    }
    case 'garbageHeader': {
      const garbage = pick(
        [
          'no colon here',
          'Content-Disposition: attachment; name="file"',
          'Content-Disposition: form-data',
          'Content-Disposition: form-data; name=',
          'Content-Disposition: form-data; name="file"; filename*=UTF-8\'\'%ZZ%00',
          'Content-Disposition: form-data; name="fi\u0000le"; filename="a\u0000.txt"',
          'Content-Disposition: form-data; name="file"; filename="\u00ff\u00fe.txt"',
          'Content-Type: ;;;',
          'Content-Type: text/plain; charset=no-such-charset',
          'Content-Transfer-Encoding: base64',
          ': empty name',
          '\u0000\u0001\u0002',
        ],
        o.variant,
      );
      if (target) list[i] = { ...target, headers: o.variant % 2 ? [garbage, ...target.headers] : [garbage] };
      return { parts: list, note: `part ${i}: header ${JSON.stringify(garbage)}${o.variant % 2 ? ' added' : ' instead of its own'}` };
    }
    case 'manyParts': {
      const n = pick([19, 21, 31, 200], o.variant);
      for (let k = 0; k < n; k++) list.push(fieldPart(`f${k}`, 'x'));
      return { parts: list, note: `${n} extra field parts` };
    }
    case 'fileType': {
      const type = pick(['text/plain; charset=utf-16le', 'application/pdf', 'text/plain', '', 'TEXT/PLAIN', 'image/png', 'application/octet-stream', 'text/plain; charset=windows-1252'], o.variant);
      const file = list.findIndex((p) => p.headers.some((h) => h.includes('name="file"')));
      if (file >= 0) list[file] = { ...list[file]!, headers: [...list[file]!.headers.filter((h) => !/^content-type/i.test(h)), ...(type ? [`Content-Type: ${type}`] : [])] };
      return { parts: list, note: `file part type ${JSON.stringify(type)}` };
    }
    case 'metadata': {
      const value = pick(['', '{', 'null', '[]', '"x"', '{"knowledge_base_id":"nope"}', '{"knowledge_base_id":"00000000-0000-4000-8000-000000000000"}', '{"title":"\\u0000"}', '[' .repeat(5000), `{"title":"${'t'.repeat(600)}"}`, 'x'.repeat(70_000)], o.variant);
      const meta = list.findIndex((p) => p.headers.some((h) => h.includes('name="metadata"')));
      if (meta >= 0) list[meta] = fieldPart('metadata', value);
      return { parts: list, note: `metadata ${abbreviate(JSON.stringify(value), 60)}` };
    }
    case 'fileName': {
      const name = pick(['', 'a\u0000.txt', '\ud800.txt', '../../etc/passwd', 'x'.repeat(10_000), 'a"b.txt', 'ÿ.txt', '😀.pdf'], o.variant);
      const file = list.findIndex((p) => p.headers.some((h) => h.includes('name="file"')));
      if (file >= 0) {
        const type = list[file]!.headers.find((h) => /^content-type/i.test(h))?.split(': ')[1];
        list[file] = filePart('file', name, type, list[file]!.data);
      }
      return { parts: list, note: `file name ${abbreviate(JSON.stringify(name), 60)}` };
    }
  }
}

function contentType(o: Case['boundary']): { boundary: string; header: string | undefined; note?: string } {
  const ok = (boundary: string, header = `multipart/form-data; boundary=${boundary}`) => ({ boundary, header });
  if (!o) return ok(BOUNDARY);
  const note = `Content-Type: ${o.kind}`;
  const table: Record<(typeof BOUNDARY_OPS)[number], { boundary: string; header: string | undefined }> = {
    quoted: ok(BOUNDARY, `multipart/form-data; boundary="${BOUNDARY}"`),
    omitted: ok(BOUNDARY, 'multipart/form-data'),
    empty: ok(BOUNDARY, 'multipart/form-data; boundary='),
    mismatched: ok(BOUNDARY, 'multipart/form-data; boundary=SomethingElse'),
    prefixOnly: ok(BOUNDARY, `multipart/form-data; boundary=${BOUNDARY.slice(0, 5)}`),
    long: ok('b'.repeat(pick([70, 71, 200, 5000], o.variant))),
    spaces: ok('a b c', 'multipart/form-data; boundary="a b c"'),
    specialChars: ok("'()+_,-./:=?", 'multipart/form-data; boundary="\'()+_,-./:=?"'),
    twice: ok(BOUNDARY, `multipart/form-data; boundary=Other; boundary=${BOUNDARY}`),
    mixed: ok(BOUNDARY, `multipart/mixed; boundary=${BOUNDARY}`),
    upperCase: ok(BOUNDARY, `MULTIPART/FORM-DATA; BOUNDARY=${BOUNDARY}`),
    charset: ok(BOUNDARY, `multipart/form-data; charset=utf-16; boundary=${BOUNDARY}`),
    textPlain: ok(BOUNDARY, 'text/plain'),
    json: ok(BOUNDARY, 'application/json'),
    none: ok(BOUNDARY, undefined),
    junkParameters: ok(BOUNDARY, `multipart/form-data; ;;; x; boundary=${BOUNDARY}; =y`),
  };
  return { ...table[o.kind], note };
}

function applyByteOp(body: Buffer, boundaries: number[], o: Case['bytes'][number]): { body: Buffer; note: string } {
  const noise = Buffer.from(o.noise);
  const at = o.at % (body.length + 1);
  const near = (boundaries[o.variant % Math.max(1, boundaries.length)] ?? 0) + ((o.at % 17) - 8);
  const overwrite = (position: number) => {
    const copy = Buffer.from(body);
    const start = Math.max(0, Math.min(copy.length - 1, position));
    noise.copy(copy, start, 0, Math.min(noise.length, copy.length - start));
    return copy;
  };
  switch (o.kind) {
    case 'truncate':
      return { body: body.subarray(0, at), note: `cut at byte ${at} of ${body.length}` };
    case 'corruptNearBoundary':
      return { body: overwrite(near), note: `${noise.length} bytes overwritten at ${Math.max(0, near)} (near a part boundary)` };
    case 'corruptHeaders': {
      const headerStart = (boundaries[o.variant % Math.max(1, boundaries.length - 1)] ?? 0) + BOUNDARY.length + 4;
      return { body: overwrite(headerStart + (o.at % 40)), note: `${noise.length} bytes overwritten inside a part's headers` };
    }
    case 'lfOnly':
      return { body: Buffer.from(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1'), note: 'CRLF replaced by LF' };
    case 'insert':
      return { body: Buffer.concat([body.subarray(0, at), noise, body.subarray(at)]), note: `${noise.length} bytes inserted at ${at}` };
    case 'delete':
      return { body: Buffer.concat([body.subarray(0, at), body.subarray(at + (o.variant % 64) + 1)]), note: `${(o.variant % 64) + 1} bytes deleted at ${at}` };
    case 'randomBody': {
      const random = Buffer.alloc(noise.length * (1 + (o.variant % 200)));
      for (let i = 0; i < random.length; i++) random[i] = noise[i % noise.length]! ^ (i * 31 + o.at) & 0xff;
      return { body: random, note: `a body of ${random.length} noise bytes` };
    }
    case 'noCloseDelimiter':
      return { body: body.subarray(0, boundaries[boundaries.length - 1] ?? body.length), note: 'no closing delimiter' };
    case 'preambleEpilogue':
      return { body: Buffer.concat([noise, Buffer.from('\r\n'), body, noise]), note: 'noise before the first and after the last delimiter' };
  }
}

/** The request head: the request line and headers, possibly broken on purpose. */
function requestBytes(url: string, auth: string, type: string | undefined, body: Buffer, o: Case['head'], requestId: string): { bytes: Buffer; note?: string } {
  const { host } = new URL(url);
  const lines = [`POST /v1/documents/upload HTTP/1.1`, `Host: ${host}`, `Authorization: ${auth}`, `X-Forwarded-For: ${nextClientAddress()}`, `X-Request-Id: ${requestId}`, 'Connection: close'];
  if (type !== undefined) lines.push(`Content-Type: ${type}`);
  let payload = body;
  let length: string | undefined = String(body.length);
  let note: string | undefined;
  if (o) {
    note = `request head: ${o.kind}`;
    switch (o.kind) {
      case 'garbageHeaderName':
        lines.push(pick(['Bad Header: x', 'X-A(b): y', ': nothing', 'X-\u00ff: z'], o.variant));
        break;
      case 'nulInHeader':
        lines.push('X-Note: a\u0000b');
        break;
      case 'hugeHeaderLine': {
        const n = pick([8000, 15_000, 17_000, 70_000], o.variant);
        lines.push(`X-Pad: ${'a'.repeat(n)}`);
        note += ` (${n} characters)`;
        break;
      }
      case 'twoContentTypes':
        lines.push('Content-Type: multipart/form-data; boundary=Other');
        break;
      case 'twoContentLengths':
        lines.push(`Content-Length: ${body.length + 1}`);
        break;
      case 'shortContentLength':
        length = String(body.length >> 1);
        break;
      case 'chunked':
      case 'brokenChunks': {
        length = undefined;
        lines.push('Transfer-Encoding: chunked');
        const size = Math.max(1, (o.variant % 4096) + 1);
        const chunks: Buffer[] = [];
        for (let i = 0; i < body.length; i += size) {
          const chunk = body.subarray(i, i + size);
          chunks.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
        }
        chunks.push(Buffer.from(o.kind === 'chunked' ? '0\r\n\r\n' : 'zz\r\nbroken\r\n0\r\n\r\n'));
        payload = Buffer.concat(chunks);
        break;
      }
      case 'obsFold':
        lines.push('X-Folded: a', ' continued');
        break;
      case 'latin1Header':
        lines.push('X-Name: Gr\u00fc\u00dfe \u00ff');
        break;
    }
  }
  if (length !== undefined) lines.push(`Content-Length: ${length}`);
  return { bytes: Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]), ...(note ? { note } : {}) };
}

function describeBytes(bytes: Buffer): string {
  const end = bytes.indexOf('\r\n\r\n');
  const head = end < 0 ? bytes : bytes.subarray(0, end);
  const body = end < 0 ? Buffer.alloc(0) : bytes.subarray(end + 4);
  return [`  head:     ${abbreviate(JSON.stringify(head.toString('latin1')), 2000)}`, `  body:     ${body.length} bytes: ${abbreviate(JSON.stringify(body.toString('latin1')), 3000)}`].join('\n');
}

// ---------------------------------------------------------------------------------------------

for (const database of testDatabases()) {
  describe(`fuzz: multipart bodies of POST /v1/documents/upload [${database.name}]`, () => {
    let app: TestApp | undefined;
    let tenant: FuzzTenant;
    let pdf: Buffer;
    const errorLog = capturedErrorLog();
    const settings = fuzzSettings();
    const selected = !settings.only || settings.only.includes('multipart');

    before(async function () {
      if (!selected) return;
      this.timeout(300_000);
      app = await startTestApp(await database.get(), { env: { TRUSTED_PROXIES: 'loopback' }, log: errorLog.log });
      tenant = new FuzzTenant(app);
      await tenant.repair();
      pdf = Buffer.from(await multilingualPdf());
    });
    after(async () => {
      if (!app) return;
      try {
        await tenant.cleanUp();
      } finally {
        await app.close();
      }
    });

    it('answers every cut, shuffled, corrupted or random body with 202 or a 4xx in the error shape, and stays alive', async function () {
      const s = settings;
      if (!selected || !app) {
        console.log('fuzz: multipart fuzzer left out by FUZZ_OPERATION');
        return;
      }
      const url = app.url;
      const budgetMs = (s.seconds * 1000 * BUDGET_SHARES.multipart) / testDatabases().length;
      this.timeout(budgetMs * 2 + 600_000);
      console.log(`fuzz: seed=${s.seed} budget=${s.seconds}s; multipart [${database.name}]: ${(budgetMs / 1000).toFixed(1)}s`);
      const pacer = new BurstPacer({ documents: BURST_LIMITS.documentsPerKeyPerSecond });
      const keys = [...tenant.keys.admin, ...tenant.keys.write].map((k) => `Bearer ${k.key}`);
      const kbs = [...tenant.pools.knowledgeBases, '00000000-0000-4000-8000-000000000000'];
      let requestNumber = 0;

      /** Sends one body; returns a failure report, or undefined when the answer keeps the contract. */
      const send = async (stats: OperationStats, type: string | undefined, body: Buffer, head: Case['head'], notes: string[]): Promise<string | undefined> => {
        const auth = await pacer.take('documents', keys);
        const requestId = `mp-${(requestNumber += 1)}`;
        const built = requestBytes(url, auth, type, body, head, requestId);
        const all = built.note ? [...notes, built.note] : notes;
        let res: RawResponse;
        try {
          res = await exchange(url, built.bytes);
        } catch (err) {
          stats.count(0);
          return `uploadDocument (multipart)\n  generated: ${all.join('; ')}\n${describeBytes(built.bytes)}\n  problems: no answer: ${(err as Error).message}`;
        }
        stats.count(res.status);
        const problems = contractViolations(res);
        if (res.status < 400 && res.status !== 202) problems.push(`status ${res.status}: only 202 or an error is expected`);
        if (!problems.length) return undefined;
        const inside = errorLog.forRequest(res.headers['x-request-id'] as string | undefined);
        return [`uploadDocument (multipart)`, `  generated: ${all.join('; ') || 'a valid upload'}`, describeBytes(built.bytes), describeResponse(res), `  problems: ${problems.join('; ')}`, ...(inside ? [`  server log: ${inside}`] : [])].join('\n');
      };

      const failures: string[] = [];
      const started = Date.now();

      // Every part boundary of both valid bodies, and the bytes either side of it, once each.
      const cuts = new OperationStats('cut at every part boundary');
      for (const kind of ['text', 'pdf'] as const) {
        const parts = baseParts(kind, tenant.pools.knowledgeBases[0]!, pdf);
        const { body, boundaries } = multipartBytes(parts, BOUNDARY);
        const headerEnds = boundaries.slice(0, -1).map((b) => body.indexOf('\r\n\r\n', b) + 4);
        const dataEnds = boundaries.slice(1).map((b) => b - 2);
        const offsets = new Set<number>();
        for (const b of [...boundaries, ...headerEnds, ...dataEnds, body.length - 2]) for (const d of [-1, 0, 1, 2]) if (b + d >= 0 && b + d < body.length) offsets.add(b + d);
        for (const offset of [...offsets].sort((a, b) => a - b)) {
          const report = await send(cuts, `multipart/form-data; boundary=${BOUNDARY}`, body.subarray(0, offset), undefined, [`the valid ${kind} upload cut at byte ${offset} of ${body.length}`]);
          if (report) {
            cuts.fail(report);
            failures.push(report);
          }
        }
      }
      cuts.elapsedMs = Date.now() - started;

      // Then random mutations for the rest of the budget.
      const random = new OperationStats('random mutations');
      let inFlight: Promise<string | undefined> = Promise.resolve(undefined);
      const property = fc.asyncProperty(caseArb, async (c) => {
        let parts = baseParts(c.base, kbs[c.kb % kbs.length]!, pdf);
        const notes: string[] = [`the valid ${c.base} upload`];
        if (c.kb % kbs.length) notes.push(`knowledge base ${c.kb % kbs.length}`);
        for (const o of c.parts) {
          const out = applyPartOp(parts, o);
          parts = out.parts;
          notes.push(out.note);
        }
        const type = contentType(c.boundary);
        if (type.note) notes.push(type.note);
        let { body, boundaries } = multipartBytes(parts, type.boundary);
        for (const o of c.bytes) {
          const out = applyByteOp(body, boundaries, o);
          body = out.body;
          boundaries = boundaries.filter((b) => b < body.length);
          notes.push(out.note);
        }
        inFlight = send(random, type.header, body, c.head, notes);
        const report = await inFlight;
        if (report) {
          random.fail(report);
          throw new Error(report);
        }
      });
      const randomStarted = Date.now();
      const details = await fc.check(property, {
        seed: seedFor(s.seed, 'multipart'),
        numRuns: 1_000_000_000,
        plugins: [fc.interruptAfterTimeLimit(Math.max(1000, budgetMs - (Date.now() - started)))],
        ...(s.path ? { path: s.path } : {}),
      });
      await inFlight.catch(() => undefined);
      random.elapsedMs = Date.now() - randomStarted;
      if (details.failed && details.counterexamplePath !== null) {
        failures.push(
          `${(details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)}\n  fast-check: seed=${details.seed} path=${details.counterexamplePath} after ${details.numRuns} runs and ${details.numShrinks} shrinks\n  replay: FUZZ_SEED=${s.seed} FUZZ_OPERATION=multipart FUZZ_PATH=${details.counterexamplePath} npx mocha test/fuzz/multipart.fuzz.test.ts`,
        );
      } else {
        failures.push(...random.failures);
      }
      const live = await exchange(url, Buffer.from('GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).catch(() => undefined);
      if (live?.status !== 200) failures.push(`GET /health/live answered ${live?.status ?? 'nothing'} after the multipart fuzzing`);

      printFigures(`multipart fuzz [${database.name}], seed ${s.seed}`, [cuts, random]);
      for (const f of failures) console.log(`\nFAILURE ${f}`);
      assert.equal(failures.length, 0, `${failures.length} failures (see above); the first:\n${failures[0]}`);
    });
  });
}
