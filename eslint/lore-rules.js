// @ts-check
/**
 * Lore's own lint rules (docs/architecture.md):
 * - `sql-in-repositories`: SQL is written only in repositories, the database layer (core/db/) and
 *   the adapters of database-backed ports; a service or route that wants data calls a repository.
 * - `tenant-scoped-sql`: a repository statement that reads, changes or deletes rows of a table
 *   that has a tenant_id names the tenant in its conditions (tenant_id, or scopeSql()), or says why
 *   not with an `unscoped` comment next to it (instance-wide reads, job claims, signed links).
 */

// A verb followed by a path ('DELETE /v1/…') is an HTTP request line, not SQL.
const SQL_START = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP|VACUUM|ANALYZE|TRUNCATE|LOCK|SET|RESET)\s+(?!\/)/;
const READ_OR_CHANGE = /^\s*(SELECT|UPDATE|DELETE|WITH)\s/;

/** Tables with a tenant_id column (migrations/): their rows belong to a tenant. */
const TENANT_TABLES = [
  'api_keys', 'knowledge_bases', 'documents', 'chunks', 'jobs', 'document_files', 'usage_events', 'query_counters',
  'dpa_acceptances', 'account_exports', 'sub_tenants', 'end_user_preferences', 'active_users', 'oauth_clients',
  'oauth_initial_access_tokens', 'corpus_dua_acceptances', 'translation_cache', 'storage_usage',
  'portal_users', 'portal_sessions', 'portal_password_links', 'leaked_key_reports', 'portal_invitations',
];
const TABLE_REFERENCE = new RegExp(`\\b(FROM|JOIN|UPDATE)\\s+(${TENANT_TABLES.join('|')})\\b`);

/** @param {string} file */
function mayWriteSql(file) {
  const f = file.replace(/\\/g, '/');
  return (
    /\.repository\.ts$/.test(f) ||
    /\/core\/db\//.test(f) ||
    /\/core\/search\/search-sql\.ts$/.test(f) ||
    /\/core\/adapters\/(pgvector\.|postgres\.|flat-index\/|qdrant\/)/.test(f) ||
    // Tests, benchmarks and scripts set up and inspect databases directly.
    /\/(test|bench|scripts|migrations)\//.test(f)
  );
}

/**
 * The text of a string or template literal, with each `${…}` replaced by its source.
 * @param {import('eslint').Rule.RuleContext} context
 * @param {any} node
 */
function literalText(context, node) {
  if (node.type === 'Literal') return typeof node.value === 'string' ? node.value : undefined;
  const source = context.sourceCode;
  return node.quasis
    .map((/** @type {any} */ q, /** @type {number} */ i) => q.value.cooked + (node.expressions[i] ? `\${${source.getText(node.expressions[i])}}` : ''))
    .join('');
}

/** @type {import('eslint').Rule.RuleModule} */
const sqlInRepositories = {
  meta: { type: 'problem', docs: { description: 'SQL only in repositories, core/db/ and database adapters' }, schema: [] },
  create(context) {
    if (mayWriteSql(context.filename)) return {};
    /** @param {any} node */
    const check = (node) => {
      const text = literalText(context, node);
      if (text && SQL_START.test(text)) {
        context.report({ node, message: 'SQL belongs in a repository (*.repository.ts); call one from here.' });
      }
    };
    return { Literal: check, TemplateLiteral: check };
  },
};

/** @type {import('eslint').Rule.RuleModule} */
const tenantScopedSql = {
  meta: { type: 'problem', docs: { description: "repository statements on tenant tables name the tenant" }, schema: [] },
  create(context) {
    if (!/\.repository\.ts$/.test(context.filename)) return {};
    const source = context.sourceCode;
    /** @param {any} node */
    const check = (node) => {
      const text = literalText(context, node);
      if (!text || !READ_OR_CHANGE.test(text) || !TABLE_REFERENCE.test(text)) return;
      if (/tenant_id|scopeSql\(|-- unscoped/.test(text)) return;
      // An `unscoped` note in a comment shortly before the statement (or its function's doc comment).
      const line = node.loc.start.line;
      const nearby = source.getAllComments().some((c) => c.loc && c.loc.end.line >= line - 12 && c.loc.end.line <= line && /\bunscoped\b/.test(c.value));
      if (nearby) return;
      context.report({ node, message: "A statement on a tenant's table must name the tenant (tenant_id or scopeSql()), or say why not in an `unscoped` comment." });
    };
    return { Literal: check, TemplateLiteral: check };
  },
};

export default { rules: { 'sql-in-repositories': sqlInRepositories, 'tenant-scoped-sql': tenantScopedSql } };
