import busboy from 'busboy';
import type { Request } from 'express';
import { AppError, errors } from '../core/errors.js';
import type { UploadedFile } from '../core/documents/document.service.js';

export interface MultipartLimits {
  /** Whole request body, in bytes. */
  maxRequestBytes: number;
  fileField: string;
  maxFieldBytes: number;
}

export interface ParsedMultipart {
  fields: Record<string, string>;
  file: UploadedFile | undefined;
}

/**
 * Streams a multipart/form-data request through busboy: the file part is collected only up to
 * the request limit (the moment the limit is passed the request is refused with 413, without
 * reading the rest), other file parts are drained and ignored, and text fields are capped.
 */
export function parseMultipart(req: Request, limits: MultipartLimits): Promise<ParsedMultipart> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limits.maxRequestBytes) {
    return Promise.reject(tooLarge(limits.maxRequestBytes));
  }
  if (!req.is('multipart/form-data')) {
    return Promise.reject(new AppError(415, 'unsupported_media_type', 'The request must be multipart/form-data.'));
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { fileSize: limits.maxRequestBytes, fieldSize: limits.maxFieldBytes, files: 5, fields: 20, parts: 30 },
      });
    } catch {
      reject(errors.badRequest('invalid_multipart', 'The multipart body could not be read.'));
      return;
    }
    const fields: Record<string, string> = {};
    let file: UploadedFile | undefined;
    let received = 0;
    let failed = false;
    const fail = (err: AppError) => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.resume();
      reject(err);
    };
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.maxRequestBytes) fail(tooLarge(limits.maxRequestBytes));
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(errors.badRequest('invalid_metadata', `The "${name}" part is too long.`));
      else fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== limits.fileField || file) {
        stream.resume();
        return;
      }
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => parts.push(c));
      stream.on('limit', () => fail(tooLarge(limits.maxRequestBytes)));
      stream.on('end', () => {
        file = {
          data: Buffer.concat(parts),
          contentType: (info.mimeType || '').split(';')[0]!.trim().toLowerCase(),
          fileName: info.filename || null,
        };
      });
    });
    bb.on('error', () => fail(errors.badRequest('invalid_multipart', 'The multipart body is malformed.')));
    bb.on('close', () => {
      if (!failed) resolve({ fields, file });
    });
    req.pipe(bb);
  });
}

function tooLarge(limit: number): AppError {
  return errors.tooLarge('payload_too_large', `The request is larger than ${limit} bytes.`, { limit });
}
