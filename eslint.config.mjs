import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['scripts/**', 'bench/**', '**/config/src/**'], rules: { 'no-console': 'off' } },
  // Sizes a reader can hold (STYLE.md): no source file over 300 lines, no function over 60.
  {
    files: ['**/src/**/*.ts'],
    ignores: ['**/src/generated/**'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false }],
    },
  },
  // The OAuth server library's model is one adapter object of small methods; it stays whole.
  { files: ['users-service/src/domain/oauth/oauth-model.ts'], rules: { 'max-lines-per-function': 'off' } },
  // Tests read loosely typed JSON answers; the contract schemas assert their shape instead.
  {
    files: ['**/test/**', 'libs/test-harness/src/**', 'e2e/src/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
