import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../core/errors.js';

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

/** The one place errors become HTTP responses: `{error, message, ...extra, request_id}`. */
export function errorHandler(fallbackLog: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const log = (res.locals.log as Logger | undefined) ?? fallbackLog;
    const appError =
      err instanceof AppError ? err : typeof err === 'object' && err !== null ? fromParserError(err) : undefined;
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
