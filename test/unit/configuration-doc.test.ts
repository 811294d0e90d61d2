import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { configurationReference } from '../../core/config-reference.js';

describe('docs/configuration.md', () => {
  it('is what core/config.ts says (run npm run docs:config after changing a setting)', () => {
    const committed = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    assert.equal(committed, configurationReference());
  });

  it('lists every variable with its default from the schema', () => {
    const page = configurationReference();
    assert.match(page, /\| `PORT` \| `8080` \| integer 0–65535 \|/);
    assert.match(page, /\| `METRICS_ENABLED` \| `true` \| `true`, `false` \|/);
    assert.match(page, /\| `VECTOR_INDEX` \| `flat` embedded, `pgvector` with `DATABASE_URL` \| `flat`, `pgvector`, `qdrant` \|/);
  });
});
