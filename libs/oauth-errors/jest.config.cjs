module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'oauth-errors',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
