import { anonymize } from '../anonymization/anonymizer.js';
import type { Database } from '../db/database.js';
import { ValidationError, errors } from '../errors.js';
import { type ChunkingOptions, chunkText } from '../ingestion/chunker.js';
import type { KnowledgeBaseService } from '../knowledge-bases/knowledge-base.service.js';
import type { VectorIndex } from '../ports/vector-index.js';
import type { WorkflowEngine } from '../ports/workflow-engine.js';
import type { QuotaService } from '../quotas/quota.service.js';
import { isUuid } from '../shared/ids.js';
import { assertStorableText } from '../shared/input.js';
import type { Scope } from '../shared/scope.js';
import {
  type DocumentRow,
  deleteDocument,
  findDocument,
  findDocumentFile,
  insertDocument,
  insertDocumentFile,
  listDocumentsOfKnowledgeBase,
} from './document.repository.js';
import { type IngestDocumentInput, MAX_CONTENT_BYTES, type UploadMetadata, uploadMetadataSchema } from './document.schema.js';
import type { PdfExtractor } from './pdf-extractor.js';

/** An uploaded file as the HTTP layer received it. */
export interface UploadedFile {
  data: Buffer;
  /** The part's declared media type, without parameters. */
  contentType: string;
  fileName: string | null;
}

export const SUPPORTED_UPLOAD_TYPES = ['text/plain', 'application/pdf'] as const;

/** A stored document and the job that indexes it. */
export interface StoredDocument {
  jobId: string;
  documentId: string;
}

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
    private readonly quotas: QuotaService,
    private readonly options: DocumentServiceOptions,
  ) {}

  /** POST /v1/documents: stores the document and queues its indexing; returns the job id. */
  async ingest(scope: Scope, input: IngestDocumentInput): Promise<StoredDocument> {
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
  async upload(scope: Scope, rawMetadata: string | undefined, file: UploadedFile | undefined): Promise<StoredDocument> {
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
  private async store(doc: PreparedDocument): Promise<StoredDocument> {
    const { scope } = doc;
    const kb = await this.visibleKnowledgeBase(scope, doc.knowledgeBaseId);
    const { tenant, limits } = await this.quotas.limits(scope);
    const anonymized = doc.anonymize ?? tenant.anonymize_default;
    const content = anonymized ? anonymize(doc.content).text : doc.content;
    const contentBytes = Buffer.byteLength(content, 'utf8');
    this.quotas.checkDocumentSize(limits, contentBytes);
    const chunkCount = chunkText(content, this.options.chunking).length;
    const fileBytes = doc.file?.data.length ?? 0;

    const stored = await this.db.transaction(async (tx) => {
      // The plan as it is now, under the lock (it may have changed since the early check).
      const locked = await this.quotas.lockedTenant(tx, scope);
      await this.quotas.checkNewDocument(tx, scope, locked.limits, kb.sub_tenant_id, {
        contentBytes,
        storageBytes: contentBytes + fileBytes,
        chunks: chunkCount,
      });
      const owner = { tenantId: scope.tenantId, subTenantId: kb.sub_tenant_id };
      const inserted = await insertDocument(tx, owner, {
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
        await insertDocumentFile(tx, owner, { documentId: inserted.id, contentType: doc.file.contentType, fileName: doc.file.fileName, data: doc.file.data });
      }
      const jobId = await this.engine.enqueue(tx, {
        type: 'ingestion',
        tenantId: scope.tenantId,
        subTenantId: kb.sub_tenant_id,
        documentId: inserted.id,
        knowledgeBaseId: kb.id,
        totalChunks: chunkCount,
        payload: { chunking: this.options.chunking },
      });
      return { jobId: jobId!, documentId: inserted.id };
    });
    this.engine.notify();
    return stored;
  }

  /** The document with its text, if the scope can see it; 404 otherwise. */
  async get(scope: Scope, id: string): Promise<DocumentRow> {
    const doc = isUuid(id) ? await findDocument(this.db, scope, id, true) : undefined;
    if (!doc) throw errors.notFound('document');
    return doc;
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
  async listOfKnowledgeBase(scope: Scope, knowledgeBaseId: string): Promise<DocumentRow[]> {
    const kb = await this.knowledgeBases.get(scope, knowledgeBaseId);
    return listDocumentsOfKnowledgeBase(this.db, scope, kb.id);
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
 * is dropped), else Windows-1252, the usual legacy encoding (which gives every byte a character).
 * The text then keeps the rule for all text Lore receives: a UTF-16 file that is not valid UTF-16
 * (an odd byte, an unpaired surrogate), or one holding NUL, is refused with 422, not silently altered.
 */
function decodeText(data: Buffer): string {
  const bom = data.subarray(0, 2).toString('hex');
  let text: string;
  if (bom === 'fffe' || bom === 'feff') {
    try {
      text = new TextDecoder(bom === 'fffe' ? 'utf-16le' : 'utf-16be', { fatal: true }).decode(data);
    } catch {
      throw new ValidationError([{ field: 'file', message: 'must be valid UTF-16, as its byte-order mark says (it holds an odd byte or an unpaired surrogate)' }]);
    }
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
