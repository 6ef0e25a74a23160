// The platform as users meet it: every service built and started as its own process behind
// the gateway (by the same launcher as `npm start`), or an already running stack when
// E2E_BASE_URL is set (e.g. the compose stack).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'platform-e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e.spec.ts'],
  globalSetup: '<rootDir>/src/support/global-setup.ts',
  globalTeardown: '<rootDir>/src/support/global-teardown.ts',
};
