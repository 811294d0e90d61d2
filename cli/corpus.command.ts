import fs from 'node:fs/promises';
import path from 'node:path';
import type { Runtime } from '../runtime/runtime.js';
import { fileTypeOfName, textOfFile } from '../core/documents/file-types.js';
import { parseInput } from '../core/shared/input.js';
import { presentCorpus, presentCorpusJob, presentCorpusLoad } from '../core/corpora/corpus.presenter.js';
import {
  type CorpusJobView,
  type CorpusRecordInput,
  corpusRecordSchema,
  createCorpusSchema,
  loadRecordsSchema,
  updateCorpusSchema,
} from '../core/corpora/corpus.schema.js';

/** `lore corpus …`: the operations on platform corpora, over HTTP or directly over the service layer. */
export interface CorpusAdmin {
  create(body: unknown): Promise<unknown>;
  list(): Promise<unknown>;
  get(slug: string): Promise<unknown>;
  update(slug: string, body: unknown): Promise<unknown>;
  delete(slug: string): Promise<void>;
  load(slug: string, records: CorpusRecordInput[]): Promise<{ job_id: string }>;
  jobs(slug: string): Promise<unknown>;
  /** Waits until every one of these jobs is completed or failed, and returns them. */
  wait(slug: string, jobIds: string[]): Promise<CorpusJobView[]>;
}

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

const done = (job: CorpusJobView) => job.status === 'completed' || job.status === 'failed';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Through a running server's internal admin API (its job engine indexes the records). */
export function httpCorpusAdmin(call: Call): CorpusAdmin {
  const at = (slug: string) => `/corpora/${encodeURIComponent(slug)}`;
  return {
    create: (body) => call('POST', '/corpora', body),
    list: () => call('GET', '/corpora'),
    get: (slug) => call('GET', at(slug)),
    update: (slug, body) => call('PATCH', at(slug), body),
    delete: async (slug) => {
      await call('DELETE', at(slug));
    },
    load: async (slug, records) => (await call('POST', `${at(slug)}/records`, { records })) as { job_id: string },
    jobs: (slug) => call('GET', `${at(slug)}/jobs`),
    wait: async (slug, jobIds) => {
      const jobs: CorpusJobView[] = [];
      for (const id of jobIds) {
        for (;;) {
          const job = (await call('GET', `${at(slug)}/jobs/${id}`)) as CorpusJobView;
          if (done(job)) {
            jobs.push(job);
            break;
          }
          await sleep(250);
        }
      }
      return jobs;
    },
  };
}

/** On the database itself (no server runs on it): this process runs the corpus jobs. */
export function directCorpusAdmin(runtime: Pick<Runtime, 'services' | 'engine'>): CorpusAdmin {
  const { corpora } = runtime.services;
  return {
    create: async (body) => presentCorpus(await corpora.create(parseInput(createCorpusSchema, body, 'body'))),
    list: async () => ({ corpora: (await corpora.list()).map(presentCorpus) }),
    get: async (slug) => presentCorpus(await corpora.get(slug)),
    update: async (slug, body) => presentCorpus(await corpora.update(slug, parseInput(updateCorpusSchema, body, 'body'))),
    delete: (slug) => corpora.delete(slug),
    load: async (slug, records) => presentCorpusLoad(await corpora.loadRecords(slug, parseInput(loadRecordsSchema, { records }, 'body'))),
    jobs: async (slug) => ({ jobs: (await corpora.jobs(slug)).map(presentCorpusJob) }),
    wait: async (slug, jobIds) => {
      for (;;) {
        // Jobs whose retry is not yet due are not claimed: wait for them, then run them.
        await runtime.engine.drain(['corpus_ingestion']);
        const jobs = await Promise.all(jobIds.map(async (id) => presentCorpusJob(await corpora.job(slug, id))));
        if (jobs.every(done)) return jobs;
        await sleep(500);
      }
    },
  };
}

/** Records per load request (one job each), and at most this much JSON, well under the server's 40 MB. */
const BATCH_RECORDS = 1000;
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * A folder's file as a record's text: the text files an upload takes (plain text, Markdown and
 * HTML, by their extensions, read as uploads read them); '' for the rest, which are skipped.
 */
async function recordText(file: string): Promise<string> {
  const type = fileTypeOfName(file);
  if (!type || type === 'application/pdf') return '';
  return textOfFile(type, await fs.readFile(file)).replace(/\0/g, '');
}

function invalid(where: string, issues: Array<{ path: PropertyKey[]; message: string }>): Error {
  return new Error(`${where}: ${issues.map((i) => `${i.path.map(String).join('.') || 'record'}: ${i.message}`).join('; ')}`);
}

/**
 * Records from a folder (every text file below it, recursively: `source_record_id` is its path
 * relative to the folder, `metadata` `{path}`) or from a JSONL file (one `{source_record_id, content,
 * metadata?}` object per line). Every record is checked before anything is loaded.
 */
export async function readRecords(source: string): Promise<{ records: CorpusRecordInput[]; skipped: string[] }> {
  const records: CorpusRecordInput[] = [];
  const skipped: string[] = [];
  if ((await fs.stat(source)).isDirectory()) {
    const entries = await fs.readdir(source, { recursive: true, withFileTypes: true });
    const files = entries
      .filter((e) => e.isFile())
      .map((e) => path.relative(source, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .sort();
    for (const file of files) {
      const content = await recordText(path.join(source, file));
      if (!content.trim()) {
        skipped.push(file);
        continue;
      }
      const parsed = corpusRecordSchema.safeParse({ source_record_id: file, content, metadata: { path: file } });
      if (!parsed.success) throw invalid(file, parsed.error.issues);
      records.push(parsed.data);
    }
    return { records, skipped };
  }
  const firstLine = new Map<string, number>();
  const lines = (await fs.readFile(source, 'utf8')).split('\n');
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const where = `line ${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${where}: not a JSON object`);
    }
    const parsed = corpusRecordSchema.safeParse(json);
    if (!parsed.success) throw invalid(where, parsed.error.issues);
    const first = firstLine.get(parsed.data.source_record_id);
    if (first !== undefined) throw new Error(`${where}: source_record_id ${parsed.data.source_record_id} repeats line ${first}`);
    firstLine.set(parsed.data.source_record_id, i + 1);
    records.push(parsed.data);
  }
  return { records, skipped };
}

function batches(records: CorpusRecordInput[]): CorpusRecordInput[][] {
  const out: CorpusRecordInput[][] = [];
  let batch: CorpusRecordInput[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = Buffer.byteLength(JSON.stringify(record), 'utf8');
    if (batch.length && (batch.length >= BATCH_RECORDS || bytes + size > BATCH_BYTES)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(record);
    bytes += size;
  }
  if (batch.length) out.push(batch);
  return out;
}

export type CorpusOptions = Partial<Record<'slug' | 'name' | 'license' | 'requires-dua' | 'plans' | 'dimensions', string>>;

function corpusBody(values: CorpusOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (values.slug !== undefined) body.slug = values.slug;
  if (values.name !== undefined) body.name = values.name;
  if (values.license !== undefined) body.license_info = values.license;
  if (values['requires-dua'] !== undefined) body.requires_dua = values['requires-dua'] === 'true';
  if (values.plans !== undefined) body.plans = values.plans.split(',').filter(Boolean);
  if (values.dimensions !== undefined) body.dimensions = Number(values.dimensions);
  return body;
}

/** Runs `corpus <command> [args]`; `ingest` loads in batches and waits for their jobs. */
export async function runCorpusCommand(admin: CorpusAdmin, command: string, args: string[], values: CorpusOptions): Promise<unknown> {
  const [slug, source] = args;
  if (command === 'create') return admin.create(corpusBody(values));
  if (command === 'list') return admin.list();
  if (!slug) throw new Error(`corpus ${command} needs a corpus slug`);
  switch (command) {
    case 'get':
      return admin.get(slug);
    case 'update':
      return admin.update(slug, corpusBody(values));
    case 'delete':
      await admin.delete(slug);
      return { deleted: slug };
    case 'jobs':
      return admin.jobs(slug);
    case 'ingest': {
      if (!source) throw new Error('corpus ingest needs a folder or a JSONL file');
      const { records, skipped } = await readRecords(source);
      if (!records.length) throw new Error(`${source} holds no records`);
      const jobIds: string[] = [];
      for (const batch of batches(records)) {
        jobIds.push((await admin.load(slug, batch)).job_id);
        console.error(`queued ${batch.length} records (job ${jobIds[jobIds.length - 1]})`);
      }
      const jobs = await admin.wait(slug, jobIds);
      if (jobs.some((j) => j.status === 'failed')) process.exitCode = 1;
      return { corpus: slug, records: records.length, skipped, jobs };
    }
    default:
      throw new Error(`unknown command: corpus ${command}`);
  }
}
