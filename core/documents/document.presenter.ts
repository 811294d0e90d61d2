import type { DocumentRow } from './document.repository.js';
import type { DocumentSummary } from './document.schema.js';

/** A document as the API shows it: its summary, and its text when the row holds it. */
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

/** 202 of an ingest or upload: the job to poll, and the document it indexes. */
export function presentStoredDocument(stored: { jobId: string; documentId: string }) {
  return { job_id: stored.jobId, document_id: stored.documentId };
}
