import { RuleTester } from 'eslint';
import lore from '../../eslint/lore-rules.js';

// RuleTester reports through mocha's describe/it when they are globals, as here.
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });

describe("Lore's lint rules", () => {
  tester.run('sql-in-repositories', lore.rules['sql-in-repositories'], {
    valid: [
      { filename: '/lore/core/keys/api-key.repository.ts', code: "db.query('SELECT id FROM api_keys WHERE tenant_id = $1', [t]);" },
      { filename: '/lore/core/db/migrator.ts', code: "db.exec('CREATE TABLE x (id int)');" },
      { filename: '/lore/core/adapters/pgvector.vector-index.ts', code: 'db.query(`SELECT 1`);' },
      { filename: '/lore/core/adapters/flat-index/loader.ts', code: "db.query('SELECT id FROM chunks');" },
      { filename: '/lore/core/keys/api-key.service.ts', code: "const label = 'Select a role';" },
      { filename: '/lore/test/api/x.test.ts', code: "db.query('DELETE FROM documents');" },
    ],
    invalid: [
      { filename: '/lore/core/dpa/dpa.service.ts', code: "db.query('SELECT dpa_accepted_version FROM tenants WHERE id = $1', [t]);", errors: 1 },
      { filename: '/lore/api/routes/x.routes.ts', code: 'db.query(`UPDATE documents SET title = $2 WHERE id = $1`, [id, t]);', errors: 1 },
      { filename: '/lore/core/adapters/deepl.translator.ts', code: "const sql = 'INSERT INTO x VALUES (1)';", errors: 1 },
    ],
  });

  tester.run('tenant-scoped-sql', lore.rules['tenant-scoped-sql'], {
    valid: [
      { filename: '/lore/core/keys/api-key.repository.ts', code: "db.query('SELECT id FROM api_keys WHERE tenant_id = $1 AND id = $2', [t, id]);" },
      { filename: '/lore/core/documents/document.repository.ts', code: 'db.query(`SELECT d.id FROM documents d WHERE ${scopeSql("d", 1)}`, p);' },
      { filename: '/lore/core/tenants/tenant.repository.ts', code: "db.query('SELECT id FROM tenants WHERE id = $1', [t]);" },
      { filename: '/lore/core/jobs/job.repository.ts', code: "/** The instance's queue: unscoped. */\nfunction claim() { return db.query('UPDATE jobs SET status = 1'); }" },
      { filename: '/lore/core/jobs/job.repository.ts', code: "db.query('INSERT INTO jobs (id) VALUES ($1)', [id]);" },
      { filename: '/lore/core/keys/api-key.service.ts', code: "db.query('SELECT id FROM api_keys WHERE id = $1', [id]);" },
    ],
    invalid: [
      { filename: '/lore/core/ingestion/ingestion.repository.ts', code: "db.query('UPDATE documents d SET status = 1 FROM x u WHERE d.id = u.id');", errors: 1 },
      { filename: '/lore/core/documents/document.repository.ts', code: "db.query('DELETE FROM chunks WHERE document_id = $1', [id]);", errors: 1 },
      { filename: '/lore/core/keys/api-key.repository.ts', code: 'db.query(`SELECT k.id FROM api_keys k JOIN tenants t ON t.id = k.x WHERE k.id = $1`, [id]);', errors: 1 },
    ],
  });
});
