import { Worker } from 'node:worker_threads';
import { siblingModule, typescriptWorkerSource } from '../shared/typescript-worker.js';
import { errors } from '../errors.js';
import type { ExtractionFailure, ExtractionReply, ExtractionRequest } from './pdf-extractor.worker.js';

export interface PdfText {
  /** Text of all pages in order; pages are separated by a blank line. */
  text: string;
  /** Page count of the document, pages without text included. */
  pages: number;
}

export interface ExtractPdfOptions {
  /**
   * Longest a parse may run once a worker has taken it; past it the worker is terminated and the
   * call fails with 422 `parse_timeout`. Time spent waiting for a free worker is not counted; the
   * start of a new worker (under a second) is.
   */
  timeoutMs: number;
}

export interface PdfExtractorOptions {
  /** Parses that run at once, one worker thread each; further calls wait in order. Default 2. */
  maxWorkers?: number;
  /** A worker idle this long is stopped, returning its memory. Default 60 s. */
  idleTimeoutMs?: number;
  /** Heap ceiling of one worker, so a PDF that balloons kills its worker and not the process. Default 1024 MB. */
  maxHeapMb?: number;
}

/** The worker's entry script; pdf-parse is loaded before tsx's hooks (see typescriptWorkerSource). */
const WORKER_BOOTSTRAP = typescriptWorkerSource(siblingModule(import.meta.url, 'pdf-extractor.worker'), ['pdf-parse']);

const FAILURE_MESSAGES: Record<ExtractionFailure, string> = {
  invalid: 'The file is not a valid PDF or is damaged; no text could be extracted.',
  password: 'The PDF is password-protected; upload it without a password.',
  no_text:
    'The PDF has no text layer (for example, it contains only scanned images); upload a PDF with selectable text or the plain text.',
};

interface Job {
  pdf: Uint8Array;
  timeoutMs: number;
  resolve: (result: PdfText) => void;
  reject: (error: Error) => void;
}

/**
 * Extracts the text of PDFs in a small pool of worker threads, so that parsing never blocks the
 * event loop and a parse that runs too long can be stopped by terminating its thread. Workers are
 * kept warm between calls because starting one (tsx plus pdf.js) costs several hundred ms.
 */
export class PdfExtractor {
  readonly #maxWorkers: number;
  readonly #idleTimeoutMs: number;
  readonly #maxHeapMb: number;
  readonly #workers = new Set<Worker>();
  readonly #idle = new Map<Worker, NodeJS.Timeout>();
  readonly #queue: Job[] = [];
  #closed = false;

  constructor(options: PdfExtractorOptions = {}) {
    this.#maxWorkers = options.maxWorkers ?? 2;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    this.#maxHeapMb = options.maxHeapMb ?? 1024;
    if (!Number.isInteger(this.#maxWorkers) || this.#maxWorkers < 1) {
      throw new RangeError('maxWorkers must be a positive integer.');
    }
  }

  /** Worker threads of the pool, busy or idle. */
  get workerCount(): number {
    return this.#workers.size;
  }

  /**
   * The text and page count of a PDF. Rejects with 422 `pdf_extraction_failed` for a damaged,
   * non-PDF or password-protected file and for a PDF without a text layer, and with 422
   * `parse_timeout` when parsing exceeds `timeoutMs`. The caller's bytes are copied, not moved.
   */
  extract(pdf: Uint8Array, options: ExtractPdfOptions): Promise<PdfText> {
    if (this.#closed) return Promise.reject(new Error('The PDF extractor is closed.'));
    return new Promise<PdfText>((resolve, reject) => {
      this.#queue.push({ pdf, timeoutMs: options.timeoutMs, resolve, reject });
      this.#dispatch();
    });
  }

  /** Stops every worker; calls still waiting or running are rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error('The PDF extractor is closed.'));
    await Promise.all([...this.#workers].map((worker) => worker.terminate()));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const worker = this.#takeIdle() ?? (this.#workers.size < this.#maxWorkers ? this.#spawn() : undefined);
      const job = worker && this.#queue.shift();
      if (!worker || !job) return;
      this.#run(worker, job);
    }
  }

  #takeIdle(): Worker | undefined {
    const next = this.#idle.entries().next();
    if (next.done === true) return undefined;
    const [worker, timer] = next.value;
    clearTimeout(timer);
    this.#idle.delete(worker);
    return worker;
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_BOOTSTRAP, {
      eval: true,
      // The parent's flags (tsx's loader among them) would only slow the worker's start.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb },
    });
    this.#workers.add(worker);
    // Failures of a busy worker are handled by its job; this listener keeps an idle worker's
    // failure from becoming an uncaught 'error' event.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      this.#workers.delete(worker);
      clearTimeout(this.#idle.get(worker));
      this.#idle.delete(worker);
    });
    return worker;
  }

  #release(worker: Worker): void {
    worker.unref();
    const timer = setTimeout(() => void worker.terminate(), this.#idleTimeoutMs);
    timer.unref();
    this.#idle.set(worker, timer);
  }

  /** Drops the worker from the pool at once, so that a replacement can start before it has exited. */
  #discard(worker: Worker): void {
    this.#workers.delete(worker);
    void worker.terminate();
  }

  #run(worker: Worker, job: Job): void {
    let settled = false;
    const settle = (keepWorker: boolean, outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (keepWorker && !this.#closed) this.#release(worker);
      else this.#discard(worker);
      outcome();
      this.#dispatch();
    };
    const onMessage = (reply: ExtractionReply): void => {
      settle(true, () =>
        reply.ok
          ? job.resolve({ text: reply.text, pages: reply.pages })
          : job.reject(fileFailure('pdf_extraction_failed', FAILURE_MESSAGES[reply.reason])),
      );
    };
    const onError = (error: Error): void => {
      settle(false, () => job.reject(workerFailure(error)));
    };
    const onExit = (code: number): void => {
      settle(false, () => job.reject(workerFailure(new Error(`The PDF worker stopped (exit code ${code}) before it answered.`))));
    };
    const timer = setTimeout(() => {
      settle(false, () =>
        job.reject(
          fileFailure('parse_timeout', `The PDF could not be parsed within the limit of ${job.timeoutMs} ms.`),
        ),
      );
    }, job.timeoutMs);

    worker.ref();
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    // An exact copy, moved to the worker: the caller keeps its bytes, and a view into a larger
    // buffer does not send the whole buffer along.
    const pdf = new Uint8Array(job.pdf);
    const request: ExtractionRequest = { pdf };
    worker.postMessage(request, [pdf.buffer]);
  }
}

/**
 * A worker that failed while parsing was brought down by its PDF: one that ran out of heap, threw
 * outside the parser's own error handling, or exited. Each is the file's 422, never a 500; the
 * worker's error stays attached as the cause.
 */
function workerFailure(error: Error): Error {
  const message =
    (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? 'The PDF is too complex to process.'
      : 'The PDF could not be processed; it may be damaged.';
  const failure = fileFailure('pdf_extraction_failed', message);
  failure.cause = error;
  return failure;
}

/** The PDF extracted is always an upload's `file` part: its failures name that field. */
function fileFailure(code: string, message: string): Error {
  return errors.unprocessable(code, message, [{ field: 'file', message }]);
}
