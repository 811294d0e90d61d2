import type { Rule } from 'eslint';

declare const plugin: { rules: Record<'sql-in-repositories' | 'tenant-scoped-sql', Rule.RuleModule> };
export default plugin;
