module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'scopes',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
