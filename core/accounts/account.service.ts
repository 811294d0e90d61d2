import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { presentBillingStatus } from '../billing/billing.presenter.js';
import type { BillingService } from '../billing/billing.service.js';
import type { Clock } from '../clock.js';
import type { RequestContext } from '../context.js';
import { duaAcceptancesOfTenant } from '../corpora/corpus.repository.js';
import type { Database } from '../db/database.js';
import { presentDocument } from '../documents/document.presenter.js';
import { type DocumentRow, findDocument, findDocumentFile } from '../documents/document.repository.js';
import { presentPortalUser } from '../portal/portal-user.presenter.js';
import { listPortalUsers } from '../portal/portal.repository.js';
import { presentDpaAcceptance } from '../dpa/dpa.presenter.js';
import type { DpaService } from '../dpa/dpa.service.js';
import { AppError, errors } from '../errors.js';
import { ensureInstanceSecret } from '../instance/instance-secret.repository.js';
import { presentJob } from '../jobs/job.presenter.js';
import { presentApiKey } from '../keys/api-key.presenter.js';
import { listApiKeys } from '../keys/api-key.repository.js';
import { presentKnowledgeBase } from '../knowledge-bases/knowledge-base.presenter.js';
import { listKnowledgeBases } from '../knowledge-bases/knowledge-base.repository.js';
import type { VectorIndex } from '../ports/vector-index.js';
import { isUuid } from '../shared/ids.js';
import { type Scope, scopeOf } from '../shared/scope.js';
import { presentTenant } from '../tenants/tenant.presenter.js';
import { findTenant } from '../tenants/tenant.repository.js';
import { monthlyHistory } from '../usage/usage.repository.js';
import { deleteTenant, documentEntriesOfTenant, documentIdsOfTenant, exportOwner, insertExport, publicJobsOfTenant, usageEventsOfTenant } from './account.repository.js';

/** Spec §8: an export download link is valid for 86400 seconds. */
export const EXPORT_LINK_SECONDS = 86_400;
export const DELETE_CONFIRMATION = 'DELETE_MY_ACCOUNT';
const SIGNING_SECRET = 'export-link-signing';

/** Account export (a signed link to a ZIP of all the tenant's data) and account deletion. */
export class AccountService {
  constructor(
    private readonly db: Database,
    private readonly billing: BillingService,
    private readonly dpa: DpaService,
    private readonly clock: Clock,
    private readonly vectors: VectorIndex,
  ) {}

  private signingSecret(): Promise<Buffer> {
    return ensureInstanceSecret(this.db, SIGNING_SECRET, randomBytes(32));
  }

  private async sign(id: string, expires: number): Promise<string> {
    return createHmac('sha256', await this.signingSecret()).update(`${id}.${expires}`).digest('base64url');
  }

  private async documents(scope: Scope): Promise<DocumentRow[]> {
    const docs: DocumentRow[] = [];
    for (const id of await documentIdsOfTenant(this.db, scope)) {
      const doc = await findDocument(this.db, scope, id);
      if (doc) docs.push(doc);
    }
    return docs;
  }

  /** The account as the export presents it: the tenant with its billing, DPA and corpus agreements. */
  private async accountRecord(scope: Scope) {
    const tenant = await findTenant(this.db, scope);
    if (!tenant) throw errors.notFound('account');
    return {
      ...presentTenant(tenant),
      billing: presentBillingStatus(await this.billing.status(scope)),
      dpa: { ...(await this.dpa.status(scope)), acceptances: (await this.dpa.acceptances(scope)).map(presentDpaAcceptance) },
      corpus_dua_acceptances: (await duaAcceptancesOfTenant(this.db, scope)).map((a) => ({
        ...a,
        accepted_at: a.accepted_at.toISOString(),
      })),
    };
  }

  /** POST /v1/account/export: a summary now, and a signed link to the complete archive. */
  async export(ctx: RequestContext, baseUrl: string) {
    const expiresAt = new Date(this.clock.now().getTime() + EXPORT_LINK_SECONDS * 1000);
    const scope = scopeOf(ctx);
    const id = await insertExport(this.db, scope, expiresAt);
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const signature = await this.sign(id, expires);
    return {
      download_url: `${baseUrl}/v1/account/exports/${id}?expires=${expires}&signature=${signature}`,
      expires_in_seconds: EXPORT_LINK_SECONDS,
      account: await this.accountRecord(scope),
      knowledge_bases: (await listKnowledgeBases(this.db, scope)).map(presentKnowledgeBase),
      documents: (await this.documents(scope)).map(presentDocument),
      usage_history: await monthlyHistory(this.db, scope),
    };
  }

  /**
   * Checks a download link (signature, expiry, the export still existing) and streams the archive:
   * account.json, api_keys.json, portal_users.json, knowledge_bases.json, documents/<id>.json (with content),
   * files/<id>/<name> (original uploads), jobs.json, usage_history.json, usage_events.json.
   */
  async openDownload(id: string, expiresParam: string, signature: string): Promise<{ fileName: string; stream: Readable }> {
    const expires = Number(expiresParam);
    if (!isUuid(id) || !Number.isInteger(expires) || !signature) throw errors.notFound('export');
    const expected = Buffer.from(await this.sign(id, expires));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw errors.forbidden('invalid_signature', 'The download link is not valid.');
    }
    if (this.clock.now().getTime() > expires * 1000) {
      throw new AppError(410, 'export_link_expired', 'The download link has expired; request a new export.');
    }
    const owner = await exportOwner(this.db, id);
    if (!owner) throw errors.notFound('export');
    const zip = new yazl.ZipFile();
    const stream = zip.outputStream as unknown as Readable;
    // A failure while the archive is written (a lazy entry's read, yazl itself) ends the download
    // with an error; it must never reach the process as an unhandled 'error' event.
    zip.on('error', (err: Error) => stream.destroy(err));
    void this.fillArchive(zip, owner).catch((err: unknown) => stream.destroy(err as Error));
    return { fileName: `lore-export-${owner.tenantId}.zip`, stream };
  }

  /**
   * Documents and files are added as lazy entries: yazl asks for an entry's bytes only when the
   * archive reaches it, and the response's back-pressure holds it there, so the process holds one
   * document at a time, not the account.
   */
  private async fillArchive(zip: yazl.ZipFile, scope: Scope): Promise<void> {
    const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2));
    const lazy = (path: string, bytes: () => Promise<Buffer>) =>
      zip.addReadStreamLazy(path, (callback) => {
        bytes().then(
          (buffer) => callback(null, Readable.from([buffer])),
          (err: unknown) => callback(err, Readable.from([])),
        );
      });
    zip.addBuffer(json(await this.accountRecord(scope)), 'account.json');
    zip.addBuffer(json((await listApiKeys(this.db, scope)).map(presentApiKey)), 'api_keys.json');
    zip.addBuffer(json((await listPortalUsers(this.db, scope)).map(presentPortalUser)), 'portal_users.json');
    zip.addBuffer(json((await listKnowledgeBases(this.db, scope)).map(presentKnowledgeBase)), 'knowledge_bases.json');
    for (const doc of await documentEntriesOfTenant(this.db, scope)) {
      lazy(`documents/${doc.id}.json`, async () => {
        const full = await findDocument(this.db, scope, doc.id, true);
        // Deleted after the archive was begun: the entry says so rather than vanishing.
        return json(full ? presentDocument(full) : { id: doc.id, deleted_during_export: true });
      });
      if (doc.has_file) {
        lazy(`files/${doc.id}/${(doc.file_name ?? 'original').replace(/[/\\]/g, '_')}`, async () =>
          (await findDocumentFile(this.db, scope, doc.id))?.data ?? Buffer.alloc(0),
        );
      }
    }
    zip.addBuffer(json((await publicJobsOfTenant(this.db, scope)).map((job) => presentJob(job))), 'jobs.json');
    zip.addBuffer(json(await monthlyHistory(this.db, scope)), 'usage_history.json');
    zip.addBuffer(json(await usageEventsOfTenant(this.db, scope)), 'usage_events.json');
    zip.end();
  }

  /**
   * DELETE /v1/account: removes the tenant and, through cascading foreign keys, every row that
   * belongs to it (keys, knowledge bases, documents, files, chunks and their vectors, jobs, usage,
   * DPA records, exports, sub-tenants, OAuth clients), and its rate-limit counters. A job running
   * for it loses its lease and stops.
   */
  async delete(ctx: RequestContext, confirmation: string | undefined): Promise<{ status: 'deleted' }> {
    if (confirmation !== DELETE_CONFIRMATION) {
      throw errors.badRequest('confirmation_required', `Send the header X-Confirm-Delete: ${DELETE_CONFIRMATION} to delete the account.`);
    }
    await this.remove(scopeOf(ctx));
    return { status: 'deleted' };
  }

  /** Removes the tenant and all its data (the account deletion, also the Kubernetes operator's). */
  async remove(scope: Scope): Promise<void> {
    await this.db.transaction((tx) => deleteTenant(tx, scope));
    await this.vectors.tenantRemoved({ tenantId: scope.tenantId });
  }
}
