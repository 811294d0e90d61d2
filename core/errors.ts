/**
 * The one error hierarchy. Services throw these; the HTTP error handler turns them into
 * `{error: code, message, ...extra}` with `status`; MCP turns them into tool errors.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface FieldIssue {
  field: string;
  message: string;
}

export class ValidationError extends AppError {
  override name = 'ValidationError';
  constructor(
    readonly issues: FieldIssue[],
    message = 'The request is invalid.',
  ) {
    super(422, 'validation_failed', message, { fields: issues });
  }
}

export const errors = {
  badRequest: (code: string, message: string, extra?: Record<string, unknown>) =>
    new AppError(400, code, message, extra),
  unauthorized: (message = 'A valid API key is required.') =>
    new AppError(401, 'unauthorized', message, {}, { 'WWW-Authenticate': 'Bearer' }),
  forbidden: (code: string, message: string, extra?: Record<string, unknown>) =>
    new AppError(403, code, message, extra),
  insufficientRole: (required: string) =>
    new AppError(403, 'insufficient_role', `This operation requires a key with the '${required}' role.`, {
      required_role: required,
    }),
  notFound: (what = 'resource') => new AppError(404, 'not_found', `The ${what} was not found.`),
  conflict: (code: string, message: string) => new AppError(409, code, message),
  tooLarge: (code: string, message: string, extra?: Record<string, unknown>) =>
    new AppError(413, code, message, extra),
  paymentRequired: (code: string, message: string, extra?: Record<string, unknown>) =>
    new AppError(402, code, message, extra),
  /** A 422 other than a schema's: it names the input at fault in `fields`, as every 422 does. */
  unprocessable: (code: string, message: string, fields: FieldIssue[], extra?: Record<string, unknown>) =>
    new AppError(422, code, message, { ...extra, fields }),
  invalid: (field: string, message: string) => new ValidationError([{ field, message }]),
  unavailable: (code: string, message: string) => new AppError(503, code, message),
};

/** For a removal that may find its target already gone: a 404 AppError is fine, anything else is thrown again. */
export function ignoreNotFound(err: unknown): undefined {
  if (err instanceof AppError && err.status === 404) return undefined;
  throw err;
}
