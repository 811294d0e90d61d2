import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { RequestContext } from '../context.js';
import type { Database, Queryable } from '../db/database.js';
import type { UploadedFile } from '../documents/document.service.js';
import { AppError, errors } from '../errors.js';
import { ensureInstanceSecret } from '../instance/instance-secret.repository.js';
import { type JobRow, completeJob, findJob } from '../jobs/job.repository.js';
import type { LanguageDetector } from '../ports/language-detector.js';
import type { CallbackOutcome, DomainMetrics } from '../ports/metrics.js';
import { OutboundFailedError, type OutboundHttp, OutboundRefusedError } from '../ports/outbound-http.js';
import { type ReportGenerator, ReportGeneratorError } from '../ports/report-generator.js';
import { type AudioDecoder, AudioDecodeError, type Transcriber, TranscriberError } from '../ports/transcriber.js';
import { type JobControl, NonRetryableError, RetryLaterError, type WorkflowEngine } from '../ports/workflow-engine.js';
import { isUuid } from '../shared/ids.js';
import { type Scope, scopeOf, tenantScope } from '../shared/scope.js';
import { findTenant } from '../tenants/tenant.repository.js';
import type { Addon } from '../tenants/tenant.schema.js';
import { type Language, SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import { insertUsageEvent } from '../usage/usage.repository.js';
import {
  type AddonRequestRow,
  addonInput,
  addonRequestsOfJobs,
  appendSegment,
  dropExpiredResults,
  dropInput,
  endDelivery,
  findAddonRequest,
  insertAddonRequest,
  pendingDelivery,
  recordDeliveryAttempt,
  storeResult,
} from './addon.repository.js';
import { pcmSegment, segmentCount } from './audio-segments.js';
import { type Transcript, reportSchema } from './report.schema.js';
import { open, seal } from './secret-box.js';
import { webhookHeaders } from './webhook-signature.js';

export interface AddonOptions {
  /** Off: every add-on request answers 503 scribe_api_not_available. */
  enabled: boolean;
  maxAudioSeconds: number;
  maxTranscriptChars: number;
  resultTtlHours: number;
  /** Seconds of audio per segment: the unit of a transcription job's progress and resumption. */
  segmentSeconds: number;
  /** Waits before the 2nd, 3rd, ... delivery attempt (seconds); after the last, delivery is given up. */
  retrySchedule: readonly number[];
  /** How long an engine's health is remembered. */
  healthTtlMs: number;
}

/** The delivery schedule of a callback (Standard Webhooks' practice): about a day in all. */
export const DEFAULT_RETRY_SCHEDULE = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

export interface AddonHealth {
  status: 'healthy' | 'unavailable' | 'disabled';
  engine: string | null;
  languages?: readonly Language[];
}

export interface TranscribeInput {
  audio: UploadedFile | undefined;
  language: string | undefined;
  callbackUrl: string | undefined;
  callbackSecret: string | undefined;
}

export interface ReportInput {
  transcript: string;
  callback_url?: string | undefined;
  callback_secret?: string | undefined;
}

/** An add-on job's delivery state, shown with the job. */
export type AddonJob = { job: JobRow; request: AddonRequestRow | undefined };

const CALLBACK_SECRET_NAME = 'callback-secret-key';
const MIN_SECRET_LENGTH = 16;
const MAX_SECRET_LENGTH = 256;

/**
 * The transcription and report add-ons (spec §4): requests are checked and measured before
 * anything is queued, stored with their job in one transaction, run as jobs of the job engine,
 * and their results kept for `resultTtlHours` and delivered to the caller's callback URL, signed
 * the Standard Webhooks way, on a retry schedule of its own.
 */
export class AddonService {
  private readonly health = new Map<Addon, { at: number; healthy: boolean }>();

  constructor(
    private readonly db: Database,
    private readonly engine: WorkflowEngine,
    private readonly decoder: AudioDecoder,
    private readonly transcriber: Transcriber | null,
    private readonly reports: ReportGenerator,
    private readonly detector: LanguageDetector,
    private readonly outbound: OutboundHttp,
    private readonly clock: Clock,
    private readonly metrics: Pick<DomainMetrics, 'callbackDelivered'>,
    private readonly options: AddonOptions,
  ) {}

  // ---------------------------------------------------------------------------------------------
  // Requests

  /** POST /v1/transcribe. */
  async transcribe(ctx: RequestContext, input: TranscribeInput): Promise<{ jobId: string }> {
    await this.admit(ctx, 'transcription');
    const language = this.transcriptionLanguage(input.language);
    const callback = await this.callback(input.callbackUrl, input.callbackSecret);
    if (!input.audio || input.audio.data.length === 0) throw errors.badRequest('missing_audio', 'The audio part is required.');
    if (!this.transcriber || !(await this.healthy('transcription'))) {
      throw errors.unavailable('transcription_unavailable', 'No transcription engine is available now; try again later.');
    }
    let duration: number;
    try {
      duration = (await this.decoder.probe(input.audio.data)).durationSeconds;
    } catch (error) {
      if (error instanceof AudioDecodeError) throw errors.badRequest('invalid_audio', `The audio part could not be decoded: ${error.message}`);
      throw error;
    }
    if (duration > this.options.maxAudioSeconds) {
      throw errors.badRequest('audio_too_long', `The audio is ${Math.ceil(duration)} s long; at most ${this.options.maxAudioSeconds} s are transcribed.`, {
        max_seconds: this.options.maxAudioSeconds,
      });
    }
    const total = Math.max(1, Math.ceil(duration / this.options.segmentSeconds));
    return this.enqueue(ctx, 'transcription', total, {
      language,
      audio: input.audio.data,
      audioSeconds: duration,
      ...callback,
    });
  }

  /** POST /v1/reports/generate. */
  async generateReport(ctx: RequestContext, input: ReportInput): Promise<{ jobId: string }> {
    await this.admit(ctx, 'report_generation');
    if (!input.transcript.trim()) throw errors.badRequest('empty_transcript', 'The transcript is empty.');
    if (input.transcript.length > this.options.maxTranscriptChars) {
      throw errors.badRequest('transcript_too_long', `The transcript has ${input.transcript.length} characters; at most ${this.options.maxTranscriptChars} are accepted.`, {
        max_chars: this.options.maxTranscriptChars,
      });
    }
    const callback = await this.callback(input.callback_url, input.callback_secret);
    if (!(await this.healthy('report_generation'))) {
      throw errors.unavailable('report_generation_unavailable', 'The report engine is not available now; try again later.');
    }
    const language = this.detector.detect(input.transcript).language;
    return this.enqueue(ctx, 'report_generation', 1, { language, transcript: input.transcript, ...callback });
  }

  /** GET /v1/jobs/{id}/result: an add-on job's result while it is kept. */
  async result(scope: Scope, jobId: string): Promise<{ job: JobRow; result: unknown }> {
    const job = isUuid(jobId) ? await findJob(this.db, scope, jobId, ['transcription', 'report_generation']) : undefined;
    const request = job && (await findAddonRequest(this.db, scope, job.id));
    if (!job || !request) throw errors.notFound('job');
    if (job.status !== 'completed') {
      throw new AppError(409, 'result_not_available', `The job is ${job.status}; a result exists once it has completed.`, { status: job.status });
    }
    if (request.result === null || (request.result_expires_at && request.result_expires_at <= this.clock.now())) {
      throw new AppError(410, 'result_expired', `Results are kept for ${this.options.resultTtlHours} hours after the job completes.`);
    }
    return { job, result: request.result };
  }

  /** The add-on requests of jobs, for showing delivery state with them. */
  requestsOf(scope: Scope, jobIds: readonly string[]): Promise<Map<string, AddonRequestRow>> {
    return addonRequestsOfJobs(this.db, scope, jobIds);
  }

  /** GET /v1/addons/health. */
  async status(): Promise<{ transcription: AddonHealth; report_generation: AddonHealth }> {
    const state = async (addon: Addon, engine: string | null): Promise<AddonHealth['status']> =>
      !this.options.enabled || engine === null ? 'disabled' : (await this.healthy(addon)) ? 'healthy' : 'unavailable';
    return {
      transcription: {
        status: await state('transcription', this.transcriber?.id ?? null),
        engine: this.transcriber?.id ?? null,
        languages: this.transcriber?.languages ?? [],
      },
      report_generation: { status: await state('report_generation', this.reports.id), engine: this.reports.id },
    };
  }

  private async admit(ctx: RequestContext, addon: Addon): Promise<void> {
    if (!this.options.enabled) throw errors.unavailable('scribe_api_not_available', 'The transcription and report add-ons are not available on this instance.');
    const tenant = await findTenant(this.db, scopeOf(ctx));
    if (!tenant?.addons.includes(addon)) {
      throw errors.forbidden('addon_not_enabled', `The ${addon.replace('_', ' ')} add-on is not enabled for this account.`, { addon });
    }
  }

  private transcriptionLanguage(value: string | undefined): Language | 'auto' {
    const language = (value ?? 'auto').trim().toLowerCase();
    if (language !== 'auto' && !(SUPPORTED_LANGUAGES as readonly string[]).includes(language)) {
      throw errors.badRequest('unsupported_language', `language must be auto or one of ${SUPPORTED_LANGUAGES.join(', ')}.`);
    }
    const served = this.transcriber?.languages ?? [];
    if (language !== 'auto' && !served.includes(language as Language)) {
      throw errors.badRequest('unsupported_language', `No transcription engine of this instance serves ${language}; it serves ${served.join(', ') || 'no language'}.`);
    }
    return language as Language | 'auto';
  }

  /** Checks a callback URL and secret (both or neither) and seals the secret for storage. */
  private async callback(url: string | undefined, secret: string | undefined): Promise<{ callbackUrl: string | null; sealedSecret: Buffer | null }> {
    if (url === undefined || url === '') {
      if (secret) throw errors.badRequest('invalid_callback_url', 'A callback_secret was given without a callback_url.');
      return { callbackUrl: null, sealedSecret: null };
    }
    try {
      await this.outbound.check(url);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw errors.badRequest('invalid_callback_url', error.message);
      // A resolver that cannot answer now: the address is checked again when the callback is sent.
      if (!(error instanceof OutboundFailedError)) throw error;
    }
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH || secret.length > MAX_SECRET_LENGTH) {
      throw errors.unprocessable('validation_failed', `callback_secret is required with a callback_url: ${MIN_SECRET_LENGTH}-${MAX_SECRET_LENGTH} characters.`, [
        { field: 'callback_secret', message: `required with callback_url, ${MIN_SECRET_LENGTH}-${MAX_SECRET_LENGTH} characters` },
      ]);
    }
    return { callbackUrl: url, sealedSecret: seal(await this.secretKey(), secret) };
  }

  private async enqueue(
    ctx: RequestContext,
    addon: Addon,
    totalChunks: number,
    request: { language: string | null; audio?: Buffer; audioSeconds?: number; transcript?: string; callbackUrl: string | null; sealedSecret: Buffer | null },
  ): Promise<{ jobId: string }> {
    const scope = scopeOf(ctx);
    const jobId = await this.db.transaction(async (tx) => {
      const id = await this.engine.enqueue(tx, { type: addon, tenantId: scope.tenantId, subTenantId: scope.subTenantId, totalChunks });
      await insertAddonRequest(tx, scope, { jobId: id!, addon, ...request });
      return id!;
    });
    this.engine.notify();
    return { jobId };
  }

  private async healthy(addon: Addon): Promise<boolean> {
    const cached = this.health.get(addon);
    const now = this.clock.now().getTime();
    if (cached && now - cached.at < this.options.healthTtlMs) return cached.healthy;
    const healthy =
      addon === 'transcription'
        ? this.transcriber !== null && (await this.decoder.healthy()) && (await this.transcriber.healthy())
        : await this.reports.healthy();
    this.health.set(addon, { at: now, healthy });
    return healthy;
  }

  private secretKey(): Promise<Buffer> {
    return ensureInstanceSecret(this.db, CALLBACK_SECRET_NAME, randomBytes(32));
  }

  // ---------------------------------------------------------------------------------------------
  // Activities (jobs carry their tenant; their scope is the job's)

  /**
   * Transcribes a job's audio segment by segment (`total_chunks` segments of `segmentSeconds`),
   * recording each as it is done, so a retried job resumes after the last recorded segment.
   */
  async runTranscription(job: JobRow, control: JobControl): Promise<void> {
    const scope = jobScope(job);
    const request = await findAddonRequest(this.db, scope, job.id);
    const input = await addonInput(this.db, scope, job.id);
    if (!request || !input?.audio || !this.transcriber) throw new NonRetryableError('The job has no audio to transcribe.');
    const transcriber = this.transcriber;
    let pcm: Buffer;
    try {
      pcm = await this.decoder.decode(input.audio, control.signal);
    } catch (error) {
      if (error instanceof AudioDecodeError) throw new NonRetryableError('The audio could not be decoded.');
      throw error;
    }
    const total = segmentCount(pcm.length, this.options.segmentSeconds);
    const segments = [...request.segments];
    await control.heartbeat({ totalChunks: total, processedChunks: segments.length });
    const asked = (request.language ?? 'auto') as Language | 'auto';
    // An engine that serves one language and cannot tell languages apart hears `auto` as that one.
    const language = asked === 'auto' && !transcriber.detectsLanguage && transcriber.languages.length === 1 ? transcriber.languages[0]! : asked;
    for (let index = segments.length; index < total; index++) {
      const segment = pcmSegment(pcm, index, this.options.segmentSeconds);
      let text: string;
      try {
        text = await transcriber.transcribe(segment, language, control.signal);
      } catch (error) {
        if (error instanceof TranscriberError && error.code !== 'unavailable') throw new NonRetryableError(error.message);
        throw error;
      }
      const done = { start_seconds: segment.startSeconds, end_seconds: segment.startSeconds + segment.durationSeconds, text };
      await appendSegment(this.db, scope, job.id, done);
      segments.push(done);
      await control.heartbeat({ processedChunks: segments.length });
    }
    const text = segments.map((s) => s.text).filter(Boolean).join(' ');
    const resultLanguage = language === 'auto' ? (this.detector.detect(text).language ?? null) : language;
    const transcript: Transcript = {
      language: resultLanguage,
      text,
      duration_seconds: request.audio_seconds ?? pcm.length / 32_000,
      segments,
    };
    await this.complete(job, control, transcript, resultLanguage, {
      tenantId: scope.tenantId,
      subTenantId: job.sub_tenant_id,
      type: 'transcription',
      quantity: 1,
      costMicrocents: 0,
      audioSeconds: transcript.duration_seconds,
      outputChars: text.length,
    });
  }

  /** Writes a job's report (one unit of progress: `total_chunks` is 1). */
  async runReport(job: JobRow, control: JobControl): Promise<void> {
    const scope = jobScope(job);
    const request = await findAddonRequest(this.db, scope, job.id);
    const input = await addonInput(this.db, scope, job.id);
    if (!request || input?.transcript == null) throw new NonRetryableError('The job has no transcript.');
    const language = (request.language as Language | null) ?? null;
    let generated;
    try {
      generated = await this.reports.generate(input.transcript, language, control.signal);
    } catch (error) {
      if (error instanceof ReportGeneratorError && error.code !== 'unavailable') throw new NonRetryableError(error.message);
      throw error;
    }
    const report = reportSchema.safeParse(generated.report);
    if (!report.success) throw new NonRetryableError('The report engine produced a report that does not match the report schema.');
    await this.complete(job, control, report.data, language, {
      tenantId: scope.tenantId,
      subTenantId: job.sub_tenant_id,
      type: 'report_generation',
      quantity: 1,
      costMicrocents: 0,
      inputTokens: generated.inputTokens,
      outputTokens: generated.outputTokens,
      inputChars: input.transcript.length,
    });
  }

  /** Stores the result, meters the job, completes it and queues its callback, in one transaction. */
  private async complete(job: JobRow, control: JobControl, result: unknown, language: string | null, usage: Parameters<typeof insertUsageEvent>[1]): Promise<void> {
    const scope = jobScope(job);
    const expiresAt = new Date(this.clock.now().getTime() + this.options.resultTtlHours * 3600_000);
    await this.db.transaction(async (tx) => {
      if (!(await completeJob(tx, job.id, control.owner))) return;
      await storeResult(tx, scope, job.id, result, expiresAt, language);
      await insertUsageEvent(tx, usage);
      await this.queueDelivery(tx, job);
    });
    this.engine.notify();
    await dropExpiredResults(this.db);
  }

  /** A job that failed for good: its input goes, and its caller is told. */
  async jobFailed(tx: Queryable, job: JobRow): Promise<void> {
    await dropInput(tx, jobScope(job), job.id);
    await this.queueDelivery(tx, job);
  }

  private async queueDelivery(tx: Queryable, job: JobRow): Promise<void> {
    const request = await findAddonRequest(tx, jobScope(job), job.id);
    if (request?.delivery_status !== 'pending') return;
    await this.engine.enqueue(tx, {
      type: 'callback_delivery',
      tenantId: job.tenant_id,
      subTenantId: job.sub_tenant_id,
      payload: { job_id: job.id },
      maxAttempts: this.options.retrySchedule.length + 1,
      dedupeKey: `callback:${job.id}`,
    });
  }

  /** A delivery job that failed for good without an answer to record: its delivery ends as failed. */
  async deliveryFailed(tx: Queryable, job: JobRow, error: string): Promise<void> {
    const targetId = (job.payload as { job_id?: unknown }).job_id;
    if (typeof targetId === 'string' && isUuid(targetId)) await endDelivery(tx, jobScope(job), targetId, error);
  }

  /**
   * One delivery attempt of a job's callback. 2xx delivers; a network error, a timeout, 408, 429 or
   * 5xx is tried again after the schedule's next wait (with jitter), until the schedule ends; any
   * other answer (redirects included: they are not followed) or a refused address ends delivery.
   * The job's own result is never changed by its delivery.
   */
  async deliverCallback(job: JobRow, control: JobControl): Promise<void> {
    const scope = jobScope(job);
    const targetId = (job.payload as { job_id?: unknown }).job_id;
    const target = typeof targetId === 'string' && isUuid(targetId) ? await findJob(this.db, scope, targetId, ['transcription', 'report_generation']) : undefined;
    const delivery = target && (await pendingDelivery(this.db, scope, target.id));
    if (!target || !delivery) {
      await completeJob(this.db, job.id, control.owner);
      return;
    }
    const body = JSON.stringify({
      job_id: target.id,
      job_type: target.job_type,
      status: target.status,
      ...(target.status === 'completed' ? { result: delivery.result } : { error: target.error ?? 'The job failed.' }),
      created_at: target.created_at.toISOString(),
      completed_at: target.completed_at?.toISOString() ?? null,
    });
    let secret: string;
    try {
      secret = open(await this.secretKey(), delivery.callback_secret);
    } catch {
      // A secret that does not open (the instance's key changed) never will: no attempt can be signed.
      throw new NonRetryableError('The callback secret could not be decrypted with this instance\'s key.');
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Lore-Webhooks/1',
      ...webhookHeaders(secret, `msg_${target.id}`, Math.floor(this.clock.now().getTime() / 1000), body),
    };
    const attempt = delivery.delivery_attempts + 1;
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let retryable = false;
    let refused = false;
    try {
      statusCode = await this.outbound.post(delivery.callback_url, headers, body);
      retryable = statusCode === 408 || statusCode === 429 || statusCode >= 500;
      if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}${statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}`;
    } catch (e) {
      if (e instanceof OutboundRefusedError) {
        error = e.message;
        refused = true;
      } else if (e instanceof OutboundFailedError) {
        error = e.message;
        retryable = true;
      } else throw e;
    }
    const wait = this.options.retrySchedule[attempt - 1];
    const outcome = error === null ? 'delivered' : retryable && wait !== undefined ? 'pending' : 'failed';
    const duration = performance.now() - started;
    await this.db.transaction(async (tx) => {
      await recordDeliveryAttempt(tx, scope, target.id, { attempt, statusCode, error, durationMs: Math.round(duration), outcome });
      if (outcome !== 'pending') await completeJob(tx, job.id, control.owner);
    });
    const reported: CallbackOutcome = refused ? 'blocked' : outcome === 'pending' ? 'retry' : outcome;
    this.metrics.callbackDelivered(reported, duration / 1000);
    if (outcome === 'pending') {
      // ±20 % jitter, so many receivers that failed together are not retried together.
      throw new RetryLaterError(`Callback delivery failed (${error}); retrying.`, wait! * (0.8 + Math.random() * 0.4));
    }
  }
}

function jobScope(job: JobRow): Scope {
  return { ...tenantScope(job.tenant_id!), subTenantId: job.sub_tenant_id };
}
