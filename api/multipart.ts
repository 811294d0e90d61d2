import busboy from 'busboy';
import type { Request } from 'express';
import { AppError, ValidationError, errors } from '../core/errors.js';
import { decodeUtf8 } from '../core/shared/input.js';
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
 * Text parts and the file name must be text in their charset, UTF-8 unless the part declares another
 * (textOf): 422 naming the part otherwise, never U+FFFD in place of their bytes.
 */
export async function parseMultipart(req: Request, limits: MultipartLimits): Promise<ParsedMultipart> {
  const { fields, file, readings, fileNameReading } = await readParts(req, limits);
  for (const [name, value] of Object.entries(fields)) fields[name] = textOf(value, readings.get(name), name);
  if (file?.fileName) file.fileName = baseName(textOf(file.fileName, fileNameReading, `${limits.fileField}.filename`)) || null;
  return { fields, file };
}

/** The parts as busboy reads them, with the probe's readings of their text (see textOf). */
interface ReadParts extends ParsedMultipart {
  readings: Map<string, string | undefined>;
  fileNameReading: string | undefined;
}

function readParts(req: Request, limits: MultipartLimits): Promise<ReadParts> {
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
    let probe: busboy.Busboy;
    try {
      const options = {
        headers: req.headers,
        // Paths in file names are cut off once the name is decoded (baseName).
        preservePath: true,
        limits: { fileSize: limits.maxRequestBytes, fieldSize: limits.maxFieldBytes, ...PART_LIMITS },
      };
      bb = busboy({ ...options, defCharset: 'latin1', defParamCharset: 'latin1' });
      probe = busboy({ ...options, defCharset: 'base64', defParamCharset: 'base64' });
    } catch {
      reject(malformed('The multipart body could not be read (check the boundary in Content-Type).'));
      return;
    }
    const fields: Record<string, string> = {};
    const readings = new Map<string, string | undefined>();
    let file: UploadedFile | undefined;
    let fileNameReading: string | undefined;
    let fileSeen = false;
    let received = 0;
    let settled = false;
    let parsers = 2;
    const declaredTypes = partTypeScanner(req.headers['content-type'] ?? '');
    const fail = (err: AppError) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      req.unpipe(probe);
      req.resume();
      reject(err);
    };
    // Registered before the pipe to the parsers, so a part's headers are scanned before busboy announces the part.
    req.on('data', (chunk: Buffer) => {
      declaredTypes.push(chunk);
      received += chunk.length;
      if (received > limits.maxRequestBytes) fail(tooLarge(limits.maxRequestBytes));
    });
    req.on('error', () => fail(malformed('The request body could not be read.')));
    req.on('aborted', () => fail(malformed('The client closed the request before its body ended.')));
    // A part without a name (busboy gives undefined) is no field Lore reads.
    bb.on('field', (name: string | undefined, value, info) => {
      if (name === undefined) return;
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
    // The probe reads the same parts, names in base64; it only tells which text is raw bytes (see textOf).
    const nameOf = (base64: string | undefined) => (base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('latin1'));
    probe.on('field', (name: string | undefined, value) => {
      const plain = nameOf(name);
      if (plain !== undefined) readings.set(plain, value);
    });
    probe.on('file', (name: string | undefined, stream, info) => {
      stream.on('error', () => undefined);
      stream.resume();
      if (nameOf(name) === limits.fileField) fileNameReading ??= info.filename;
    });
    const tooMany = () => fail(malformed(`A request may have at most ${PART_LIMITS.fields} fields, ${PART_LIMITS.files} files and ${PART_LIMITS.parts} parts.`));
    bb.on('partsLimit', tooMany);
    bb.on('filesLimit', tooMany);
    bb.on('fieldsLimit', tooMany);
    for (const parser of [bb, probe]) {
      parser.on('error', () => fail(malformed('The multipart body is malformed or ends too early.')));
      parser.on('close', () => {
        if (settled || --parsers > 0) return;
        settled = true;
        resolve({ fields, file, readings, fileNameReading });
      });
      req.pipe(parser);
    }
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

/**
 * A text part or file name as UTF-8, refused (422 naming `field`) when it is not. busboy decodes a
 * part that declares its own charset (Content-Type charset, `filename*=`) by that charset, with
 * U+FFFD for bytes that are not text in it, and does not say which parts did. So parseMultipart
 * reads every part twice: undeclared text as Latin-1 (`value`, the bytes as they came) and as base64
 * (`reading`); a part that declares its charset reads the same both times.
 */
function textOf(value: string | undefined, reading: string | undefined, field: string): string {
  if (value === undefined) throw new ValidationError([{ field, message: 'declares a charset that is not known' }]);
  const bytes = Buffer.from(value, 'latin1');
  if (reading === bytes.toString('base64')) return decodeUtf8(bytes, field);
  // Decoded by its declared charset: a U+FFFD may stand for bytes that were not text, and cannot be told from one sent.
  if (value.includes('\uFFFD')) throw new ValidationError([{ field, message: 'holds U+FFFD, which marks bytes that are not text in the charset its part declares' }]);
  return value;
}

/** The file name without the path some clients send with it (as busboy would cut it, but after decoding). */
function baseName(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  return base === '.' || base === '..' ? '' : base;
}

function malformed(message: string): AppError {
  return errors.badRequest('invalid_multipart', message);
}

function tooLarge(limit: number): AppError {
  return errors.tooLarge('payload_too_large', `The request is larger than ${limit} bytes.`, { limit });
}
