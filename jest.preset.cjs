// Shared by every project's jest.config.cjs: @swc/jest keeps decorator metadata for Nest DI
// and is the fastest transform here; ESM-only packages are transformed too. PGlite's CommonJS
// build loads Node built-ins with import(), which Jest's VM refuses without
// --experimental-vm-modules: swc rewrites those into require().
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  // A guard against a hang, not a measure of speed: jest's 5 s default fails hooks that start a
  // server or a database when CI's two cores are busy (one project run alone; the root config
  // says the same for npm test). Suites that need more say so themselves.
  testTimeout: 30_000,
  transform: {
    '^.+\\.(t|j|mj|cj)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          keepClassNames: true,
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|openid-client|oauth4webapi|@electric-sql/pglite|@modelcontextprotocol)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper: {
    '^@platform/(.*)$': path.join(__dirname, 'libs/$1/src/index.ts'),
  },
};
