// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import n from 'eslint-plugin-n';
import lore from './eslint/lore-rules.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'charts/**', '.bench/**', 'eslint.config.js', 'eslint/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { n, lore },
    rules: {
      'lore/sql-in-repositories': 'error',
      'lore/tenant-scoped-sql': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'n/prefer-node-protocol': 'error',
      eqeqeq: ['error', 'smart'],
      'no-console': 'off',
    },
  },
  {
    // The portal's browser script: plain JavaScript, linted without type information.
    files: ['api/portal/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: false },
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', location: 'readonly', navigator: 'readonly', fetch: 'readonly', FormData: 'readonly', HTMLFormElement: 'readonly', DOMParser: 'readonly', setTimeout: 'readonly' },
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
