// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'web/dist/', 'coverage/', '.cache/', 'test/support/neo4j/target/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-imports': ['error', { paths: [] }],
    },
  },
  {
    // Domain code never imports the HTTP framework (DEVELOPERS.md: dependencies flow shared → domain → http).
    files: [
      'src/shared/**',
      'src/wiki/**',
      'src/server/storage/**',
      'src/server/papers/**',
      'src/server/graph/**',
      'src/server/auth/**',
      'src/server/db/**',
      'src/server/health/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['fastify', '@fastify/*'], message: 'domain code must not import Fastify' }] },
      ],
    },
  },
  {
    // Only the settings module reads the environment.
    files: ['src/**/*.ts'],
    ignores: ['src/server/config/**', 'src/cli/config/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'read settings from the config module' },
      ],
    },
  },
);
