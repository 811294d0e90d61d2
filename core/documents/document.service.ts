import type { VectorIndex } from '../ports/vector-index.js';
import { anonymize } from '../anonymization/anonymizer.js';
import type { Database, Queryable } from '../db/database.js';
import { AppError, errors } from '../errors.js';
import { type ChunkingOptions, chunkText } from '../ingestion/chunker.js';
import type { KnowledgeBaseService } from '../knowledge-bases/knowledge-base.service.js';
import { limitsFor } from '../plans.js';
import type { WorkflowEngine } from '../ports/workflow-engine.js';
import { isUuid } from '../shared/ids.js';
import { assertStorableText } from '../shared/input.js';
import type { Scope } from '../shared/scope.js';
import { subTenantLimits } from '../sub-tenants/sub-tenant-limits.js';
import { findTenant, lockTenant } from '../tenants/tenant.repository.js';
import {
  type DocumentRow,
  deleteDocument,
  findDocument,
  findDocumentFile,
  insertDocument,
  insertDocumentFile,
  listDocumentsOfKnowledgeBase,
  storageUsage,
} from './document.repository.js';
import {
  type DocumentSummary,
  type DocumentView,
  type IngestDocumentInput,
  MAX_CONTENT_BYTES,
  type UploadMetadata,
  uploadMetadataSchema,
} from './document.schema.js';
import type { PdfExtractor } from './pdf-extractor.js';

export function presentDocument(d: DocumentRow): DocumentSummary & { content?: string } {
  return {
    id: d.id,
    knowledge_base_id: d.knowledge_base_id,
    sub_tenant_id: d.sub_tenant_id,
    title: d.title,
    tags: d.tags,
    status: d.status,
    language: d.language,
    anonymized: d.anonymized,
    source: d.source,
    content_bytes: d.content_bytes,
    chunk_count: d.chunk_count,
    file: d.file_content_type
      ? { content_type: d.file_content_type, file_name: d.file_name, size_bytes: d.file_bytes }
      : null,
    error: d.error,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    ...(d.content !== undefined ? { content: d.content } : {}),
  };
}

/** An uploaded file as the HTTP layer received it. */
export interface UploadedFile {
  data: Buffer;
  /** The part's declared media type, without parameters. */
  contentType: string;
  fileName: string | null;
}

export const SUPPORTED_UPLOAD_TYPES = ['text/plain', 'application/pdf'] as const;

export interface DocumentServiceOptions {
  chunking: ChunkingOptions;
  pdfTimeoutMs: number;
}

interface PreparedDocument {
  scope: Scope;
  knowledgeBaseId: string;
  title: string;
  content: string;
  tags: Record<string, string>;
  anonymize: boolean | undefined;
  file?: UploadedFile;
}

export class DocumentService {
  constructor(
    private readonly db: Database,
    private readonly knowledgeBases: KnowledgeBaseService,
    private readonly engine: WorkflowEngine,
    private readonly pdf: PdfExtractor,
    private readonly vectors: VectorIndex,
    private readonly options: DocumentServiceOptions,
  ) {}

  /** POST /v1/documents: stores the document and queues its indexing; returns the job id. */
  async ingest(scope: Scope, input: IngestDocumentInput): Promise<{ job_id: string; document_id: string }> {
    return this.store({
      scope,
      knowledgeBaseId: input.knowledge_base_id,
      title: input.title,
      content: input.content,
      tags: input.tags ?? {},
      anonymize: input.anonymize,
    });
  }

  /** POST /v1/documents/upload: extracts the text of a text or PDF file, then as `ingest`. */
  async upload(scope: Scope, rawMetadata: string | undefined, file: UploadedFile | undefined): Promise<{ job_id: string; document_id: string }> {
    if (!file) throw errors.badRequest('missing_file', 'The multipart part "file" is required.');
    const metadata = parseUploadMetadata(rawMetadata);
    assertStorableText(file.fileName, 'file.filename');
    if (!(SUPPORTED_UPLOAD_TYPES as readonly string[]).includes(file.contentType)) {
      throw errors.unprocessable(
        'unsupported_file_type',
        `Files of type ${file.contentType || 'unknown'} are not supported; upload text/plain or application/pdf.`,
        [{ field: 'file.content_type', message: 'must be text/plain or application/pdf' }],
      );
    }
    // The knowledge base is checked before the (possibly slow) extraction.
    await this.visibleKnowledgeBase(scope, metadata.knowledge_base_id);
    const content = file.contentType === 'application/pdf' ? await this.pdfText(file.data) : decodeText(file.data);
    if (Buffer.byteLength(content, 'utf8') > MAX_CONTENT_BYTES) {
      throw errors.unprocessable('content_too_large', 'The extracted text is larger than 10 MB.', [{ field: 'file', message: 'its text is larger than 10 MB' }], {
        limit: MAX_CONTENT_BYTES,
      });
    }
    if (!content.trim()) throw errors.unprocessable('empty_document', 'The file contains no text.', [{ field: 'file', message: 'contains no text' }]);
    return this.store({
      scope,
      knowledgeBaseId: metadata.knowledge_base_id,
      title: metadata.title ?? titleFromFileName(file.fileName),
      content,
      tags: metadata.tags ?? {},
      anonymize: metadata.anonymize,
      file,
    });
  }

  private async pdfText(data: Buffer): Promise<string> {
    if (data.subarray(0, 5).toString('latin1') !== '%PDF-') {
      throw errors.unprocessable('pdf_extraction_failed', 'The file is not a valid PDF.', [{ field: 'file', message: 'is not a PDF' }]);
    }
    return (await this.pdf.extract(data, { timeoutMs: this.options.pdfTimeoutMs })).text;
  }

  private async visibleKnowledgeBase(scope: Scope, id: string) {
    if (!isUuid(id)) {
      throw errors.badRequest('invalid_knowledge_base_id', 'knowledge_base_id must be the UUID of a knowledge base.');
    }
    return this.knowledgeBases.get(scope, id);
  }

  /**
   * Checks every quota and writes the document, its file and its indexing job in one transaction
   * under the tenant's row lock, so concurrent ingests cannot together pass a limit.
   */
  private async store(doc: PreparedDocument): Promise<{ job_id: string; document_id: string }> {
    const kb = await this.visibleKnowledgeBase(doc.scope, doc.knowledgeBaseId);
    const tenant = await findTenant(this.db, doc.scope.tenantId);
    if (!tenant) throw errors.notFound('tenant');
    const anonymized = doc.anonymize ?? tenant.anonymize_default;
    const content = anonymized ? anonymize(doc.content).text : doc.content;
    const contentBytes = Buffer.byteLength(content, 'utf8');
    const limits = limitsFor(tenant.plan, tenant.limit_overrides);
    const maxBytes = Math.min(MAX_CONTENT_BYTES, limits.maxDocumentSizeBytes);
    if (contentBytes > maxBytes) {
      throw errors.tooLarge('document_too_large', `The document is larger than the ${maxBytes} bytes allowed.`, {
        limit: maxBytes,
        size: contentBytes,
      });
    }
    const chunkCount = chunkText(content, this.options.chunking).length;
    const fileBytes = doc.file?.data.length ?? 0;

    const result = await this.db.transaction(async (tx) => {
      const locked = await lockTenant(tx, doc.scope.tenantId);
      if (!locked) throw errors.notFound('tenant');
      const newBytes = contentBytes + fileBytes;
      if (kb.sub_tenant_id) {
        await this.checkSubTenantQuotas(tx, doc.scope.tenantId, kb.sub_tenant_id, { contentBytes, newBytes, chunkCount });
      }
      const current = limitsFor(locked.plan, locked.limit_overrides);
      const used = await storageUsage(tx, { tenantId: doc.scope.tenantId, subTenantId: null });
      if (used.documents + 1 > current.maxDocuments) {
        throw errors.paymentRequired('document_limit_reached', `The plan allows ${current.maxDocuments} documents.`, {
          limit: current.maxDocuments,
          current: used.documents,
        });
      }
      if (used.storageBytes + newBytes > current.storageBytes) {
        throw errors.tooLarge('storage_quota_exceeded', 'The storage quota would be exceeded.', {
          limit: current.storageBytes,
          current: used.storageBytes,
        });
      }
      if (used.chunks + chunkCount > current.maxChunks) {
        const extra = { limit: current.maxChunks, current: used.chunks, requested: chunkCount };
        // A sub-tenant's document finds the pool of chunks shared by all sub-tenants exhausted.
        throw kb.sub_tenant_id
          ? new AppError(429, 'tenant_pool_quota_exceeded', "The tenant's pool of chunks, shared by its sub-tenants, is exhausted.", extra)
          : errors.paymentRequired('chunk_quota_exceeded', `The plan allows ${current.maxChunks} chunks.`, extra);
      }
      const inserted = await insertDocument(tx, {
        tenantId: doc.scope.tenantId,
        subTenantId: kb.sub_tenant_id,
        knowledgeBaseId: kb.id,
        title: doc.title,
        content,
        contentBytes,
        tags: doc.tags,
        anonymized,
        source: doc.file ? 'upload' : 'text',
        fileBytes,
        chunkCount,
      });
      if (doc.file) {
        await insertDocumentFile(tx, {
          documentId: inserted.id,
          tenantId: doc.scope.tenantId,
          contentType: doc.file.contentType,
          fileName: doc.file.fileName,
          data: doc.file.data,
        });
      }
      const jobId = await this.engine.enqueue(tx, {
        type: 'ingestion',
        tenantId: doc.scope.tenantId,
        subTenantId: kb.sub_tenant_id,
        documentId: inserted.id,
        knowledgeBaseId: kb.id,
        totalChunks: chunkCount,
        payload: { chunking: this.options.chunking },
      });
      return { job_id: jobId!, document_id: inserted.id };
    });
    this.engine.notify();
    return result;
  }

  /** A sub-tenant's own limits, checked before the parent's (both must hold). */
  private async checkSubTenantQuotas(
    tx: Queryable,
    tenantId: string,
    subTenantId: string,
    doc: { contentBytes: number; newBytes: number; chunkCount: number },
  ): Promise<void> {
    const limits = await subTenantLimits(tx, tenantId, subTenantId);
    if (!limits) throw errors.notFound('sub-tenant');
    const scope = { scope: 'sub_tenant' };
    if (limits.max_document_size_bytes !== null && doc.contentBytes > limits.max_document_size_bytes) {
      throw errors.tooLarge('document_too_large', `The sub-tenant allows documents of ${limits.max_document_size_bytes} bytes.`, {
        limit: limits.max_document_size_bytes,
        size: doc.contentBytes,
        ...scope,
      });
    }
    const used = await storageUsage(tx, { tenantId, subTenantId });
    if (limits.max_documents !== null && used.documents + 1 > limits.max_documents) {
      throw errors.forbidden('sub_tenant_document_limit_reached', `The sub-tenant allows ${limits.max_documents} documents.`, {
        limit: limits.max_documents,
        current: used.documents,
      });
    }
    if (limits.storage_quota_bytes !== null && used.storageBytes + doc.newBytes > limits.storage_quota_bytes) {
      throw errors.tooLarge('sub_tenant_storage_quota_exceeded', "The sub-tenant's storage quota would be exceeded.", {
        current: used.storageBytes,
        limit: limits.storage_quota_bytes,
      });
    }
    if (limits.max_total_chunks !== null && used.chunks + doc.chunkCount > limits.max_total_chunks) {
      throw new AppError(429, 'sub_tenant_chunk_quota_exceeded', `The sub-tenant allows ${limits.max_total_chunks} chunks.`, {
        limit: limits.max_total_chunks,
        current: used.chunks,
        requested: doc.chunkCount,
      });
    }
  }

  async get(scope: Scope, id: string): Promise<DocumentView> {
    const doc = isUuid(id) ? await findDocument(this.db, scope, id, true) : undefined;
    if (!doc) throw errors.notFound('document');
    return presentDocument(doc) as DocumentView;
  }

  async download(scope: Scope, id: string): Promise<{ contentType: string; fileName: string | null; data: Buffer }> {
    const file = isUuid(id) ? await findDocumentFile(this.db, scope, id) : undefined;
    if (!file) throw errors.notFound('stored file');
    return { contentType: file.content_type, fileName: file.file_name, data: file.data };
  }

  /** Deletes the document, its chunks (vectors and keyword index rows) and its file; frees its quota. */
  async delete(scope: Scope, id: string): Promise<void> {
    if (!isUuid(id) || !(await deleteDocument(this.db, scope, id))) throw errors.notFound('document');
    await this.vectors.documentsRemoved([id]);
  }

  /** Documents of a knowledge base the scope can see; 404 when it cannot. */
  async listOfKnowledgeBase(scope: Scope, knowledgeBaseId: string): Promise<DocumentSummary[]> {
    const kb = await this.knowledgeBases.get(scope, knowledgeBaseId);
    return (await listDocumentsOfKnowledgeBase(this.db, scope, kb.id)).map(presentDocument);
  }
}

function parseUploadMetadata(raw: string | undefined): UploadMetadata {
  if (raw === undefined) throw errors.badRequest('invalid_metadata', 'The multipart part "metadata" is required.');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw errors.badRequest('invalid_metadata', 'The "metadata" part must be a JSON object.');
  }
  assertStorableText(json, 'metadata');
  const parsed = uploadMetadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw errors.badRequest('invalid_metadata', `Invalid metadata: ${issue?.path.join('.') || 'metadata'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/**
 * A text file's characters: UTF-16 when it starts with a UTF-16 byte-order mark, else UTF-8 (a BOM
 * is dropped), else Windows-1252, the usual legacy encoding. The text then keeps the rule for all
 * text Lore receives (no NUL): a file that breaks it is refused with 422, not silently altered.
 */
function decodeText(data: Buffer): string {
  const bom = data.subarray(0, 2).toString('hex');
  let text: string;
  if (bom === 'fffe' || bom === 'feff') {
    text = new TextDecoder(bom === 'fffe' ? 'utf-16le' : 'utf-16be').decode(data);
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(data);
    } catch {
      text = new TextDecoder('windows-1252').decode(data);
    }
  }
  assertStorableText(text, 'file');
  return text;
}

function titleFromFileName(fileName: string | null): string {
  const base = (fileName ?? '').replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '').trim();
  return (base || 'Untitled').slice(0, 500);
}
