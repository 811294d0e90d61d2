import assert from 'node:assert/strict';
import { PdfExtractor } from '../../core/documents/pdf-extractor.js';
import { AppError } from '../../core/errors.js';
import {
  MULTILINGUAL_PAGES,
  corruptPdf,
  imageOnlyPdf,
  largePdf,
  multilingualPdf,
  notAPdf,
  passwordProtectedPdf,
} from '../support/pdf-fixtures.js';
import { pollUntil } from '../support/poll.js';

const GENEROUS = { timeoutMs: 30_000 };

/** Asserts a 422 with `code` whose message is a plain sentence: no stack frames, no file paths. */
async function assertRejects422(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.status, 422);
    assert.equal(error.code, code);
    assert.doesNotMatch(error.message, /\n|\bat \S+:\d+|node_modules|\.[cm]?[jt]s\b|[/\\]\w+[/\\]/);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe('PdfExtractor', () => {
  let extractor: PdfExtractor;
  let large: Uint8Array;

  before(async () => {
    extractor = new PdfExtractor({ maxWorkers: 2 });
    large = await largePdf(40);
    // A warm worker, so later tests measure parsing and not the start of a thread.
    await extractor.extract(await multilingualPdf(), GENEROUS);
  });

  after(async () => {
    await extractor.close();
  });

  it('extracts the text of every page, pages separated by a blank line, and counts pages', async () => {
    const result = await extractor.extract(await multilingualPdf(), GENEROUS);
    assert.equal(result.pages, 3);
    assert.equal(result.text, MULTILINGUAL_PAGES.map((lines) => lines.join('\n')).join('\n\n'));
  });

  it('leaves the caller’s bytes in place', async () => {
    const pdf = await multilingualPdf();
    const before = Buffer.from(pdf);
    await extractor.extract(pdf, GENEROUS);
    assert.equal(pdf.byteLength, before.byteLength);
    assert.ok(before.equals(pdf));
  });

  it('refuses a damaged PDF with pdf_extraction_failed', async () => {
    await assertRejects422(extractor.extract(await corruptPdf(), GENEROUS), 'pdf_extraction_failed', /not a valid PDF/);
  });

  it('refuses a file that is not a PDF with pdf_extraction_failed', async () => {
    await assertRejects422(extractor.extract(notAPdf(), GENEROUS), 'pdf_extraction_failed', /not a valid PDF/);
  });

  it('refuses a PDF without a text layer with pdf_extraction_failed', async () => {
    await assertRejects422(extractor.extract(await imageOnlyPdf(), GENEROUS), 'pdf_extraction_failed', /no text layer/);
  });

  it('refuses a password-protected PDF with pdf_extraction_failed', async () => {
    await assertRejects422(
      extractor.extract(await passwordProtectedPdf(), GENEROUS),
      'pdf_extraction_failed',
      /password-protected/,
    );
  });

  it('stops a parse that exceeds its time limit with parse_timeout, and keeps serving', async () => {
    await assertRejects422(extractor.extract(large, { timeoutMs: 5 }), 'parse_timeout');
    const result = await extractor.extract(await multilingualPdf(), GENEROUS);
    assert.equal(result.pages, 3);
  });

  it('runs a call queued behind a timed-out one on a fresh worker', async () => {
    const single = new PdfExtractor({ maxWorkers: 1 });
    try {
      const slow = single.extract(large, { timeoutMs: 5 });
      const queued = single.extract(await multilingualPdf(), GENEROUS);
      await assertRejects422(slow, 'parse_timeout');
      assert.equal((await queued).pages, 3);
      assert.equal(single.workerCount, 1);
    } finally {
      await single.close();
    }
  });

  it('keeps the event loop free while a large PDF is parsed', async () => {
    let ticks = 0;
    const interval = setInterval(() => ticks++, 1);
    try {
      const result = await extractor.extract(large, GENEROUS);
      assert.equal(result.pages, 40);
    } finally {
      clearInterval(interval);
    }
    // Parsing this PDF on the main thread fires no timer at all: pdf.js keeps the loop busy with
    // microtasks until it is done. In the worker, timers keep firing while the main thread waits.
    // (Counting ticks, not measuring utilisation, so a loaded machine cannot fail the test.)
    assert.ok(ticks > 10, `only ${ticks} timer ticks during the parse`);
  });

  it('fails a call whose worker runs out of heap with 422, and keeps the process and the other workers serving', async () => {
    const cramped = new PdfExtractor({ maxWorkers: 1, maxHeapMb: 8 });
    try {
      await assertRejects422(cramped.extract(large, GENEROUS), 'pdf_extraction_failed', /too complex/);
      assert.equal(cramped.workerCount, 0);
    } finally {
      await cramped.close();
    }
    assert.equal((await extractor.extract(large, GENEROUS)).pages, 40);
  });

  it('parses several PDFs at once', async () => {
    const pdfs = await Promise.all([multilingualPdf(), multilingualPdf(), multilingualPdf(), multilingualPdf()]);
    const results = await Promise.all(pdfs.map((pdf) => extractor.extract(pdf, GENEROUS)));
    assert.deepEqual(
      results.map((r) => r.pages),
      [3, 3, 3, 3],
    );
    assert.ok(extractor.workerCount <= 2);
  });

  it('stops idle workers after the idle timeout', async () => {
    const shortLived = new PdfExtractor({ idleTimeoutMs: 20 });
    try {
      await shortLived.extract(await multilingualPdf(), GENEROUS);
      await pollUntil('the idle worker to stop', () => shortLived.workerCount === 0, {
        timeoutMs: 5_000,
        intervalMs: 25,
        lastSeen: () => `${shortLived.workerCount} workers`,
      });
      assert.equal(shortLived.workerCount, 0);
      assert.equal((await shortLived.extract(await multilingualPdf(), GENEROUS)).pages, 3);
    } finally {
      await shortLived.close();
    }
  });

  it('refuses calls once closed', async () => {
    const closed = new PdfExtractor();
    await closed.close();
    await assert.rejects(closed.extract(await multilingualPdf(), GENEROUS), /closed/);
  });
});
