// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Only the HTTP layer imports Fastify. */
const NO_FASTIFY = {
  group: ['fastify', '@fastify/*', 'find-my-way'],
  message: 'only the HTTP layer (app.ts, http/, routes/) imports Fastify',
};

/** HttpError is the HTTP layer's own wiring-fault type. */
const NO_HTTP_ERROR = {
  group: ['**/http/http-error.js', './http-error.js'],
  message: "throw a domain error (src/shared/domain-errors.ts); HttpError is the HTTP layer's own",
};

/**
 * The `no-restricted-imports` rule forbidding the given import patterns.
 * @param {...{ group: string[], message: string }} patterns
 */
const restrictImports = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

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
    // Domain code never speaks HTTP (DEVELOPERS.md: dependencies flow shared → domain → http): only the HTTP
    // layer imports Fastify, and HttpError is the HTTP layer's own wiring-fault type; domain code throws the
    // errors of src/shared/domain-errors.ts.
    files: ['src/**/*.ts'],
    ignores: ['src/server/app.ts', 'src/server/http/**', 'src/server/routes/**'],
    rules: {
      ...restrictImports(NO_FASTIFY, NO_HTTP_ERROR),
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/server/app.ts', 'src/server/http/**', 'src/server/routes/**', 'src/cli/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Identifier[name='HttpError']",
          message: 'HttpError belongs to src/server/http/; throw a domain error (src/shared/domain-errors.ts)',
        },
      ],
    },
  },
  {
    // The parser-provider library (CONTRACT §12.4: the client, the token ring, the error classes) is shared by the
    // server's conversions and `pks contrib parser`: shared → parser-api → server/cli, never back.
    files: ['src/parser-api/**/*.ts'],
    rules: {
      ...restrictImports(NO_FASTIFY, {
        group: ['**/server/**', '**/cli/**', '**/wiki/**', '**/quantum/**', '**/web/**'],
        message: 'src/parser-api/ builds on src/shared/ only; the server and pks import it, not the other way',
      }),
    },
  },
  {
    // The MCP tool set (CONTRACT §20) is served by `pks mcp` and pksd's `/mcp` over an injected API caller:
    // shared → mcp → server/cli, never back.
    files: ['src/mcp/**/*.ts'],
    rules: {
      ...restrictImports(NO_FASTIFY, NO_HTTP_ERROR, {
        group: ['../server/**', '../cli/**', '../wiki/**', '../quantum/**', '../parser-api/**', '../../web/**'],
        message: 'src/mcp/ builds on src/shared/ only; the server and pks import it, not the other way',
      }),
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      ...restrictImports(NO_FASTIFY, NO_HTTP_ERROR, {
        group: ['**/parser-api/**', '**/server/**', '**/cli/**', '**/wiki/**', '**/quantum/**', '**/web/**'],
        message: 'src/shared/ is the bottom layer: it imports nothing else of the project',
      }),
    },
  },
  {
    // The web app reads the server's answers through the wire types of src/shared/api (and the wiki's pure model),
    // never through the server's or the CLI's modules.
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      ...restrictImports({
        group: ['**/src/server/**', '**/src/cli/**'],
        message: "the web app imports the server's answers from src/shared/api, not from the server or pks",
      }),
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
