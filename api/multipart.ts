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

const PART_LIMITS = { files: 5, fields: 20, parts: 30 };

/**
 * Streams a multipart/form-data request through busboy: the file part is collected only up to
 * the request limit (the moment the limit is passed the request is refused with 413, without
 * reading the rest), other file parts are drained and ignored, and text fields are capped.
 *
 * Every stream involved (the request, busboy, each file part) has its errors handled here: a body
 * that ends early, breaks the multipart syntax, or is cut off by the client settles the promise
 * with a 4xx, never an unhandled 'error' event. A part named twice is refused rather than guessed at.
 */
export function parseMultipart(req: Request, limits: MultipartLimits): Promise<ParsedMultipart> {
  // A refused body is still read and dropped, so the client, still sending, gets the answer
  // instead of a reset connection.
  const refuse = (err: AppError) => {
    req.resume();
    return Promise.reject(err);
  };
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limits.maxRequestBytes) return refuse(tooLarge(limits.maxRequestBytes));
  if (!req.is('multipart/form-data')) {
    return refuse(new AppError(415, 'unsupported_media_type', 'The request must be multipart/form-data.'));
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { fileSize: limits.maxRequestBytes, fieldSize: limits.maxFieldBytes, ...PART_LIMITS },
      });
    } catch {
      reject(malformed('The multipart body could not be read (check the boundary in Content-Type).'));
      return;
    }
    const fields: Record<string, string> = {};
    let file: UploadedFile | undefined;
    let fileSeen = false;
    let received = 0;
    let settled = false;
    const declaredTypes = partTypeScanner(req.headers['content-type'] ?? '');
    const fail = (err: AppError) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      req.resume();
      reject(err);
    };
    // Registered before the pipe to busboy, so a part's headers are scanned before busboy announces the part.
    req.on('data', (chunk: Buffer) => {
      declaredTypes.push(chunk);
      received += chunk.length;
      if (received > limits.maxRequestBytes) fail(tooLarge(limits.maxRequestBytes));
    });
    req.on('error', () => fail(malformed('The request body could not be read.')));
    req.on('aborted', () => fail(malformed('The client closed the request before its body ended.')));
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(errors.badRequest('invalid_metadata', `The "${name}" part is too long.`));
      else if (Object.hasOwn(fields, name)) fail(malformed(`The part "${name}" appears more than once.`));
      else fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      // A failing part stream fails the request; its error must never go unhandled.
      stream.on('error', () => fail(malformed('The multipart body ended inside a part, or a part is malformed.')));
      if (name !== limits.fileField) {
        stream.resume();
        return;
      }
      if (fileSeen) {
        stream.resume();
        fail(malformed(`The part "${name}" appears more than once.`));
        return;
      }
      fileSeen = true;
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => parts.push(c));
      stream.on('limit', () => fail(tooLarge(limits.maxRequestBytes)));
      stream.on('end', () => {
        if (stream.truncated) return;
        file = {
          data: Buffer.concat(parts),
          contentType: declaredTypes.declares(name) ? (info.mimeType || '').split(';')[0]!.trim().toLowerCase() : '',
          fileName: info.filename || null,
        };
      });
    });
    const tooMany = () => fail(malformed(`A request may have at most ${PART_LIMITS.fields} fields, ${PART_LIMITS.files} files and ${PART_LIMITS.parts} parts.`));
    bb.on('partsLimit', tooMany);
    bb.on('filesLimit', tooMany);
    bb.on('fieldsLimit', tooMany);
    bb.on('error', () => fail(malformed('The multipart body is malformed or ends too early.')));
    bb.on('close', () => {
      if (settled) return;
      settled = true;
      resolve({ fields, file });
    });
    req.pipe(bb);
  });
}

/** Longest header block of a part that is scanned (busboy's own limit). */
const MAX_PART_HEADER_BYTES = 16 * 1024;

/**
 * Tells whether a part declared a Content-Type. busboy reports a part without one as text/plain
 * (RFC 7578's default), but a file sent without a type (as Python's requests sends one) is an
 * untyped file, whose name and content tell what it is, so the raw body's part headers are read
 * here as they stream past. Parts it cannot read (another boundary than busboy's, broken headers)
 * count as declaring one, so busboy's reading stands.
 */
function partTypeScanner(contentType: string) {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  // A delimiter is CRLF, two dashes and the boundary; the body's first needs no CRLF before it.
  const delimiter = boundary ? Buffer.from(`\r\n--${boundary[1] ?? boundary[2]}`) : undefined;
  const untyped = new Set<string>();
  let pending: Buffer = Buffer.from('\r\n');
  let inHeaders = false;
  let done = !delimiter;
  const readHeaders = (block: string) => {
    const name = /^content-disposition:[^\r\n]*;\s*name="([^"]*)"/im.exec(block)?.[1];
    if (name !== undefined && !/^content-type:/im.test(block)) untyped.add(name);
  };
  return {
    push(chunk: Buffer): void {
      if (done) return;
      let buffer = Buffer.concat([pending, chunk]);
      for (;;) {
        if (inHeaders) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) {
            if (buffer.length > MAX_PART_HEADER_BYTES) done = true;
            pending = buffer;
            return;
          }
          readHeaders(buffer.subarray(0, end).toString('latin1'));
          buffer = buffer.subarray(end + 4);
          inHeaders = false;
        }
        const at = buffer.indexOf(delimiter!);
        if (at < 0) {
          // Keep what could be the start of a delimiter cut by the chunk's end.
          pending = Buffer.from(buffer.subarray(Math.max(0, buffer.length - delimiter!.length + 1)));
          return;
        }
        buffer = buffer.subarray(at + delimiter!.length);
        inHeaders = true;
      }
    },
    declares(name: string): boolean {
      return !untyped.has(name);
    },
  };
}

function malformed(message: string): AppError {
  return errors.badRequest('invalid_multipart', message);
}

function tooLarge(limit: number): AppError {
  return errors.tooLarge('payload_too_large', `The request is larger than ${limit} bytes.`, { limit });
}
