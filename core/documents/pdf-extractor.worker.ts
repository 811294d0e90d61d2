/**
 * Worker thread of the PDF extractor (`pdf-extractor.ts`): parses one PDF per message with pdf.js
 * (through pdf-parse) and answers with its text or the reason it has none. It runs off the request
 * thread so that a slow or hostile PDF can be stopped by terminating the thread.
 */
import { parentPort } from 'node:worker_threads';
import { PasswordException, PDFParse } from 'pdf-parse';

export interface ExtractionRequest {
  pdf: Uint8Array;
}

/** Why a PDF yielded no text; the parent turns each into a fixed, user-facing message. */
export type ExtractionFailure = 'invalid' | 'password' | 'no_text';

export type ExtractionReply =
  | { ok: true; text: string; pages: number }
  | { ok: false; reason: ExtractionFailure };

const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;

function cleanPage(text: string): string {
  // Control characters other than tab and newline are glyph-mapping noise, and Postgres text
  // columns refuse NUL outright.
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\p{Cc}/gu, (c) => (c === '\n' || c === '\t' ? c : ''))
    .trim();
}

async function extract(pdf: Uint8Array): Promise<ExtractionReply> {
  const parser = new PDFParse({
    data: pdf,
    // pdf.js compiles some PDF functions with `new Function`; never for untrusted input.
    isEvalSupported: false,
    verbosity: 0,
  });
  try {
    const result = await parser.getText();
    const text = result.pages
      .map((page) => cleanPage(page.text))
      .filter((page) => page !== '')
      .join('\n\n');
    if (!HAS_WORD_CHARACTER.test(text)) return { ok: false, reason: 'no_text' };
    return { ok: true, text, pages: result.total };
  } catch (error) {
    return { ok: false, reason: error instanceof PasswordException ? 'password' : 'invalid' };
  } finally {
    await parser.destroy();
  }
}

const port = parentPort;
if (port === null) throw new Error('pdf-extractor.worker.ts must run in a worker thread.');
port.on('message', (request: ExtractionRequest) => {
  void extract(request.pdf).then((reply) => port.postMessage(reply));
});
