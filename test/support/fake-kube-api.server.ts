/**
 * A FAKE of the Kubernetes API server, for tests only (no cluster can run here). It is a real HTTP
 * server on an ephemeral port of 127.0.0.1, in memory and in-process, that speaks the JSON wire format
 * of the API server closely enough for the real `@kubernetes/client-node` (1.4.0) clients to run
 * against it unchanged: `CustomObjectsApi`, `CoreV1Api`, `CoordinationV1Api`, `EventsV1Api`,
 * `KubernetesObjectApi`, `Watch` and `makeInformer`/`ListWatch`. Start it with `startFakeKubeApi()`
 * and give the code under test `api.kubeConfig()`.
 *
 * Served (all namespaced; any namespace exists):
 * - custom resources, by default `lore.dev/v1alpha1` `tenants` (Tenant) and `subtenants` (SubTenant),
 *   with a `/status` subresource (option `customKinds`);
 * - core `v1` `secrets` and `events`, `events.k8s.io/v1` `events`, `coordination.k8s.io/v1` `leases`;
 * - discovery of each group version (`GET /api/v1`, `GET /apis/{group}/{version}`).
 *
 * Verbs and semantics, as the real server has them:
 * - list (namespaced and across namespaces) with `labelSelector` (`a=b`, `a==b`, `a!=b`, `a`, `!a`,
 *   `a in (x,y)`, `a notin (x)`), `fieldSelector` (`metadata.name`, `metadata.namespace` and the type's
 *   own field labels, `=`/`==`/`!=`), `limit`/`continue`, and the list's `metadata.resourceVersion`;
 * - get, create (201; 409 AlreadyExists; `generateName`; 500 when a `resourceVersion` is set, as the
 *   real storage answers), replace (PUT; 409 Conflict on a stale `resourceVersion`; a custom resource
 *   needs one at all, else 422), patch (`application/merge-patch+json`, `application/json-patch+json`
 *   with add/remove/replace/move/copy/test, a failing op 422; `application/strategic-merge-patch+json` is
 *   applied as a merge patch for built-in kinds and refused 415 for custom resources, which do not
 *   support it), delete (the object while finalizers hold it, else a `Success` Status);
 * - server-kept metadata: `uid`, `creationTimestamp`, one global `resourceVersion` bumped on every
 *   write, `generation` for custom resources (1 at creation, +1 when anything but `metadata` and, with
 *   the status subresource, `status` changes), `namespace` from the path; a write that changes nothing
 *   writes nothing (no new resourceVersion, no watch event), as etcd's guaranteed update does;
 * - status subresource: writes to `/status` change `.status` only, writes to the resource itself keep the
 *   stored `.status` (creation drops it); both honour the resourceVersion rule;
 * - finalizers: DELETE of an object with finalizers sets `deletionTimestamp` (once) and answers the
 *   object; the write that empties its finalizers removes it; adding a finalizer meanwhile is 422;
 *   finalizer names must be qualified (`domain/name`) unless standard;
 * - garbage collection by `ownerReferences`, synchronous, within the namespace: when an object is
 *   removed, each dependent with no other live owner is deleted (recursively, honouring its finalizers),
 *   one with another live owner only loses the dangling references; `propagationPolicy` Orphan strips
 *   the references instead, Foreground deletes the dependents before the owner (option
 *   `garbageCollection: false` turns all of this off);
 * - watch (`watch=true` or `1`) on any collection path: without `resourceVersion` or with `0`, synthetic
 *   ADDED events for what exists, then live events; with `resourceVersion=N`, the events after N from a
 *   history of `historyLimit` events, or, when N is older than the history (see `compactHistory()`), one
 *   ERROR event carrying a 410 `Expired` Status and the end of the stream; selectors apply, an object
 *   that stops (starts) matching is DELETED (ADDED); `allowWatchBookmarks=true` gets a BOOKMARK every
 *   `bookmarkIntervalMs` (off by default) and when the watch ends normally (`timeoutSeconds`,
 *   `expireWatches()`); headers are flushed at once, as the client's Watch needs;
 * - errors are `Status` objects with the real reasons, messages and details (NotFound, AlreadyExists,
 *   Conflict, Invalid, BadRequest, MethodNotAllowed, UnsupportedMediaType, Unauthorized, Expired);
 * - type checks that decide whether a real request passes: a Secret's `data` must be base64 and its
 *   `stringData` is merged into `data` and never stored; MicroTime fields (`Lease.spec.acquireTime` and
 *   `renewTime`, an Event's `eventTime` and `series.lastObservedTime`) must have exactly six
 *   fractional-second digits, else 400 (a plain `Date` sends three: use the client's `V1MicroTime`); an
 *   events.k8s.io Event needs `eventTime`, `reportingController`, `reportingInstance`, `action`, `reason`
 *   and a `type` of Normal or Warning; a core Event's `involvedObject.namespace` must match its own;
 *   names must be DNS subdomains; owner references need apiVersion, kind, name and uid;
 * - every request needs `Authorization: Bearer <token>` (401 otherwise), as `kubeConfig()` sends.
 *
 * Not implemented: admission (no webhooks, no defaulting beyond a Secret's `type`), OpenAPI/CRD schema validation and pruning,
 * CEL rules, RBAC, server-side apply (`application/apply-patch+yaml` is 415), strategic merge patch
 * list semantics, `managedFields`, `dryRun` (400), deletecollection (405), namespaces as objects,
 * cluster-scoped kinds, `sendInitialEvents` (400), events shared between the two Event APIs (each has
 * its own store), event TTL, immutable Secrets, the ordering and grace periods of a real garbage
 * collector, protobuf and YAML bodies, and consistent snapshots across `continue` pages.
 *
 * Test controls on the handle: read the store (`get`, `list`), write as someone else (`put`, `remove`),
 * inject failures (`failNext`), end watches (`expireWatches`), forget history (`compactHistory`), and
 * inspect the requests received (`requests`, `writes()`, `resetRequests()`, `openWatches()`).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../core/clock.js';

export interface FakeOwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface FakeObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: FakeOwnerReference[];
  [field: string]: unknown;
}

/** A Kubernetes object as JSON. */
export interface FakeKubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: FakeObjectMeta;
  [field: string]: unknown;
}

/** A namespaced custom resource the fake serves, as its CustomResourceDefinition names it. */
export interface FakeCustomKind {
  group: string;
  version: string;
  plural: string;
  kind: string;
  /** Whether the CRD enables the status subresource (default true). */
  statusSubresource?: boolean;
}

export const LORE_CUSTOM_KINDS: readonly FakeCustomKind[] = [
  { group: 'lore.dev', version: 'v1alpha1', plural: 'tenants', kind: 'Tenant' },
  { group: 'lore.dev', version: 'v1alpha1', plural: 'subtenants', kind: 'SubTenant' },
];

export interface FakeKubeApiOptions {
  /** The custom resources served (default `LORE_CUSTOM_KINDS`). */
  customKinds?: readonly FakeCustomKind[];
  /** Delete dependents by `ownerReferences` when their owner goes (default true). */
  garbageCollection?: boolean;
  /** How many write events are kept for watches resuming from a resourceVersion (default 1000). */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them; 0 (default) sends one only when a watch ends normally. */
  bookmarkIntervalMs?: number;
  /** The bearer token every request must carry (default `fake-kube-api-token`). */
  token?: string;
  /** Where `creationTimestamp` and `deletionTimestamp` come from (default the system clock). */
  clock?: Clock;
}

export interface FakeKubeRequest {
  method: string;
  /** The path without its query string. */
  path: string;
  query: Record<string, string>;
  contentType?: string;
  /** The parsed JSON body, when there was one. */
  body?: unknown;
}

/** A failure to answer instead of serving matching requests (which then have no effect). */
export interface FakeKubeFailure {
  /** Only requests with this method (any when absent). */
  method?: string;
  /** Only requests whose path with its query string contains this (any when absent), e.g. `/status` or `watch=true`. */
  pathIncludes?: string;
  /** The HTTP status, e.g. 409 or 500. */
  status: number;
  /** How many matching requests fail (default 1). */
  times?: number;
  /** The Status message (default names the injection). */
  message?: string;
}

export type FakeRemoveOutcome = 'removed' | 'terminating' | 'absent';

export interface FakeKubeApi {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The bearer token requests must carry. */
  token: string;
  /** A KubeConfig for this server (cluster `fake-kube-api`, skipTLSVerify, a token user), default namespace `default`. */
  kubeConfig(): KubeConfig;
  /** A deep copy of a stored object (`group` '' for the core group), or undefined. */
  get(group: string, version: string, plural: string, namespace: string, name: string): FakeKubeObject | undefined;
  /** Deep copies of the stored objects of a kind, in one namespace or all, sorted by namespace and name. */
  list(group: string, version: string, plural: string, namespace?: string): FakeKubeObject[];
  /**
   * Writes an object as another client would, without preconditions (its `apiVersion` and `kind` pick the
   * resource): creates it, or replaces it whole, status included. Bumps the resourceVersion (and a custom
   * resource's generation when its content changes), emits the watch event, removes an object whose
   * finalizers it empties while it is being deleted. Returns what is stored; throws the Status errors a
   * request would get.
   */
  put(object: FakeKubeObject): FakeKubeObject;
  /** Deletes as a DELETE request would (finalizers, garbage collection). */
  remove(group: string, version: string, plural: string, namespace: string, name: string, propagationPolicy?: 'Background' | 'Foreground' | 'Orphan'): FakeRemoveOutcome;
  /** The current (last written) resourceVersion. */
  resourceVersion(): string;
  /** Answers the next matching request(s) with a Status of this code instead of serving them. */
  failNext(failure: FakeKubeFailure): void;
  /** Ends every open watch now, as a server-side timeout does (a BOOKMARK first where allowed). */
  expireWatches(): void;
  /** Forgets the event history, so a watch from any older resourceVersion gets 410 Expired. */
  compactHistory(): void;
  /** Every request received, in order, including refused ones. */
  requests: FakeKubeRequest[];
  /** The requests other than GET. */
  writes(): FakeKubeRequest[];
  resetRequests(): void;
  /** How many watch streams are open. */
  openWatches(): number;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** An object as stored: the server has filled in its identity. */
interface Stored extends FakeKubeObject {
  apiVersion: string;
  kind: string;
  metadata: FakeObjectMeta & { name: string; namespace: string; uid: string; resourceVersion: string };
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';
type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

const DEFAULT_TOKEN = 'fake-kube-api-token';
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
const GENERATE_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const clone = <T>(value: T): T => structuredClone(value);

// ---------------------------------------------------------------------------------------------
// Status errors
// ---------------------------------------------------------------------------------------------

interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

/** An error the fake answers with, as a Kubernetes `Status`. */
export class FakeKubeStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Json,
  ) {
    super(message);
    this.name = 'FakeKubeStatusError';
  }

  status(): Json {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, ...(this.details ? { details: this.details } : {}), code: this.code };
  }
}

/** A field error of the real validation, e.g. `metadata.name: Required value: …`. */
interface FieldError {
  reason: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueForbidden';
  field: string;
  text: string;
}

const required = (field: string, detail = ''): FieldError => ({ reason: 'FieldValueRequired', field, text: `Required value${detail ? `: ${detail}` : ''}` });
const invalidValue = (field: string, value: unknown, detail: string): FieldError => ({ reason: 'FieldValueInvalid', field, text: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const forbidden = (field: string, detail: string): FieldError => ({ reason: 'FieldValueForbidden', field, text: `Forbidden: ${detail}` });

const badRequest = (message: string) => new FakeKubeStatusError(400, 'BadRequest', message);
const unsupported = (what: string) => badRequest(`${what} is not supported by the fake Kubernetes API server (test/support/fake-kube-api.server.ts)`);
const noSuchResource = () => new FakeKubeStatusError(404, 'NotFound', 'the server could not find the requested resource', {});
const methodNotAllowed = () => new FakeKubeStatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});

// ---------------------------------------------------------------------------------------------
// Resource types
// ---------------------------------------------------------------------------------------------

interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  /** `group/version`, or `v1` for the core group. */
  apiVersion: string;
  /** Custom resource strategy: kind required, generation kept, no unconditional update, no strategic merge patch. */
  custom: boolean;
  statusSubresource: boolean;
  /** fieldSelector labels beyond metadata.name and metadata.namespace, with the path each reads. */
  fieldLabels: Readonly<Record<string, string>>;
  /** The decoding rules of the type (a 400, as the real decoder): may normalise the object. */
  decode?(object: Stored, type: ResourceType): void;
  /** The type's validation (422 field errors). */
  validate?(object: Stored): FieldError[];
}

/** `tenants.lore.dev`, `secrets`: how the real server names a resource in its messages. */
const qualifiedResource = (type: ResourceType) => (type.group ? `${type.plural}.${type.group}` : type.plural);
const qualifiedKind = (type: ResourceType) => (type.group ? `${type.kind}.${type.group}` : type.kind);
const groupDetail = (type: ResourceType) => (type.group ? { group: type.group } : {});

const notFound = (type: ResourceType, name: string) =>
  new FakeKubeStatusError(404, 'NotFound', `${qualifiedResource(type)} "${name}" not found`, { name, ...groupDetail(type), kind: type.plural });
const alreadyExists = (type: ResourceType, name: string) =>
  new FakeKubeStatusError(409, 'AlreadyExists', `${qualifiedResource(type)} "${name}" already exists`, { name, ...groupDetail(type), kind: type.plural });
const conflict = (type: ResourceType, name: string, detail = 'the object has been modified; please apply your changes to the latest version and try again') =>
  new FakeKubeStatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${detail}`, { name, ...groupDetail(type), kind: type.plural });
const cannotDecode = (type: ResourceType, detail: string) =>
  badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${detail}`);

function invalid(type: ResourceType, name: string, errors: FieldError[]): FakeKubeStatusError {
  const lines = errors.map((e) => `${e.field}: ${e.text}`);
  const summary = lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
  return new FakeKubeStatusError(422, 'Invalid', `${qualifiedKind(type)} "${name}" is invalid: ${summary}`, {
    name,
    ...groupDetail(type),
    kind: type.kind,
    causes: errors.map((e) => ({ reason: e.reason, message: e.text, field: e.field }) satisfies StatusCause),
  });
}

/** The value at a dotted path, or undefined. */
function at(object: unknown, path: string): unknown {
  let value = object;
  for (const key of path.split('.')) value = isObject(value) ? value[key] : undefined;
  return value;
}

const text = (object: unknown, path: string): string => {
  const value = at(object, path);
  return typeof value === 'string' ? value : '';
};

/** MicroTime fields are parsed with a fixed six-digit layout by the real server: anything else is a 400. */
function decodeMicroTimes(object: Stored, type: ResourceType, paths: readonly string[]): void {
  for (const path of paths) {
    const value = at(object, path);
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !MICRO_TIME.test(value)) {
      throw cannotDecode(type, `${path}: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": a MicroTime needs exactly six fractional-second digits`);
    }
  }
}

function decodeSecret(secret: Stored, type: ResourceType): void {
  const data = secret.data ?? {};
  if (!isObject(data)) throw cannotDecode(type, 'data: expected a map of base64 strings');
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'string' || !BASE64.test(value) || value.length % 4 !== 0) throw cannotDecode(type, `data[${key}]: illegal base64 data`);
  }
  if (secret.stringData !== undefined && secret.stringData !== null) {
    if (!isObject(secret.stringData)) throw cannotDecode(type, 'stringData: expected a map of strings');
    for (const [key, value] of Object.entries(secret.stringData)) {
      if (typeof value !== 'string') throw cannotDecode(type, `stringData[${key}]: expected a string`);
      data[key] = Buffer.from(value, 'utf8').toString('base64');
    }
  }
  // stringData is write-only: the real server folds it into data and never stores it.
  delete secret.stringData;
  if (Object.keys(data).length) secret.data = data;
  else delete secret.data;
  secret.type ??= 'Opaque';
}

function validateSecret(secret: Stored): FieldError[] {
  return Object.keys(isObject(secret.data) ? secret.data : {})
    .filter((key) => !SECRET_KEY.test(key))
    .map((key) => invalidValue(`data[${key}]`, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"));
}

function validateLease(lease: Stored): FieldError[] {
  const errors: FieldError[] = [];
  const duration = at(lease, 'spec.leaseDurationSeconds');
  if (typeof duration === 'number' && duration <= 0) errors.push(invalidValue('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = at(lease, 'spec.leaseTransitions');
  if (typeof transitions === 'number' && transitions < 0) errors.push(invalidValue('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  return errors;
}

/** An Event's fields under their names in the API version it came through. */
interface EventFields {
  involvedObject: string;
  reportingController: string;
  message: string;
}

/**
 * The real server's Event validation. Core v1 keeps the legacy rules (only the namespace check, unless
 * `eventTime` is set, which brings the reporting fields in); events.k8s.io/v1 requires `eventTime` and a
 * type as well. Field paths are the internal ones, as in the real messages.
 */
function validateEvent(event: Stored, fields: EventFields, strict: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata.namespace;
  const involvedNamespace = text(event, `${fields.involvedObject}.namespace`);
  const hasEventTime = typeof event.eventTime === 'string';
  const namespaceMismatch = hasEventTime
    ? !involvedNamespace && namespace !== 'default' && namespace !== 'kube-system'
    : involvedNamespace
      ? involvedNamespace !== namespace
      : namespace !== 'default';
  if (namespaceMismatch) errors.push(invalidValue('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  if (hasEventTime) {
    if (!text(event, fields.reportingController)) errors.push(required(fields.reportingController));
    else if (!QUALIFIED_NAME.test(text(event, fields.reportingController).split('/').pop() ?? '')) {
      errors.push(invalidValue(fields.reportingController, text(event, fields.reportingController), 'must be a qualified name'));
    }
    for (const [field, limit] of [['reportingInstance', 128], ['action', 128], ['reason', 128]] as const) {
      const value = text(event, field);
      if (!value) errors.push(required(field));
      else if (value.length > limit) errors.push(invalidValue(field, '', `can have at most ${limit} characters`));
    }
    if (text(event, fields.message).length > 1024) errors.push(invalidValue('message', '', 'can have at most 1024 characters'));
  }
  if (strict) {
    if (!hasEventTime) errors.push(required('eventTime'));
    const type = text(event, 'type');
    if (type !== 'Normal' && type !== 'Warning') errors.push(invalidValue('type', '', `has invalid value: ${type}`));
    for (const field of ['deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount', 'deprecatedSource']) {
      if (event[field] !== undefined && event[field] !== null) errors.push(invalidValue(field, '', 'needs to be unset'));
    }
  }
  return errors;
}

const EVENT_MICRO_TIMES = ['eventTime', 'series.lastObservedTime'] as const;

function builtInTypes(): ResourceType[] {
  const involved = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];
  return [
    {
      group: '',
      version: 'v1',
      plural: 'secrets',
      kind: 'Secret',
      apiVersion: 'v1',
      custom: false,
      statusSubresource: false,
      fieldLabels: { type: 'type' },
      decode: decodeSecret,
      validate: validateSecret,
    },
    {
      group: '',
      version: 'v1',
      plural: 'events',
      kind: 'Event',
      apiVersion: 'v1',
      custom: false,
      statusSubresource: false,
      fieldLabels: {
        ...Object.fromEntries(involved.map((f) => [`involvedObject.${f}`, `involvedObject.${f}`])),
        reason: 'reason',
        reportingComponent: 'reportingComponent',
        source: 'source.component',
        type: 'type',
      },
      decode: (event, type) => decodeMicroTimes(event, type, EVENT_MICRO_TIMES),
      validate: (event) => validateEvent(event, { involvedObject: 'involvedObject', reportingController: 'reportingComponent', message: 'message' }, false),
    },
    {
      group: 'events.k8s.io',
      version: 'v1',
      plural: 'events',
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      custom: false,
      statusSubresource: false,
      fieldLabels: {
        ...Object.fromEntries(involved.map((f) => [`regarding.${f}`, `regarding.${f}`])),
        reason: 'reason',
        reportingController: 'reportingController',
        type: 'type',
      },
      decode: (event, type) => decodeMicroTimes(event, type, EVENT_MICRO_TIMES),
      validate: (event) => validateEvent(event, { involvedObject: 'regarding', reportingController: 'reportingController', message: 'note' }, true),
    },
    {
      group: 'coordination.k8s.io',
      version: 'v1',
      plural: 'leases',
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      custom: false,
      statusSubresource: false,
      fieldLabels: {},
      decode: (lease, type) => decodeMicroTimes(lease, type, ['spec.acquireTime', 'spec.renewTime']),
      validate: validateLease,
    },
  ];
}

function customType(kind: FakeCustomKind): ResourceType {
  return {
    group: kind.group,
    version: kind.version,
    plural: kind.plural,
    kind: kind.kind,
    apiVersion: `${kind.group}/${kind.version}`,
    custom: true,
    statusSubresource: kind.statusSubresource ?? true,
    fieldLabels: {},
  };
}

// ---------------------------------------------------------------------------------------------
// Patches
// ---------------------------------------------------------------------------------------------

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** How the real server reports a JSON patch that does not apply. */
const patchFailed = (detail: string) =>
  new FakeKubeStatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ reason: 'UnexpectedServerResponse', message: detail }] });

function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) throw patchFailed(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path === '' ? [] : path.slice(1).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(array: unknown[], token: string, allowEnd: boolean, path: string): number {
  if (allowEnd && token === '-') return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw patchFailed(`invalid array index ${JSON.stringify(token)} in ${path}`);
  const index = Number(token);
  if (index > array.length || (!allowEnd && index === array.length)) throw patchFailed(`index ${index} out of bounds in ${path}`);
  return index;
}

/** The container holding the last token of `path`, which must exist. */
function parentOf(doc: unknown, tokens: string[], path: string): { container: Json | unknown[]; key: string } {
  let container: unknown = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(container)) container = container[arrayIndex(container, token, false, path)];
    else if (isObject(container) && token in container) container = container[token];
    else throw patchFailed(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(container) && !isObject(container)) throw patchFailed(`doc is missing path: "${path}": missing value`);
  return { container, key: tokens[tokens.length - 1]! };
}

function valueAt(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  if (!tokens.length) return doc;
  const { container, key } = parentOf(doc, tokens, path);
  if (Array.isArray(container)) return container[arrayIndex(container, key, false, path)];
  if (!(key in container)) throw patchFailed(`doc is missing key: ${path}: missing value`);
  return container[key];
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = pointer(path);
  if (!tokens.length) return value;
  const { container, key } = parentOf(doc, tokens, path);
  if (Array.isArray(container)) container.splice(arrayIndex(container, key, true, path), 0, value);
  else container[key] = value;
  return doc;
}

function removeAt(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  if (!tokens.length) throw patchFailed('cannot remove the whole document');
  const { container, key } = parentOf(doc, tokens, path);
  if (Array.isArray(container)) container.splice(arrayIndex(container, key, false, path), 1);
  else if (key in container) delete container[key];
  else throw patchFailed(`Unable to remove nonexistent key: ${key}: missing value`);
  return doc;
}

/** RFC 6902 JSON patch; a malformed patch is a 400, one that does not apply a 422, as on the real server. */
export function jsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = clone(document);
  for (const operation of operations) {
    if (!isObject(operation)) throw patchFailed('an operation must be an object');
    const path = operation.path;
    const op = operation.op;
    if (typeof path !== 'string') throw patchFailed(`operation ${JSON.stringify(op)} is missing path`);
    switch (op) {
      case 'add':
        if (!('value' in operation)) throw patchFailed('add operation missing value');
        doc = add(doc, path, clone(operation.value));
        break;
      case 'remove':
        doc = removeAt(doc, path);
        break;
      case 'replace':
        if (!('value' in operation)) throw patchFailed('replace operation missing value');
        valueAt(doc, path);
        doc = path === '' ? clone(operation.value) : add(removeAt(doc, path), path, clone(operation.value));
        break;
      case 'move': {
        const value = valueAt(doc, String(operation.from));
        doc = add(removeAt(doc, String(operation.from)), path, value);
        break;
      }
      case 'copy':
        doc = add(doc, path, clone(valueAt(doc, String(operation.from))));
        break;
      case 'test':
        if (!isDeepStrictEqual(valueAt(doc, path), operation.value)) throw patchFailed(`testing value ${path} failed: test failed`);
        break;
      default:
        throw patchFailed(`Unexpected kind: ${String(op)}`);
    }
  }
  return doc;
}

// ---------------------------------------------------------------------------------------------
// Selectors
// ---------------------------------------------------------------------------------------------

type Requirement = { key: string; op: 'in' | 'notin' | 'exists' | 'absent'; values: string[] };
type FieldRequirement = { path: string; equal: boolean; value: string };

/** Splits at the commas outside parentheses. */
function requirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  parts.push(current.trim());
  return parts.filter((part) => part.length > 0);
}

const LABEL_KEY = '[A-Za-z0-9][-A-Za-z0-9_./]*';

export function parseLabelSelector(selector: string): Requirement[] {
  return requirements(selector).map((part) => {
    let match = new RegExp(`^(${LABEL_KEY})\\s+(in|notin)\\s+\\(([^)]*)\\)$`).exec(part);
    if (match) return { key: match[1]!, op: match[2] as 'in' | 'notin', values: match[3]!.split(',').map((v) => v.trim()) };
    match = new RegExp(`^(${LABEL_KEY})\\s*(==|=|!=)\\s*([-A-Za-z0-9_.]*)$`).exec(part);
    if (match) return { key: match[1]!, op: match[2] === '!=' ? 'notin' : 'in', values: [match[3]!] };
    match = new RegExp(`^(!?)\\s*(${LABEL_KEY})$`).exec(part);
    if (match) return { key: match[2]!, op: match[1] ? 'absent' : 'exists', values: [] };
    throw badRequest(`unable to parse requirement: ${JSON.stringify(part)}`);
  });
}

function labelsMatch(requirementsList: Requirement[], object: Stored): boolean {
  const labels = object.metadata.labels ?? {};
  return requirementsList.every(({ key, op, values }) => {
    const has = Object.hasOwn(labels, key);
    switch (op) {
      case 'exists':
        return has;
      case 'absent':
        return !has;
      case 'in':
        return has && values.includes(labels[key]!);
      case 'notin':
        return !has || !values.includes(labels[key]!);
    }
  });
}

function parseFieldSelector(type: ResourceType, selector: string): FieldRequirement[] {
  const labels: Record<string, string> = { 'metadata.name': 'metadata.name', 'metadata.namespace': 'metadata.namespace', ...type.fieldLabels };
  return requirements(selector).map((part) => {
    const match = /^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!match) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const path = labels[match[1]!];
    if (!path) throw badRequest(`field label not supported: ${match[1]}`);
    return { path, equal: match[2] !== '!=', value: match[3]! };
  });
}

const fieldsMatch = (requirementsList: FieldRequirement[], object: Stored) =>
  requirementsList.every(({ path, equal, value }) => (text(object, path) === value) === equal);

// ---------------------------------------------------------------------------------------------
// The store, writes, garbage collection and watches
// ---------------------------------------------------------------------------------------------

interface HistoryEntry {
  rv: number;
  type: EventType;
  resource: ResourceType;
  object: Stored;
  /** The state before a MODIFIED, to tell watchers whose selector it leaves or enters. */
  previous?: Stored;
}

interface Watcher {
  resource: ResourceType;
  namespace?: string;
  labels: Requirement[];
  fields: FieldRequirement[];
  response: ServerResponse;
  bookmarks: boolean;
  timers: NodeJS.Timeout[];
}

interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** How an update treats its body: the resource itself, its status subresource, or everything (test `put`). */
type UpdateMode = 'main' | 'status' | 'all';

const objectKey = (namespace: string, name: string) => `${namespace}/${name}`;
const timestamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

class FakeKubeState {
  readonly resources: ResourceType[];
  readonly watchers = new Set<Watcher>();
  private readonly stores = new Map<ResourceType, Map<string, Stored>>();
  private rv = 1;
  private history: HistoryEntry[] = [];
  /** Watches may resume from this resourceVersion or later; older ones are 410 Expired. */
  private compactedThrough = 1;

  constructor(
    customKinds: readonly FakeCustomKind[],
    private readonly gc: boolean,
    private readonly historyLimit: number,
    private readonly bookmarkIntervalMs: number,
    private readonly clock: Clock,
  ) {
    this.resources = [...customKinds.map(customType), ...builtInTypes()];
    for (const resource of this.resources) this.stores.set(resource, new Map());
  }

  currentResourceVersion(): string {
    return String(this.rv);
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.resources.find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  resource(group: string, version: string, plural: string): ResourceType {
    const found = this.find(group, version, plural);
    if (!found) throw new Error(`the fake Kubernetes API server serves no ${group || 'core'}/${version} ${plural}`);
    return found;
  }

  resourceOf(object: FakeKubeObject): ResourceType {
    const found = this.resources.find((r) => r.apiVersion === object.apiVersion && r.kind === object.kind);
    if (!found) throw new Error(`the fake Kubernetes API server serves no ${String(object.apiVersion)} ${String(object.kind)}`);
    return found;
  }

  private store(resource: ResourceType): Map<string, Stored> {
    return this.stores.get(resource)!;
  }

  get(resource: ResourceType, namespace: string, name: string): Stored | undefined {
    return this.store(resource).get(objectKey(namespace, name));
  }

  mustGet(resource: ResourceType, namespace: string, name: string): Stored {
    const found = this.get(resource, namespace, name);
    if (!found) throw notFound(resource, name);
    return found;
  }

  /** Stored objects (not copies), sorted by namespace and name as etcd keys sort. */
  objects(resource: ResourceType, namespace?: string): Stored[] {
    return [...this.store(resource).entries()]
      .filter(([, object]) => namespace === undefined || object.metadata.namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => object);
  }

  private now(): string {
    return timestamp(this.clock.now());
  }

  // --- writes ---

  create(resource: ResourceType, namespace: string, body: FakeKubeObject, fromTest = false): Stored {
    checkTypeMeta(resource, body);
    const meta = decodeMeta(resource, body.metadata);
    if (meta.namespace && meta.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (meta.resourceVersion && !fromTest) throw new FakeKubeStatusError(500, 'InternalError', 'resourceVersion should not be set on objects to be created', {});
    const next = clone(body) as Stored;
    next.apiVersion = resource.apiVersion;
    next.kind = resource.kind;
    let name = meta.name ?? '';
    if (!name && meta.generateName) {
      do name = generateName(meta.generateName);
      while (this.get(resource, namespace, name));
    }
    next.metadata = { ...clone(meta), name, namespace, uid: randomUUID(), creationTimestamp: this.now(), resourceVersion: '' };
    for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'selfLink', 'managedFields']) delete next.metadata[field];
    if (resource.custom) next.metadata.generation = 1;
    if (resource.statusSubresource && !fromTest) delete next.status;
    normaliseMeta(next);
    resource.decode?.(next, resource);
    const errors = [...validateName(name), ...validateCommonMeta(next), ...(resource.validate?.(next) ?? [])];
    if (errors.length) throw invalid(resource, name, errors);
    if (this.get(resource, namespace, name)) throw alreadyExists(resource, name);
    return this.commit(resource, 'ADDED', next);
  }

  /** PUT and the last step of PATCH: the real update strategy, then a write (or none when nothing changed). */
  update(resource: ResourceType, stored: Stored, body: FakeKubeObject, mode: UpdateMode, requireResourceVersion: boolean): Stored {
    const name = stored.metadata.name;
    checkTypeMeta(resource, body);
    const meta = decodeMeta(resource, body.metadata);
    if (meta.name !== name) throw badRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`);
    if (meta.namespace && meta.namespace !== stored.metadata.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (mode !== 'all') {
      if (!meta.resourceVersion) {
        if (requireResourceVersion) throw invalid(resource, name, [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', text: 'Invalid value: 0x0: must be specified for an update' }]);
      } else if (meta.resourceVersion !== stored.metadata.resourceVersion) throw conflict(resource, name);
    }
    let next: Stored;
    if (mode === 'status') {
      // The status strategy: everything but .status comes from the stored object.
      next = clone(stored);
      if (body.status === undefined) delete next.status;
      else next.status = clone(body.status);
    } else {
      if (meta.uid && meta.uid !== stored.metadata.uid) throw invalid(resource, name, [invalidValue('metadata.uid', meta.uid, 'field is immutable')]);
      next = clone(body) as Stored;
      next.apiVersion = resource.apiVersion;
      next.kind = resource.kind;
      next.metadata = { ...clone(meta), name, namespace: stored.metadata.namespace, uid: stored.metadata.uid, resourceVersion: stored.metadata.resourceVersion };
      for (const field of ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
        if (stored.metadata[field] === undefined) delete next.metadata[field];
        else next.metadata[field] = stored.metadata[field] as never;
      }
      delete next.metadata.selfLink;
      delete next.metadata.managedFields;
      if (mode === 'main' && resource.statusSubresource) {
        if (stored.status === undefined) delete next.status;
        else next.status = clone(stored.status);
      }
      normaliseMeta(next);
      resource.decode?.(next, resource);
      if (resource.custom && !isDeepStrictEqual(content(resource, next), content(resource, stored))) next.metadata.generation = (stored.metadata.generation ?? 0) + 1;
    }
    const errors = [...validateCommonMeta(next), ...(resource.validate?.(next) ?? [])];
    if (stored.metadata.deletionTimestamp) {
      const added = (next.metadata.finalizers ?? []).filter((f) => !(stored.metadata.finalizers ?? []).includes(f));
      if (added.length) {
        errors.push(forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`));
      }
    }
    if (errors.length) throw invalid(resource, name, errors);
    if (isDeepStrictEqual(next, stored)) return stored;
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length) return this.removeNow(resource, next, 'Background');
    return this.commit(resource, 'MODIFIED', next, stored);
  }

  patch(resource: ResourceType, stored: Stored, contentType: string, patch: unknown, status: boolean): Stored {
    let patched: unknown;
    // Built-in kinds take a strategic merge patch, applied here as a merge patch (no list merge keys);
    // custom resources refuse it, as on the real server.
    const strategicAsMerge = contentType === 'application/strategic-merge-patch+json' && !resource.custom;
    switch (strategicAsMerge ? 'application/merge-patch+json' : contentType) {
      case 'application/json-patch+json':
        patched = jsonPatch(stored, patch);
        break;
      case 'application/merge-patch+json':
        if (!isObject(patch)) throw badRequest(`${contentType}: the patch must be a JSON object`);
        patched = mergePatch(stored, patch);
        break;
      case 'application/apply-patch+yaml':
        throw new FakeKubeStatusError(415, 'UnsupportedMediaType', 'server-side apply is not supported by the fake Kubernetes API server (test/support/fake-kube-api.server.ts)', {});
      default:
        throw unsupportedMediaType(resource);
    }
    if (!isObject(patched)) throw cannotDecode(resource, 'the patched document is not an object');
    return this.update(resource, stored, patched, status ? 'status' : 'main', false);
  }

  delete(resource: ResourceType, stored: Stored, options: DeleteOptions): { removed: boolean; object: Stored } {
    const { preconditions } = options;
    if (preconditions?.uid && preconditions.uid !== stored.metadata.uid) {
      throw conflict(resource, stored.metadata.name, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${stored.metadata.uid}`);
    }
    if (preconditions?.resourceVersion && preconditions.resourceVersion !== stored.metadata.resourceVersion) {
      throw conflict(
        resource,
        stored.metadata.name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${stored.metadata.resourceVersion}`,
      );
    }
    const policy = options.propagationPolicy ?? 'Background';
    if (this.gc && policy === 'Orphan') this.orphanDependents(stored);
    if (this.gc && policy === 'Foreground') this.collectDependents(stored);
    const current = this.get(resource, stored.metadata.namespace, stored.metadata.name);
    if (!current || current.metadata.uid !== stored.metadata.uid) return { removed: true, object: stored };
    if (current.metadata.finalizers?.length) {
      if (current.metadata.deletionTimestamp) return { removed: false, object: current };
      const next = clone(current);
      next.metadata.deletionTimestamp = this.now();
      next.metadata.deletionGracePeriodSeconds = 0;
      return { removed: false, object: this.commit(resource, 'MODIFIED', next, current) };
    }
    return { removed: true, object: this.removeNow(resource, current, policy) };
  }

  /** Removes an object for good (DELETED), then collects its dependents. */
  private removeNow(resource: ResourceType, object: Stored, policy: PropagationPolicy): Stored {
    const removed = this.commit(resource, 'DELETED', clone(object));
    if (this.gc && policy === 'Background') this.collectDependents(removed);
    return removed;
  }

  private dependents(owner: Stored): { resource: ResourceType; object: Stored }[] {
    return this.resources.flatMap((resource) =>
      this.objects(resource, owner.metadata.namespace)
        .filter((object) => object.metadata.ownerReferences?.some((ref) => ref.uid === owner.metadata.uid))
        .map((object) => ({ resource, object })),
    );
  }

  private exists(uid: string): boolean {
    return this.resources.some((resource) => [...this.store(resource).values()].some((object) => object.metadata.uid === uid));
  }

  private withOwners(resource: ResourceType, object: Stored, owners: FakeOwnerReference[]): void {
    const next = clone(object);
    if (owners.length) next.metadata.ownerReferences = owners;
    else delete next.metadata.ownerReferences;
    this.update(resource, object, next, 'all', false);
  }

  /** What the garbage collector does once `owner` is gone (or, for Foreground, going). */
  private collectDependents(owner: Stored): void {
    for (const { resource, object } of this.dependents(owner)) {
      const current = this.get(resource, object.metadata.namespace, object.metadata.name);
      if (!current || current.metadata.uid !== object.metadata.uid) continue;
      const live = (current.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== owner.metadata.uid && this.exists(ref.uid));
      if (live.length) this.withOwners(resource, current, live);
      else this.delete(resource, current, { propagationPolicy: 'Background' });
    }
  }

  private orphanDependents(owner: Stored): void {
    for (const { resource, object } of this.dependents(owner)) {
      this.withOwners(resource, object, (object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== owner.metadata.uid));
    }
  }

  /** Stores (or drops) the object under a new resourceVersion and tells the watchers. */
  private commit(resource: ResourceType, type: EventType, next: Stored, previous?: Stored): Stored {
    this.rv += 1;
    next.metadata.resourceVersion = String(this.rv);
    const key = objectKey(next.metadata.namespace, next.metadata.name);
    if (type === 'DELETED') this.store(resource).delete(key);
    else this.store(resource).set(key, next);
    const entry: HistoryEntry = { rv: this.rv, type, resource, object: next, ...(previous ? { previous } : {}) };
    this.history.push(entry);
    while (this.history.length > this.historyLimit) this.compactedThrough = this.history.shift()!.rv;
    for (const watcher of this.watchers) deliver(watcher, entry);
    return next;
  }

  // --- watches ---

  watch(resource: ResourceType, namespace: string | undefined, query: URLSearchParams, response: ServerResponse): void {
    const labels = parseLabelSelector(query.get('labelSelector') ?? '');
    const fields = parseFieldSelector(resource, query.get('fieldSelector') ?? '');
    if (query.get('sendInitialEvents') === 'true') throw unsupported('sendInitialEvents');
    const from = query.get('resourceVersion') ?? '';
    if (from !== '' && !/^\d+$/.test(from)) throw badRequest(`invalid resource version: ${from}`);
    const timeout = query.get('timeoutSeconds');
    if (timeout !== null && !/^\d+$/.test(timeout)) throw badRequest(`invalid timeoutSeconds: ${timeout}`);

    // The client's Watch resolves only once the headers arrive, so they go out before any event.
    response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
    const watcher: Watcher = { resource, ...(namespace !== undefined ? { namespace } : {}), labels, fields, response, bookmarks: query.get('allowWatchBookmarks') === 'true', timers: [] };

    if (from !== '' && from !== '0' && Number(from) < this.compactedThrough) {
      const expired = new FakeKubeStatusError(410, 'Expired', `too old resource version: ${from} (${this.compactedThrough})`);
      send(watcher, 'ERROR', expired.status());
      response.end();
      return;
    }
    if (from === '' || from === '0') {
      for (const object of this.objects(resource, namespace)) if (matches(watcher, object)) send(watcher, 'ADDED', object);
    } else {
      for (const entry of this.history) if (entry.rv > Number(from)) deliver(watcher, entry);
    }

    this.watchers.add(watcher);
    response.on('close', () => this.dropWatch(watcher));
    if (timeout !== null && Number(timeout) > 0) watcher.timers.push(setTimeout(() => this.endWatch(watcher), Number(timeout) * 1000));
    if (watcher.bookmarks && this.bookmarkIntervalMs > 0) {
      const interval = setInterval(() => send(watcher, 'BOOKMARK', this.bookmark(resource)), this.bookmarkIntervalMs);
      interval.unref();
      watcher.timers.push(interval);
    }
  }

  private bookmark(resource: ResourceType): Json {
    return { kind: resource.kind, apiVersion: resource.apiVersion, metadata: { resourceVersion: String(this.rv) } };
  }

  /** Ends a watch as the server does at its timeout: a last BOOKMARK where allowed, then the end of the stream. */
  endWatch(watcher: Watcher, bookmark = true): void {
    if (!this.dropWatch(watcher)) return;
    if (bookmark && watcher.bookmarks) send(watcher, 'BOOKMARK', this.bookmark(watcher.resource));
    watcher.response.end();
  }

  private dropWatch(watcher: Watcher): boolean {
    if (!this.watchers.delete(watcher)) return false;
    for (const timer of watcher.timers) clearTimeout(timer);
    return true;
  }

  compact(): void {
    this.history = [];
    this.compactedThrough = this.rv;
  }
}

function send(watcher: Watcher, type: string, object: unknown): void {
  if (!watcher.response.writableEnded) watcher.response.write(`${JSON.stringify({ type, object })}\n`);
}

function matches(watcher: Watcher, object: Stored): boolean {
  return labelsMatch(watcher.labels, object) && fieldsMatch(watcher.fields, object);
}

/** One history entry as this watcher sees it: leaving its selector is a DELETED, entering an ADDED. */
function deliver(watcher: Watcher, entry: HistoryEntry): void {
  if (entry.resource !== watcher.resource) return;
  if (watcher.namespace !== undefined && entry.object.metadata.namespace !== watcher.namespace) return;
  const now = matches(watcher, entry.object);
  if (entry.type !== 'MODIFIED') {
    if (now) send(watcher, entry.type, entry.object);
    return;
  }
  const before = entry.previous !== undefined && matches(watcher, entry.previous);
  if (now) send(watcher, before ? 'MODIFIED' : 'ADDED', entry.object);
  else if (before) send(watcher, 'DELETED', entry.object);
}

/** Everything a custom resource's generation follows: all but metadata (and status, when it is a subresource). */
function content(resource: ResourceType, object: Stored): Json {
  const { metadata: _metadata, ...rest } = object;
  if (resource.statusSubresource) delete rest.status;
  return rest;
}

function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_NAME_ALPHABET[randomInt(GENERATE_NAME_ALPHABET.length)];
  return `${prefix.slice(0, 58)}${suffix}`;
}

function checkTypeMeta(resource: ResourceType, body: FakeKubeObject): void {
  if (resource.custom) {
    if (!body.kind) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    if (!body.apiVersion) throw badRequest(`Object 'apiVersion' is missing in '${JSON.stringify(body)}'`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== resource.apiVersion) {
    throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${resource.apiVersion})`);
  }
  if (body.kind !== undefined && body.kind !== resource.kind) {
    throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${resource.kind})`);
  }
}

/** The shape checks the real decoder makes on metadata (a 400 when a field has the wrong JSON type). */
function decodeMeta(resource: ResourceType, metadata: unknown): FakeObjectMeta {
  if (metadata === undefined || metadata === null) return {};
  if (!isObject(metadata)) throw cannotDecode(resource, 'metadata: expected an object');
  const strings = (field: string) => {
    const value = metadata[field];
    if (value !== undefined && value !== null && typeof value !== 'string') throw cannotDecode(resource, `metadata.${field}: expected a string`);
  };
  ['name', 'generateName', 'namespace', 'uid', 'resourceVersion'].forEach(strings);
  for (const field of ['labels', 'annotations']) {
    const value = metadata[field];
    if (value === undefined || value === null) continue;
    if (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string')) throw cannotDecode(resource, `metadata.${field}: expected a map of strings`);
  }
  const finalizers = metadata.finalizers;
  if (finalizers !== undefined && finalizers !== null && (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string'))) {
    throw cannotDecode(resource, 'metadata.finalizers: expected an array of strings');
  }
  const owners = metadata.ownerReferences;
  if (owners !== undefined && owners !== null && (!Array.isArray(owners) || owners.some((o) => !isObject(o)))) {
    throw cannotDecode(resource, 'metadata.ownerReferences: expected an array of objects');
  }
  return metadata;
}

/** Empty lists and maps are omitted, as the real server's encoding does. */
function normaliseMeta(object: Stored): void {
  const meta = object.metadata;
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
    const value = meta[field];
    if (value === null || (Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0)) delete meta[field];
  }
}

function validateName(name: string): FieldError[] {
  if (!name) return [required('metadata.name', 'name or generateName is required')];
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [
      invalidValue(
        'metadata.name',
        name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
      ),
    ];
  }
  return [];
}

function validateCommonMeta(object: Stored): FieldError[] {
  const errors: FieldError[] = [];
  (object.metadata.finalizers ?? []).forEach((finalizer, i) => {
    const parts = finalizer.split('/');
    const qualified = parts.length === 2 && DNS_SUBDOMAIN.test(parts[0]!) && QUALIFIED_NAME.test(parts[1]!);
    if (parts.length === 1 ? !STANDARD_FINALIZERS.has(finalizer) : !qualified) {
      errors.push(invalidValue(`metadata.finalizers[${i}]`, finalizer, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  (object.metadata.ownerReferences ?? []).forEach((ref, i) => {
    for (const field of ['apiVersion', 'kind', 'name', 'uid'] as const) {
      if (typeof ref[field] !== 'string' || !ref[field]) errors.push(invalidValue(`metadata.ownerReferences[${i}].${field}`, ref[field] ?? '', `${field} must not be empty`));
    }
  });
  return errors;
}

function unsupportedMediaType(resource: ResourceType): FakeKubeStatusError {
  const accepted = ['application/json-patch+json', 'application/merge-patch+json', ...(resource.custom ? [] : ['application/strategic-merge-patch+json']), 'application/apply-patch+yaml'];
  return new FakeKubeStatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`, {});
}

/** A list as the server answers it; built-in kinds' items carry no apiVersion and kind. */
function listOf(resource: ResourceType, items: Stored[], resourceVersion: string, page: { continue?: string; remaining?: number }): Json {
  return {
    kind: `${resource.kind}List`,
    apiVersion: resource.apiVersion,
    metadata: { resourceVersion, ...(page.continue ? { continue: page.continue, remainingItemCount: page.remaining } : {}) },
    items: items.map((item) => {
      if (resource.custom) return item;
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = item;
      return rest;
    }),
  };
}

function discovery(state: FakeKubeState, group: string, version: string): Json | undefined {
  const resources = state.resources.filter((r) => r.group === group && r.version === version);
  if (!resources.length) return undefined;
  const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: resources.flatMap((r) => [
      { name: r.plural, singularName: r.kind.toLowerCase(), namespaced: true, kind: r.kind, verbs },
      ...(r.statusSubresource ? [{ name: `${r.plural}/status`, singularName: '', namespaced: true, kind: r.kind, verbs: ['get', 'patch', 'update'] }] : []),
    ]),
  };
}

function deleteOptions(query: URLSearchParams, body: unknown): DeleteOptions {
  const options = isObject(body) ? body : {};
  const policy = query.get('propagationPolicy') ?? options.propagationPolicy;
  if (policy !== undefined && policy !== null && policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan') {
    throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
  }
  const preconditions = isObject(options.preconditions) ? (options.preconditions as DeleteOptions['preconditions']) : undefined;
  return { ...(policy ? { propagationPolicy: policy } : {}), ...(preconditions ? { preconditions } : {}) };
}

// ---------------------------------------------------------------------------------------------
// The HTTP server
// ---------------------------------------------------------------------------------------------

interface Route {
  resource: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

type Routed = { discovery: Json } | Route;

function route(state: FakeKubeState, segments: string[]): Routed {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments[1] === 'v1') [group, version, rest] = ['', 'v1', segments.slice(2)];
  else if (segments[0] === 'apis' && segments.length >= 3) [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
  else throw noSuchResource();
  if (!rest.length) {
    const list = discovery(state, group, version);
    if (!list) throw noSuchResource();
    return { discovery: list };
  }
  const [first, namespace, plural, name, subresource, ...extra] = rest;
  if (rest.length === 1) {
    const resource = state.find(group, version, first!);
    if (!resource) throw noSuchResource();
    return { resource };
  }
  if (first !== 'namespaces' || rest.length < 3 || extra.length) throw noSuchResource();
  const resource = state.find(group, version, plural!);
  if (!resource) throw noSuchResource();
  if (subresource !== undefined && !(subresource === 'status' && resource.statusSubresource)) throw noSuchResource();
  return { resource, namespace: namespace!, ...(name !== undefined ? { name } : {}), ...(subresource !== undefined ? { subresource } : {}) };
}

interface Answer {
  status: number;
  body: unknown;
}

/** Serves one request; undefined when it became a watch stream. */
function serve(state: FakeKubeState, method: string, url: URL, body: unknown, contentType: string, response: ServerResponse): Answer | undefined {
  let segments: string[];
  try {
    segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw noSuchResource();
  }
  const routed = route(state, segments);
  if ('discovery' in routed) {
    if (method !== 'GET') throw methodNotAllowed();
    return { status: 200, body: routed.discovery };
  }
  const { resource, namespace, name, subresource } = routed;
  const query = url.searchParams;
  if (method !== 'GET' && query.has('dryRun')) throw unsupported('dryRun');
  const object = (): FakeKubeObject => {
    if (!isObject(body)) throw badRequest('the request body must be a JSON object');
    return body;
  };

  if (name === undefined) {
    if (method === 'POST' && namespace !== undefined) return { status: 201, body: state.create(resource, namespace, object()) };
    if (method !== 'GET') throw methodNotAllowed();
    const watch = query.get('watch');
    if (watch === 'true' || watch === '1') {
      state.watch(resource, namespace, query, response);
      return undefined;
    }
    const labels = parseLabelSelector(query.get('labelSelector') ?? '');
    const fields = parseFieldSelector(resource, query.get('fieldSelector') ?? '');
    let items = state.objects(resource, namespace).filter((o) => labelsMatch(labels, o) && fieldsMatch(fields, o));
    const token = query.get('continue');
    if (token) {
      const after = Buffer.from(token, 'base64url').toString('utf8');
      items = items.filter((o) => objectKey(o.metadata.namespace, o.metadata.name) > after);
    }
    const limit = Number(query.get('limit') ?? 0);
    const page = limit > 0 && items.length > limit ? items.slice(0, limit) : items;
    const last = page[page.length - 1];
    const more = page.length < items.length && last ? { continue: Buffer.from(objectKey(last.metadata.namespace, last.metadata.name)).toString('base64url'), remaining: items.length - page.length } : {};
    return { status: 200, body: listOf(resource, page, state.currentResourceVersion(), more) };
  }

  const ns = namespace!;
  const status = subresource === 'status';
  switch (method) {
    case 'GET':
      return { status: 200, body: state.mustGet(resource, ns, name) };
    case 'PUT':
      return { status: 200, body: state.update(resource, state.mustGet(resource, ns, name), object(), status ? 'status' : 'main', resource.custom) };
    case 'PATCH':
      return { status: 200, body: state.patch(resource, state.mustGet(resource, ns, name), contentType, body, status) };
    case 'DELETE': {
      if (status) throw methodNotAllowed();
      const { removed, object: deleted } = state.delete(resource, state.mustGet(resource, ns, name), deleteOptions(query, body));
      if (!removed) return { status: 200, body: deleted };
      return {
        status: 200,
        body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, ...groupDetail(resource), kind: resource.plural, uid: deleted.metadata.uid } },
      };
    }
    default:
      throw methodNotAllowed();
  }
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** Starts the fake on an ephemeral port of 127.0.0.1. Logs nothing. */
export async function startFakeKubeApi(options: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
  const token = options.token ?? DEFAULT_TOKEN;
  const state = new FakeKubeState(
    options.customKinds ?? LORE_CUSTOM_KINDS,
    options.garbageCollection ?? true,
    options.historyLimit ?? 1000,
    options.bookmarkIntervalMs ?? 0,
    options.clock ?? { now: () => new Date() },
  );
  const requests: FakeKubeRequest[] = [];
  const failures: (FakeKubeFailure & { left: number })[] = [];

  const answer = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const receive = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://fake-kube-api');
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    let unparsable: string | undefined;
    if (raw.trim()) {
      try {
        body = JSON.parse(raw);
      } catch (error) {
        unparsable = error instanceof Error ? error.message : String(error);
      }
    }
    requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), ...(contentType ? { contentType } : {}), ...(body !== undefined ? { body } : {}) });

    const target = `${url.pathname}${url.search}`;
    const failure = failures.find((f) => (f.method === undefined || f.method.toUpperCase() === method) && (f.pathIncludes === undefined || target.includes(f.pathIncludes)));
    if (failure) {
      if (--failure.left === 0) failures.splice(failures.indexOf(failure), 1);
      const injected = new FakeKubeStatusError(failure.status, REASONS[failure.status] ?? 'Unknown', failure.message ?? `injected failure ${failure.status} (fake Kubernetes API server failNext)`, {});
      return answer(response, failure.status, injected.status());
    }
    if (request.headers.authorization !== `Bearer ${token}`) return answer(response, 401, new FakeKubeStatusError(401, 'Unauthorized', 'Unauthorized').status());

    try {
      if (unparsable !== undefined) throw badRequest(`the request body is not valid JSON: ${unparsable}`);
      const served = serve(state, method, url, body, contentType, response);
      if (served) answer(response, served.status, served.body);
    } catch (error) {
      const status = error instanceof FakeKubeStatusError ? error : new FakeKubeStatusError(500, 'InternalError', error instanceof Error ? error.message : String(error), {});
      answer(response, status.code, status.status());
    }
  };

  const server = createServer((request, response) => {
    receive(request, response).catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    token,
    kubeConfig: () => {
      const config = new KubeConfig();
      config.loadFromOptions({
        clusters: [{ name: 'fake-kube-api', server: url, skipTLSVerify: true }],
        users: [{ name: 'fake-kube-api', token }],
        contexts: [{ name: 'fake-kube-api', cluster: 'fake-kube-api', user: 'fake-kube-api', namespace: 'default' }],
        currentContext: 'fake-kube-api',
      });
      return config;
    },
    get: (group, version, plural, namespace, name) => {
      const found = state.get(state.resource(group, version, plural), namespace, name);
      return found && clone(found);
    },
    list: (group, version, plural, namespace) => clone(state.objects(state.resource(group, version, plural), namespace)),
    put: (object) => {
      const resource = state.resourceOf(object);
      const { name, namespace } = object.metadata ?? {};
      if (!name || !namespace) throw new Error('put needs metadata.name and metadata.namespace');
      const stored = state.get(resource, namespace, name);
      return clone(stored ? state.update(resource, stored, object, 'all', false) : state.create(resource, namespace, object, true));
    },
    remove: (group, version, plural, namespace, name, propagationPolicy) => {
      const resource = state.resource(group, version, plural);
      const stored = state.get(resource, namespace, name);
      if (!stored) return 'absent';
      return state.delete(resource, stored, propagationPolicy ? { propagationPolicy } : {}).removed ? 'removed' : 'terminating';
    },
    resourceVersion: () => state.currentResourceVersion(),
    failNext: (failure) => {
      failures.push({ ...failure, left: failure.times ?? 1 });
    },
    expireWatches: () => {
      for (const watcher of [...state.watchers]) state.endWatch(watcher);
    },
    compactHistory: () => state.compact(),
    requests,
    writes: () => requests.filter((r) => r.method !== 'GET'),
    resetRequests: () => {
      requests.length = 0;
    },
    openWatches: () => state.watchers.size,
    close: async () => {
      for (const watcher of [...state.watchers]) state.endWatch(watcher, false);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
