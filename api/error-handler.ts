import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, ValidationError } from '../core/errors.js';
import { NOT_UTF8 } from '../core/shared/input.js';

interface HttpParserError {
  type?: string;
  status?: number;
}

/** Errors thrown by body parsers (express.json, multipart) that carry a `type`. */
function fromParserError(err: HttpParserError): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'invalid_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError(413, 'payload_too_large', 'The request body is too large.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'unsupported_media_type', 'The request body encoding is not supported.');
    default:
      if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
        return new AppError(err.status, 'bad_request', 'The request could not be read.');
      }
      return undefined;
  }
}

/** An error as an AppError: itself, a body parser's error mapped to its status and code, or undefined (a fault). */
export function asAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  // The router's: a path parameter whose escapes are not UTF-8 (the text rule, core/shared/input.ts).
  if (err instanceof URIError && (err as HttpParserError).status === 400) return new ValidationError([{ field: 'path', message: NOT_UTF8 }], 'The path is not valid UTF-8.');
  return typeof err === 'object' && err !== null ? fromParserError(err) : undefined;
}

/** The one place errors become HTTP responses: `{error, message, ...extra, request_id}`. */
export function errorHandler(fallbackLog: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const log = (res.locals.log as Logger | undefined) ?? fallbackLog;
    const appError = asAppError(err);
    const requestId = res.locals.requestId as string | undefined;
    if (res.headersSent) {
      log.error({ err }, 'error after the response started');
      res.destroy();
      return;
    }
    if (!appError) {
      log.error({ err }, 'unhandled error');
      res.status(500).json({ error: 'internal_error', message: 'An internal error occurred.', request_id: requestId });
      return;
    }
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    res.status(appError.status).json({
      error: appError.code,
      message: appError.message,
      ...appError.extra,
      request_id: requestId,
    });
  };
}

/**
 * Requests Node's HTTP parser refuses before Express sees them (a request line and headers over
 * the size limit, bytes that are not HTTP) get the same JSON error shape as every other error,
 * instead of Node's bare status line. As Node does, a socket whose current response has started
 * is closed without a word: another status line would corrupt that response.
 */
export function clientErrorHandler(log: Logger) {
  return (err: Error & { code?: string }, socket: Duplex): void => {
    const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, code, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request_header_too_large', `The request line and headers are larger than ${maxHeaderSize} bytes.`]
        : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? [413, 'payload_too_large', 'The chunk extensions of the request body are too large.']
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'request_timeout', 'The request was not received in time.']
            : [400, 'bad_request', 'The request is not valid HTTP.'];
    const requestId = randomUUID();
    log.debug({ requestId, code: err.code }, 'request refused by the HTTP parser');
    const body = JSON.stringify({ error: code, message, request_id: requestId });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
