import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError, errors } from '../../core/errors.js';
import { parseInput } from '../../core/shared/input.js';
import type { Services } from '../../runtime/services.js';

export const SECRET_SCANNING_PATH = '/partners/github/secret-scanning';

/** One report holds at most this many matches (GitHub batches them). */
const MAX_MATCHES = 1000;

const reportSchema = z
  .array(
    z.object({
      token: z.string().min(1).max(1000),
      type: z.string().max(200),
      url: z.string().max(4000).optional(),
      source: z.string().max(200).optional(),
    }),
  )
  .min(1)
  .max(MAX_MATCHES);

/**
 * The secret-scanning partner endpoint (spec §5, leaked-key protection) in the format of GitHub's
 * program: a signed JSON array of matches; each live Lore key among them is revoked within the
 * request, and the answer labels every match. The signature is checked over the raw body before
 * anything is parsed.
 */
export function secretScanningRouter(deps: { services: Pick<Services, 'leakedKeys' | 'adapters'>; log: Logger }): Router {
  const { services, log } = deps;
  const router = express.Router();
  router.post(SECRET_SCANNING_PATH, express.raw({ type: () => true, limit: '1mb' }), async (req: Request, res: Response) => {
    res.locals.routeTemplate = SECRET_SCANNING_PATH;
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const keyId = req.get('github-public-key-identifier');
    const signature = req.get('github-public-key-signature');
    if (!keyId || !signature) throw new AppError(401, 'invalid_signature', 'The Github-Public-Key-Identifier and Github-Public-Key-Signature headers are required.');
    let valid: boolean;
    try {
      valid = await services.adapters.reportSignatures.verify(body, keyId, signature);
    } catch (err) {
      log.error({ err }, 'the secret-scanning public keys could not be loaded');
      throw errors.unavailable('signature_keys_unavailable', 'The public keys that sign reports could not be loaded; send the report again later.');
    }
    if (!valid) throw new AppError(401, 'invalid_signature', 'The signature does not verify with the named public key.');
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      throw errors.badRequest('invalid_json', 'The body must be a JSON array of matches.');
    }
    const matches = parseInput(reportSchema, json, 'body');
    const verdicts = await services.leakedKeys.report(matches);
    const revoked = verdicts.filter((v) => v.label === 'true_positive').length;
    log.info({ matches: matches.length, lore_keys: revoked }, 'secret-scanning report handled');
    res.status(200).json(verdicts);
  });
  return router;
}
