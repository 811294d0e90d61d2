import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CODES, NON_REST_ERROR_CODES } from '../../api/error-catalogue.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STATUS_OF: Record<string, number> = { badRequest: 400, paymentRequired: 402, forbidden: 403, conflict: 409, tooLarge: 413, unprocessable: 422, unavailable: 503 };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? sources(file) : file.endsWith('.ts') ? [file] : [];
  });
}

describe('the error catalogue of the OpenAPI document', () => {
  const code = ['core', 'api'].flatMap((d) => sources(path.join(ROOT, d))).filter((f) => !f.endsWith('error-catalogue.ts')).map((f) => readFileSync(f, 'utf8')).join('\n');

  it('holds every code core/ and api/ throw, under its status', () => {
    const thrown: Array<[number, string]> = [
      ...[...code.matchAll(/errors\.(\w+)\(\s*'([a-z_]+)'/g)].filter((m) => STATUS_OF[m[1]!]).map((m) => [STATUS_OF[m[1]!]!, m[2]!] as [number, string]),
      ...[...code.matchAll(/new AppError\(\s*(\d+),\s*'([a-z_]+)'/g)].map((m) => [Number(m[1]), m[2]!] as [number, string]),
    ];
    assert.ok(thrown.length > 50, `only ${thrown.length} throws found: the patterns no longer match the code`);
    for (const [status, name] of thrown) {
      const listed = ERROR_CODES[status]?.includes(name) || NON_REST_ERROR_CODES[status]?.includes(name);
      assert.ok(listed, `${status} ${name} is thrown but not in api/error-catalogue.ts`);
    }
  });

  it('holds no code that nothing answers with', () => {
    for (const [status, names] of [...Object.entries(ERROR_CODES), ...Object.entries(NON_REST_ERROR_CODES)]) {
      for (const name of names) assert.ok(code.includes(`'${name}'`), `${status} ${name} is in the catalogue but nowhere in core/ or api/`);
    }
  });
});
