import { type Role, roleAtLeast } from '../../core/context.js';
import { DPA_HEADER_VALUE } from '../../core/dpa/dpa.service.js';
import { DELETE_CONFIRMATION } from '../../core/accounts/account.service.js';
import { UPLOAD_FILE_TYPES } from '../../core/documents/file-types.js';
import { PLANS, PLAN_IDS, type PlanId, MICROCENTS_PER_EUR } from '../../core/plans.js';
import { ROLES } from '../../core/context.js';
import { Html, html } from './html.js';

/** What every signed-in page knows about its viewer. */
export interface Viewer {
  email: string;
  role: Role;
  tenantName: string;
  plan: PlanId;
  csrfToken: string;
}

export const NAV = [
  ['overview', 'Overview'],
  ['keys', 'API keys'],
  ['knowledge-bases', 'Knowledge bases'],
  ['billing', 'Billing'],
  ['account', 'Account'],
  ['enterprise', 'Enterprise'],
] as const;
export type Section = (typeof NAV)[number][0];

/** A whole page: the document, the site header with navigation and sign-out (when signed in). */
export function page(title: string, body: Html, options: { viewer?: Viewer; section?: Section; narrow?: boolean } = {}): string {
  const { viewer, section } = options;
  const nav = viewer
    ? html`<nav aria-label="Portal"><ul>${NAV.filter(([id]) => id !== 'enterprise' || viewer.plan === 'enterprise').map(
        ([id, label]) => html`<li><a href="/portal/${id}"${id === section ? new Html(' aria-current="page"') : ''}>${label}</a></li>`,
      )}</ul></nav>
      <form method="post" action="/portal/sign-out"><input type="hidden" name="_csrf" value="${viewer.csrfToken}"><button class="secondary" type="submit">Sign out</button></form>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${viewer ? html`<meta name="csrf-token" content="${viewer.csrfToken}">` : ''}
<title>${title} · Lore</title>
<link rel="icon" href="/portal/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/portal/assets/portal.css">
<script src="/portal/assets/portal.js" defer></script>
</head>
<body>
<header class="top"><a class="brand" href="/portal">Lore</a>${viewer ? html`<span class="muted">${viewer.tenantName} · ${viewer.email} (${viewer.role})</span>` : ''}${nav}</header>
<main id="main"${options.narrow ? new Html(' class="narrow"') : ''}>
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.value;
}

// Signed out

export function signInPage(formToken: string, message?: { kind: 'error' | 'ok'; text: string }, email = ''): string {
  return page(
    'Sign in',
    html`${message ? html`<p class="${message.kind === 'error' ? 'error' : 'ok'}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>` : ''}
<form method="post" action="/portal/sign-in">
<input type="hidden" name="_form" value="${formToken}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p><a href="/portal/forgot">Forgot your password?</a></p>`,
    { narrow: true },
  );
}

export function forgotPage(formToken: string, sent: boolean, error?: string): string {
  return page(
    'Reset your password',
    html`${sent ? html`<p class="ok" role="status">If this address belongs to a Lore account, we have e-mailed it a link to reset the password. The link works once, for 1 hour.</p>` : ''}
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/portal/forgot">
<input type="hidden" name="_form" value="${formToken}">
<label for="email">E-mail address of your account</label>
<input id="email" name="email" type="email" autocomplete="username" required>
<button type="submit">E-mail me a link</button>
</form>
<p><a href="/portal/sign-in">Back to sign-in</a></p>`,
    { narrow: true },
  );
}

export function passwordPage(formToken: string, token: string, email: string | undefined, error?: string): string {
  if (!email) {
    return page('Link expired', html`<p class="error" role="alert">This link has expired or has been used already.</p><p><a href="/portal/forgot">Ask for a new one</a></p>`, {
      narrow: true,
    });
  }
  return page(
    'Choose a password',
    html`<p>For <strong>${email}</strong>. At least 8 characters; common passwords are refused.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/portal/password">
<input type="hidden" name="_form" value="${formToken}">
<input type="hidden" name="token" value="${token}">
<input type="text" name="username" value="${email}" autocomplete="username" hidden>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
<label for="confirm">Repeat it</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="8" required>
<button type="submit">Set password</button>
</form>`,
    { narrow: true },
  );
}

// Building blocks

function when(date: unknown): string {
  return typeof date === 'string' ? date.replace('T', ' ').slice(0, 16) + ' UTC' : '—';
}

function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return 'custom';
  if (n >= 1024 ** 3) return `${+(n / 1024 ** 3).toFixed(2)} GB`;
  if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(1)} MB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} kB`;
  return `${n} B`;
}

function count(n: number | null | undefined): string {
  return n === null || n === undefined ? 'unlimited' : n.toLocaleString('en');
}

function eur(microcents: number | null): string {
  return microcents === null ? 'none' : `${+(microcents / MICROCENTS_PER_EUR).toFixed(4)} EUR`;
}

/** A form the portal script sends to the REST API (`data-api="METHOD /v1/…"`); without JavaScript it explains itself. */
function apiForm(api: string, content: Html, attributes: Record<string, string> = {}): Html {
  const extra = Object.entries(attributes).map(([k, v]) => html` data-${k}="${v}"`);
  return html`<form method="post" action="/portal/needs-javascript" data-api="${api}"${extra}>${content}<div class="form-error" aria-live="polite"></div></form>`;
}

function roleNote(viewer: Viewer, required: Role, what: string): Html | undefined {
  return roleAtLeast(viewer.role, required) ? undefined : html`<p class="notice">Your role (${viewer.role}) cannot ${what}; ask an admin of ${viewer.tenantName}.</p>`;
}

interface Measure {
  used: number;
  limit: number | null;
  percent?: number;
}

function usageRow(label: string, m: Measure, format: (n: number | null) => string): Html {
  const percent = m.limit ? Math.min(100, (m.used / m.limit) * 100) : 0;
  const shown = m.limit ? `${percent.toFixed(percent < 10 ? 1 : 0)}\u00a0%` : '';
  return html`<tr><th scope="row">${label}</th><td>${format(m.used)} of ${format(m.limit)}
<progress class="bar${percent >= 90 ? ' high' : ''}" max="100" value="${percent.toFixed(1)}" aria-label="${label}: ${shown || 'no limit'}"></progress></td><td>${shown}</td></tr>`;
}

// Signed in

export interface OverviewData {
  usage: { chunks: Measure; documents: Measure; storage_bytes: Measure; queries_this_period: Measure; knowledge_bases: Measure; query_rate_limit_per_min: number };
  billing: { plan: PlanId; billing_interval: string; current_period_end: string; scheduled_plan: string | null; cancellation_pending: boolean };
  dpa: { compliant: boolean; current_version: number; accepted_version: number | null };
}

/** Why a tenant must accept the DPA: it never has (a first acceptance), or it accepted a version the instance has since replaced. */
function dpaAction(dpa: OverviewData['dpa'], viewer: Viewer): string {
  return dpa.accepted_version === null
    ? `the data processing agreement (version ${dpa.current_version}) has not been accepted yet.`
    : `${DPA_HEADER_VALUE}: version ${dpa.current_version} replaces version ${dpa.accepted_version}, which ${viewer.tenantName} accepted.`;
}

export function overviewPage(viewer: Viewer, data: OverviewData): string {
  const { usage, billing, dpa } = data;
  return page(
    'Overview',
    html`${dpa.compliant ? '' : html`<p class="notice" role="status"><strong>Action required:</strong> ${dpaAction(dpa, viewer)} <a href="/portal/account#dpa">Review and accept it</a>.</p>`}
<div class="grid">
<section class="card"><h2>Plan</h2><p><strong>${billing.plan}</strong>, billed ${billing.billing_interval}; this period ends ${when(billing.current_period_end)}.</p>
${billing.scheduled_plan ? html`<p>Changes to <strong>${billing.scheduled_plan}</strong> at the end of the period.</p>` : ''}
${billing.cancellation_pending ? html`<p>Cancellation pending: the account moves to Free at the end of the period.</p>` : ''}
<p><a href="/portal/billing">Billing</a></p></section>
<section class="card"><h2>Queries this period</h2><p><strong>${count(usage.queries_this_period.used)}</strong> of ${count(usage.queries_this_period.limit)} included; at most ${usage.query_rate_limit_per_min} a minute.</p></section>
<section class="card"><h2>Data processing agreement</h2><p>${dpa.compliant ? `Version ${dpa.accepted_version ?? ''} accepted.` : `Version ${dpa.current_version} awaits acceptance.`}</p></section>
</div>
<h2>Usage against your limits</h2>
<div class="table-wrap"><table><thead><tr><th>Limit</th><th>Used</th><th>%</th></tr></thead><tbody>
${usageRow('Chunks', usage.chunks, count)}
${usageRow('Documents', usage.documents, count)}
${usageRow('Storage', usage.storage_bytes, bytes)}
${usageRow('Queries this period', usage.queries_this_period, count)}
${usageRow('Knowledge bases', usage.knowledge_bases, count)}
</tbody></table></div>`,
    { viewer, section: 'overview' },
  );
}

export interface KeyView {
  id: string;
  name: string;
  role: Role;
  key_hint: string;
  created_at: string;
  last_used_at: string | null;
  sub_tenant_id: string | null;
}

export function keysPage(viewer: Viewer, keys: KeyView[] | undefined): string {
  const note = roleNote(viewer, 'admin', 'manage API keys');
  return page(
    'API keys',
    note ??
      html`<p>Keys authenticate REST requests: <code>Authorization: Bearer &lt;key&gt;</code>. A key is shown once, when it is created.</p>
<section class="card"><h2>Create a key</h2>
${apiForm(
  'POST /v1/auth/keys',
  html`<div class="inline"><div><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="200"></div>
<div><label for="key-role">Role</label><select id="key-role" name="role">${ROLES.map((r) => html`<option value="${r}"${r === 'read' ? new Html(' selected') : ''}>${r}</option>`)}</select></div>
<button type="submit">Create key</button></div><output></output>`,
  { then: 'key', refresh: 'keys' },
)}</section>
<h2>Active keys</h2>
<div class="table-wrap" id="keys"><table><thead><tr><th>Name</th><th>Role</th><th>Key</th><th class="hide-small">Created</th><th>Last used</th><th></th></tr></thead><tbody>
${(keys ?? []).map(
  (k) => html`<tr><td>${k.name}</td><td>${k.role}</td><td><code>…${k.key_hint}</code></td><td class="hide-small">${when(k.created_at)}</td><td>${k.last_used_at ? when(k.last_used_at) : 'never'}</td>
<td>${apiForm('DELETE /v1/auth/keys/{id}', html`<input type="hidden" name="id" value="${k.id}"><button class="danger" type="submit" aria-label="Revoke ${k.name}">Revoke</button>`, {
    confirm: `Revoke the key "${k.name}"? Requests with it stop working at once.`,
    refresh: 'keys',
  })}</td></tr>`,
)}
</tbody></table></div>`,
    { viewer, section: 'keys' },
  );
}

export interface KnowledgeBaseView {
  id: string;
  name: string;
  created_at: string;
  sub_tenant_id: string | null;
}

export function knowledgeBasesPage(viewer: Viewer, kbs: KnowledgeBaseView[]): string {
  const canWrite = roleAtLeast(viewer.role, 'write');
  return page(
    'Knowledge bases',
    html`${canWrite
      ? html`<section class="card"><h2>Create a knowledge base</h2>${apiForm(
          'POST /v1/knowledge-bases',
          html`<div class="inline"><div><label for="kb-name">Name</label><input id="kb-name" name="name" required maxlength="200"></div><button type="submit">Create</button></div>`,
        )}</section>`
      : ''}
<div class="table-wrap"><table><thead><tr><th>Name</th><th class="hide-small">Created</th>${canWrite ? html`<th>Rename</th>` : ''}</tr></thead><tbody>
${kbs.map(
  (kb) => html`<tr><td><a href="/portal/knowledge-bases/${kb.id}">${kb.name}</a></td><td class="hide-small">${when(kb.created_at)}</td>
${canWrite
  ? html`<td>${apiForm(
      'PATCH /v1/knowledge-bases/{kb_id}',
      html`<div class="inline"><input type="hidden" name="kb_id" value="${kb.id}"><input id="rename-${kb.id}" name="name" aria-label="New name for ${kb.name}" required maxlength="200" value="${kb.name}"><button class="secondary" type="submit">Rename</button></div>`,
    )}</td>`
  : ''}</tr>`,
)}
</tbody></table></div>
${kbs.length ? '' : html`<p class="muted">No knowledge bases yet.</p>`}`,
    { viewer, section: 'knowledge-bases' },
  );
}

export interface DocumentView {
  id: string;
  title: string;
  status: string;
  language: string | null;
  chunk_count: number;
  content_bytes: number;
  created_at?: string;
  error?: unknown;
}

/** The file input's `accept`: every type ingestion takes, with its extensions. */
const UPLOAD_ACCEPT = UPLOAD_FILE_TYPES.flatMap(({ type, extensions }) => [...extensions, type]).join(',');

export function knowledgeBasePage(viewer: Viewer, kb: KnowledgeBaseView, documents: DocumentView[]): string {
  const canWrite = roleAtLeast(viewer.role, 'write');
  return page(
    kb.name,
    html`<p><a href="/portal/knowledge-bases">All knowledge bases</a></p>
${canWrite
  ? html`<section class="card"><h2>Upload a document</h2><p class="muted">Plain text, Markdown, HTML or PDF. It is chunked, embedded and indexed in the background.</p>
${apiForm(
  'POST /v1/documents/upload',
  html`<input type="hidden" name="knowledge_base_id" value="${kb.id}">
<label for="file">File</label><input id="file" name="file" type="file" accept="${UPLOAD_ACCEPT}" required>
<label for="title">Title (optional; the file name otherwise)</label><input id="title" name="title" maxlength="500">
<button type="submit">Upload</button>`,
  { multipart: '', then: 'job', refresh: 'documents' },
)}</section>`
  : ''}
<section class="card"><h2>Search</h2>
${apiForm(
  'POST /v1/query',
  html`<input type="hidden" name="knowledge_base_ids" data-json value='${JSON.stringify([kb.id])}'>
<div class="inline"><div><label for="query">Query</label><input id="query" name="query" required maxlength="4096"></div><button type="submit">Search</button></div>`,
  { then: 'results' },
)}</section>
<h2>Documents</h2>
<div id="documents"><div class="table-wrap"><table><thead><tr><th>Title</th><th>Status</th><th class="hide-small">Language</th><th>Chunks</th><th class="hide-small">Size</th>${canWrite ? html`<th></th>` : ''}</tr></thead><tbody>
${documents.map(
  (d) => html`<tr><td>${d.title}</td><td>${d.status}</td><td class="hide-small">${d.language ?? '—'}</td><td>${d.chunk_count}</td><td class="hide-small">${bytes(d.content_bytes)}</td>
${canWrite
  ? html`<td>${apiForm('DELETE /v1/documents/{id}', html`<input type="hidden" name="id" value="${d.id}"><button class="danger" type="submit" aria-label="Delete ${d.title}">Delete</button>`, {
      confirm: `Delete "${d.title}" and its chunks?`,
      refresh: 'documents',
    })}</td>`
  : ''}</tr>`,
)}
</tbody></table></div>
${documents.length ? '' : html`<p class="muted">No documents yet.</p>`}</div>`,
    { viewer, section: 'knowledge-bases' },
  );
}

export interface BillingData {
  status: {
    plan: PlanId;
    billing_interval: string;
    current_period_start: string;
    current_period_end: string;
    scheduled_plan: string | null;
    scheduled_interval: string | null;
    cancellation_pending: boolean;
    billing_details: Record<string, string> | null;
    billing_enabled: boolean;
  };
  usage: Record<string, number | string>;
}

export function billingPage(viewer: Viewer, data: BillingData | undefined): string {
  const note = roleNote(viewer, 'admin', 'manage billing');
  if (note || !data) return page('Billing', note ?? html``, { viewer, section: 'billing' });
  const { status, usage } = data;
  const current = PLAN_IDS.indexOf(status.plan);
  const rows: Array<[string, (p: (typeof PLANS)[PlanId]) => string]> = [
    ['Monthly fee', (p) => eur(p.monthlyFeeMicrocents)],
    ['Included queries per month', (p) => count(p.includedQueriesPerMonth)],
    ['Knowledge bases', (p) => count(p.maxKnowledgeBases)],
    ['Documents', (p) => count(p.maxDocuments)],
    ['Max document size', (p) => bytes(p.maxDocumentSizeBytes)],
    ['Storage', (p) => bytes(p.storageBytes)],
    ['Max chunks', (p) => count(p.maxChunks)],
    ['Queries per minute', (p) => count(p.queryRateLimitPerMin)],
    ['Overage per query', (p) => eur(p.overagePerQueryMicrocents)],
    ['Ingestion cost per chunk', (p) => (p.ingestionPerChunkMicrocents ? eur(p.ingestionPerChunkMicrocents) : 'free')],
  ];
  const details = status.billing_details ?? {};
  const field = (name: string, label: string, attrs = '') =>
    html`<label for="bd-${name}">${label}</label><input id="bd-${name}" name="${name}" value="${details[name] ?? ''}"${new Html(attrs)}>`;
  return page(
    'Billing',
    html`${status.billing_enabled ? '' : html`<p class="notice">Billing is switched off on this instance: plan changes answer 503.</p>`}
<section class="card"><h2>Your plan</h2>
<p><strong>${status.plan}</strong>, billed ${status.billing_interval}. Current period: ${when(status.current_period_start)} – ${when(status.current_period_end)}.</p>
${status.scheduled_plan ? html`<p>Scheduled: <strong>${status.scheduled_plan}</strong> from the end of this period.</p>` : ''}
${status.scheduled_interval ? html`<p>Scheduled interval: <strong>${status.scheduled_interval}</strong> from the next period.</p>` : ''}
${status.cancellation_pending
  ? html`<p>A cancellation is pending.</p>${apiForm('DELETE /v1/billing/cancel', html`<button type="submit">Retract the cancellation</button>`)}`
  : status.plan !== 'free'
    ? apiForm('POST /v1/billing/cancel', html`<button class="danger" type="submit">Cancel (to Free at the end of the period)</button>`, {
        confirm: 'Cancel the plan? The account moves to Free at the end of the period.',
      })
    : ''}
</section>
<h2>Plans</h2>
<div class="table-wrap"><table><thead><tr><th></th>${PLAN_IDS.map((id) => html`<th scope="col" class="${id === status.plan ? 'current' : ''}">${id}${id === status.plan ? ' (yours)' : ''}</th>`)}</tr></thead><tbody>
${rows.map(([label, value]) => html`<tr><th scope="row">${label}</th>${PLAN_IDS.map((id) => html`<td class="${id === status.plan ? 'current' : ''}">${value(PLANS[id])}</td>`)}</tr>`)}
<tr><th scope="row"></th>${PLAN_IDS.map((id, i) =>
      html`<td>${i === current
        ? 'current'
        : apiForm(
            i > current ? 'POST /v1/billing/upgrade' : 'POST /v1/billing/downgrade',
            html`<input type="hidden" name="plan" value="${id}"><button class="${i > current ? '' : 'secondary'}" type="submit">${i > current ? 'Upgrade' : 'Downgrade'} to ${id}</button>`,
            { confirm: i > current ? `Upgrade to ${id} now?` : `Move to ${id} at the end of the period?` },
          )}</td>`,
    )}</tr>
</tbody></table></div>
<div class="grid">
<section class="card"><h2>Billing interval</h2>${apiForm(
      'POST /v1/billing/interval',
      html`<label for="interval">Interval</label><select id="interval" name="billing_interval">${['monthly', 'annual'].map(
        (v) => html`<option value="${v}"${v === (status.scheduled_interval ?? status.billing_interval) ? new Html(' selected') : ''}>${v}</option>`,
      )}</select><button type="submit">Change interval</button>`,
    )}</section>
<section class="card"><h2>Billing details</h2>${apiForm(
      'PUT /v1/billing/details',
      html`${field('company_name', 'Company name', ' required maxlength="200"')}${field('email', 'Invoice e-mail', ' type="email" required')}${field('address', 'Address', ' required maxlength="500"')}${field(
        'country',
        'Country (ISO code, e.g. NL)',
        ' required pattern="[A-Z]{2}" maxlength="2"',
      )}${field('vat_id', 'VAT id (optional)', ' maxlength="32"')}
<label for="bd-payment">Payment method</label><select id="bd-payment" name="payment_method">${['card', 'sepa_debit', 'bank_transfer'].map(
        (v) => html`<option value="${v}"${v === details.payment_method ? new Html(' selected') : ''}>${v}</option>`,
      )}</select><button type="submit">Save details</button>`,
    )}</section>
</div>
<h2>Usage, last 30 days</h2>
<div class="table-wrap"><table><tbody>
<tr><th scope="row">Queries</th><td>${count(Number(usage.query_count))} (${count(Number(usage.overage_queries))} beyond the included ${count(Number(usage.included_queries))})</td></tr>
<tr><th scope="row">Requests</th><td>${count(Number(usage.total_requests))}</td></tr>
<tr><th scope="row">Chunks ingested</th><td>${count(Number(usage.ingestion_chunks))}</td></tr>
<tr><th scope="row">Overage cost</th><td>${eur(Number(usage.overage_cost_microcents))}</td></tr>
<tr><th scope="row">Total cost</th><td>${eur(Number(usage.total_cost_microcents))}</td></tr>
</tbody></table></div>`,
    { viewer, section: 'billing' },
  );
}

export interface AccountData {
  dpa: { compliant: boolean; current_version: number; accepted_version: number | null };
  users: Array<{ id: string; email: string; role: Role; has_password: boolean; created_at: Date }> | undefined;
  invitations: Array<{ id: string; email: string; role: Role; invited_by_email: string | null; expires_at: Date; expired: boolean }> | undefined;
  message?: { kind: 'error' | 'ok'; text: string };
}

export function accountPage(viewer: Viewer, data: AccountData): string {
  const admin = roleAtLeast(viewer.role, 'admin');
  const { dpa } = data;
  return page(
    'Account',
    html`${data.message ? html`<p class="${data.message.kind === 'error' ? 'error' : 'ok'}" role="${data.message.kind === 'error' ? 'alert' : 'status'}">${data.message.text}</p>` : ''}
<section class="card" id="dpa"><h2>Data processing agreement</h2>
<p>Current version: <strong>${dpa.current_version}</strong>. Accepted: <strong>${dpa.accepted_version ?? 'none'}</strong>.</p>
${!dpa.compliant && admin
  ? apiForm(
      'POST /v1/dpa/accept',
      html`<input name="version" type="number" value="${dpa.current_version}" hidden><p>Accepting records you (${viewer.email}) as the person who accepted.</p><button type="submit">Accept version ${dpa.current_version}</button>`,
    )
  : ''}
${!dpa.compliant && !admin ? html`<p class="notice">An admin must accept the current version.</p>` : ''}
</section>
<section class="card"><h2>Your sessions</h2><p>Sign out of the portal in every browser (API keys and OAuth clients stay valid).</p>
<form method="post" action="/portal/sign-out-everywhere"><input type="hidden" name="_csrf" value="${viewer.csrfToken}"><button class="secondary" type="submit">Sign out everywhere</button></form></section>
${admin
  ? html`<section class="card" id="people"><h2>People</h2>
<div class="table-wrap"><table><thead><tr><th>E-mail</th><th>Role</th><th class="hide-small">Joined</th><th>Password set</th><th></th></tr></thead><tbody>
${(data.users ?? []).map(
  (u) => html`<tr><td>${u.email}</td><td>${u.role}</td><td class="hide-small">${when(u.created_at.toISOString())}</td><td>${u.has_password ? 'yes' : 'not yet'}</td><td>
<form method="post" action="/portal/people/${u.id}/remove" data-confirm="Remove ${u.email} from ${viewer.tenantName}? They can no longer sign in to its portal."><input type="hidden" name="_csrf" value="${viewer.csrfToken}"><button class="danger" type="submit" aria-label="Remove ${u.email}">Remove</button></form></td></tr>`,
)}
</tbody></table></div></section>
<section class="card" id="invitations"><h2>Invitations</h2>
<p class="muted">An invited person joins when they accept: they choose a password through the e-mailed link, which works for 72 hours.</p>
${data.invitations?.length
  ? html`<div class="table-wrap"><table><thead><tr><th>E-mail</th><th>Role</th><th class="hide-small">Invited by</th><th>Link</th><th></th></tr></thead><tbody>
${data.invitations.map(
  (i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td class="hide-small">${i.invited_by_email ?? '—'}</td><td>${i.expired ? 'expired' : `until ${when(i.expires_at.toISOString())}`}</td><td>
<form method="post" action="/portal/invitations/${i.id}/revoke"><input type="hidden" name="_csrf" value="${viewer.csrfToken}"><button class="danger" type="submit" aria-label="Revoke the invitation of ${i.email}">Revoke</button></form></td></tr>`,
)}
</tbody></table></div>`
  : html`<p>No open invitations.</p>`}
<h3>Invite someone</h3>
<form method="post" action="/portal/people"><input type="hidden" name="_csrf" value="${viewer.csrfToken}">
<div class="inline"><div><label for="invite-email">E-mail</label><input id="invite-email" name="email" type="email" required></div>
<div><label for="invite-role">Role</label><select id="invite-role" name="role">${ROLES.map((r) => html`<option value="${r}">${r}</option>`)}</select></div>
<button type="submit">Send invitation</button></div></form></section>
<section class="card"><h2>Export</h2><p>A summary and a ZIP of all the account's data, through a link that works for 24 hours.</p>
${apiForm('POST /v1/account/export', html`<button type="submit">Export the account</button><output></output>`, { then: 'export' })}</section>
<section class="card"><h2>Delete the account</h2><p>Deletes every knowledge base, document, key and setting of ${viewer.tenantName}, at once and for good.</p>
${apiForm(
  'DELETE /v1/account',
  html`<label for="confirm-delete">Type <code>${DELETE_CONFIRMATION}</code> to confirm</label><input id="confirm-delete" name="confirm" data-header="X-Confirm-Delete" required pattern="${DELETE_CONFIRMATION}" autocomplete="off">
<button class="danger" type="submit">Delete the account</button>`,
  { then: 'signed-out', confirm: 'Delete the account and all its data? This cannot be undone.' },
)}</section>`
  : ''}`,
    { viewer, section: 'account' },
  );
}

export interface SubTenantView {
  id: string;
  name: string;
  external_id: string | null;
  usage: { chunks: Measure; documents: Measure; queries_this_period: Measure; storage_bytes: Measure };
  [limit: string]: unknown;
}

/** The sub-tenant limits (spec §2) the Enterprise page edits; empty leaves a limit as it is. */
const SUB_TENANT_LIMITS = [
  ['max_documents', 'Max documents'],
  ['max_total_chunks', 'Max chunks'],
  ['max_knowledge_bases', 'Max knowledge bases'],
  ['included_queries_per_period', 'Queries per period'],
  ['query_rate_limit_per_min', 'Queries per minute'],
  ['storage_quota_bytes', 'Storage (bytes)'],
] as const;

export function enterprisePage(viewer: Viewer, subTenants: SubTenantView[] | undefined, settings: { translation_config: unknown } | undefined): string {
  const note = viewer.plan !== 'enterprise' ? html`<p class="notice">Sub-tenants and translation settings come with the Enterprise plan.</p>` : roleNote(viewer, 'admin', 'manage sub-tenants');
  return page(
    'Enterprise',
    note ??
      html`<section class="card"><h2>Create a sub-tenant</h2>${apiForm(
        'POST /v1/sub-tenants',
        html`<div class="inline"><div><label for="st-name">Name</label><input id="st-name" name="name" required maxlength="200"></div>
<div><label for="st-external">External id (optional)</label><input id="st-external" name="external_id" maxlength="200"></div>
<div><label for="st-docs">Max documents</label><input id="st-docs" name="max_documents" type="number" min="0"></div>
<div><label for="st-chunks">Max chunks</label><input id="st-chunks" name="max_total_chunks" type="number" min="0"></div>
<button type="submit">Create</button></div>`,
      )}</section>
<h2>Sub-tenants</h2>
<div class="table-wrap"><table><thead><tr><th>Name</th><th>Documents</th><th>Chunks</th><th class="hide-small">Queries this period</th><th>Key</th><th>Limits</th><th></th></tr></thead><tbody>
${(subTenants ?? []).map(
  (s) => html`<tr><td>${s.name}${s.external_id ? html`<br><span class="muted">${s.external_id}</span>` : ''}</td>
<td>${count(s.usage.documents.used)} / ${count(s.usage.documents.limit)}</td><td>${count(s.usage.chunks.used)} / ${count(s.usage.chunks.limit)}</td>
<td class="hide-small">${count(s.usage.queries_this_period.used)} / ${count(s.usage.queries_this_period.limit)}</td>
<td>${apiForm(
    'POST /v1/sub-tenants/{id}/api-keys',
    html`<input type="hidden" name="id" value="${s.id}"><input type="hidden" name="name" value="Portal key"><select name="role" aria-label="Role of the new key for ${s.name}">${ROLES.map((r) => html`<option value="${r}">${r}</option>`)}</select><button class="secondary" type="submit">New key</button><output></output>`,
    { then: 'key' },
  )}</td>
<td><details><summary>Limits</summary>${apiForm(
    'PATCH /v1/sub-tenants/{id}',
    html`<input type="hidden" name="id" value="${s.id}">${SUB_TENANT_LIMITS.map(
      ([name, label]) =>
        html`<label for="${name}-${s.id}">${label}</label><input id="${name}-${s.id}" name="${name}" type="number" min="0" value="${typeof s[name] === 'number' ? String(s[name]) : ''}" placeholder="tenant's limit">`,
    )}<button class="secondary" type="submit">Save limits</button>`,
  )}</details></td>
<td>${apiForm('DELETE /v1/sub-tenants/{id}', html`<input type="hidden" name="id" value="${s.id}"><button class="danger" type="submit" aria-label="Delete ${s.name}">Delete</button>`, {
    confirm: `Delete the sub-tenant "${s.name}" and all its data?`,
  })}</td></tr>`,
)}
</tbody></table></div>
<section class="card"><h2>Translation settings</h2><p class="muted">The tenant's default translation configuration (JSON, as in <code>PUT /v1/tenant/settings</code>).</p>
${apiForm(
  'PUT /v1/tenant/settings',
  html`<label for="translation">translation_config</label><textarea id="translation" name="translation_config" data-json>${JSON.stringify(settings?.translation_config ?? {}, null, 2)}</textarea><button type="submit">Save</button>`,
)}</section>`,
    { viewer, section: 'enterprise' },
  );
}

export function messagePage(title: string, text: string, viewer?: Viewer): string {
  return page(title, html`<p>${text}</p><p><a href="/portal">Back to the portal</a></p>`, { viewer, narrow: !viewer });
}
