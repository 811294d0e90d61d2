import type { JobType } from '../jobs/job.schema.js';
import type { SearchOptions } from '../search/search.service.js';
import type { TranslationEngineName, TranslatorErrorCode } from './translator.js';

/** Where ingested chunks came from: a document's text (JSON), an uploaded file, or a platform corpus load. */
export type IngestionSource = 'text' | 'upload' | 'corpus';

/** How one attempt of a job ended (the shared attempt runner's outcomes). */
export type JobAttemptOutcome = 'completed' | 'failed' | 'retry' | 'lease_lost';

/** The limit that refused a request with 429. */
export type RateLimitScope =
  /** Requests per second from one client address, across all endpoints. */
  | 'ip'
  /** Requests per second of one API key (or OAuth client, or portal session) on the query endpoints. */
  | 'key_query'
  /** The same on the document endpoints. */
  | 'key_documents'
  /** The tenant's queries per minute (its plan's). */
  | 'tenant_query'
  /** A sub-tenant's own queries per minute. */
  | 'sub_tenant_query'
  /** An end user's (X-User-Id) queries per minute. */
  | 'user_query'
  /** Failed OAuth client authentication, per client and address. */
  | 'oauth_authentication'
  /** Failed portal sign-ins, per e-mail address and client address. */
  | 'portal_sign_in'
  /** Portal password-reset requests per client address. */
  | 'portal_password_reset'
  /** Portal invitations per inviting person and per tenant. */
  | 'portal_invitation'
  /** Open MCP SSE sessions per OAuth client. */
  | 'mcp_sse_sessions';

/** How one attempt to deliver an add-on callback ended. */
export type CallbackOutcome =
  | 'delivered'
  /** Given up: an answer that is not worth another try, or the schedule is over. */
  | 'failed'
  /** Refused before connecting: the URL or the address it resolves to is not permitted (SSRF guard). */
  | 'blocked'
  /** Failed in a way worth another try; it is tried again after the schedule's next wait. */
  | 'retry';

/**
 * What the domain reports to monitoring, recorded where it happens (search, ingestion, the job
 * runner, rate limits, translation, callbacks). Every label is a small fixed set: never a tenant,
 * knowledge base, document or user id. Each process wires one implementation into its registry;
 * where nothing is scraped (the CLI, benchmarks) `noDomainMetrics` stands in.
 */
export interface DomainMetrics {
  /** A query answered: retrieval (every search leg, translations included) took `seconds`; `translated` when a translated leg ran. */
  queryServed(mode: SearchOptions['mode'], translated: boolean, seconds: number): void;
  /** Chunks written to the index. */
  chunksIngested(source: IngestionSource, count: number): void;
  /** One attempt of a job, of either engine. */
  jobAttempted(type: JobType, outcome: JobAttemptOutcome, seconds: number): void;
  /** A job finished for good: `seconds` from its first attempt's start, across every attempt and wait. */
  jobFinished(type: JobType, outcome: 'completed' | 'failed', seconds: number): void;
  /** A request refused with 429 by `scope`'s limit. */
  rateLimited(scope: RateLimitScope): void;
  /** One translation call to an engine; `failure` when it failed. */
  translated(engine: TranslationEngineName, seconds: number, failure?: TranslatorErrorCode): void;
  /** One delivery attempt of an add-on callback. */
  callbackDelivered(outcome: CallbackOutcome, seconds: number): void;
}

/** Reports nothing: for the CLI, benchmarks, and parts built without a process's registry. */
export const noDomainMetrics: DomainMetrics = {
  queryServed: () => undefined,
  chunksIngested: () => undefined,
  jobAttempted: () => undefined,
  jobFinished: () => undefined,
  rateLimited: () => undefined,
  translated: () => undefined,
  callbackDelivered: () => undefined,
};
