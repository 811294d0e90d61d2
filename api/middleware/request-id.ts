import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a caller's X-Request-Id when it is safe to log, else makes one; binds it to a child logger. */
export function requestId(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = req.get('x-request-id');
    const id = given && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.locals.log = log.child({ requestId: id });
    res.setHeader('X-Request-Id', id);
    next();
  };
}
