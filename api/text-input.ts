import querystring, { type ParsedUrlQuery } from 'node:querystring';
import express, { type RequestHandler } from 'express';
import { AppError } from '../core/errors.js';
import { assertUtf8Form, assertUtf8Json, decodeUtf8 } from '../core/shared/input.js';

export const JSON_TYPES = ['application/json', 'application/*+json'];

/*
 * Text from HTTP requests, refused rather than repaired when it is not UTF-8: body-parser and
 * node:querystring decode with U+FFFD in place of such bytes, and Node hands header bytes over as
 * Latin-1, so the bytes are checked first (422 validation_failed naming the field, by the rule of
 * core/shared/input.ts).
 */

/** JSON bodies; a charset other than UTF-8 is refused with 415 (RFC 8259 §8.1: JSON between systems is UTF-8). */
export function jsonParser(limit: string): RequestHandler {
  return express.json({
    limit,
    type: JSON_TYPES,
    verify: (_req, _res, bytes, encoding) => {
      if (encoding !== 'utf-8') throw new AppError(415, 'unsupported_media_type', `JSON must be UTF-8; charset ${encoding} is not accepted.`);
      assertUtf8Json(bytes, 'body');
    },
  });
}

/** application/x-www-form-urlencoded bodies; their fields are named `<location>.<name>` in a 422. */
export function formParser(options: { limit: string; parameterLimit: number; location: string }): RequestHandler {
  return express.urlencoded({
    extended: false,
    limit: options.limit,
    parameterLimit: options.parameterLimit,
    verify: (_req, _res, bytes, encoding) => {
      // A form declared ISO-8859-1 has no invalid bytes: every byte is a character.
      if (encoding === 'utf-8') assertUtf8Form(decodeUtf8(bytes, options.location), options.location);
    },
  });
}

/** The query parser (Express's 'simple' one, node:querystring), after the escapes are checked; Express gives null for no query. */
export function parseQuery(text: string | null): ParsedUrlQuery {
  if (!text) return {};
  assertUtf8Form(text, 'query');
  return querystring.parse(text);
}

/**
 * A header's value (`req.get(name)`) read as UTF-8: Node gives a header's bytes as Latin-1
 * characters. 422 naming `header.<name>` when the bytes are not UTF-8.
 */
export function headerText(value: string | undefined, name: string): string | undefined {
  return value === undefined ? undefined : decodeUtf8(Buffer.from(value, 'latin1'), `header.${name}`);
}
