import nx from '@nx/eslint-plugin';
import regexp from 'eslint-plugin-regexp';

/** Which tags a project with a given tag may depend on. */
const allowedTags = {
  'scope:auth': ['scope:auth', 'scope:shared'],
  'scope:resource': ['scope:resource', 'scope:shared'],
  'scope:gateway': ['scope:gateway', 'scope:shared'],
  'scope:shared': ['scope:shared'],
  // End-to-end suites drive the running services over HTTP: they import no app code.
  'scope:e2e': ['scope:shared'],
  'type:e2e': ['type:util'],
  'type:app': ['type:feature', 'type:util'],
  'type:feature': ['type:feature', 'type:util'],
  'type:util': ['type:util'],
};

const moduleBoundaries = (allow) => [
  'error',
  {
    enforceBuildableLibDependency: true,
    allow,
    depConstraints: Object.entries(allowedTags).map(([sourceTag, onlyDependOnLibsWithTags]) => ({
      sourceTag,
      onlyDependOnLibsWithTags,
    })),
  },
];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    ignores: ['**/dist', '**/node_modules', '**/coverage', 'apps/*/src/generated/**', '**/.nx', '**/.data'],
  },
  {
    // Regular expressions see untrusted input (paths, headers, form values, documents fetched from
    // the internet): none may take super-linear time on a crafted string (issue 33). Backtracking
    // inside one attempt, and attempts moved along the input one character at a time
    // (`/\/+$/` on 60,000 slashes: quadratic).
    // Production code only: tests and tools read the project's own files and outputs.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'apps/platform-e2e/**'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': moduleBoundaries([]),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests import the jest helpers of tools/test-support by relative path, as a test-only tool.
    files: ['**/*.spec.ts', '**/test/**/*.ts', 'apps/*-e2e/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(['^(\\.\\./)+tools/test-support(/.*)?$']) },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
  },
];
