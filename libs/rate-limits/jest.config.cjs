module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'rate-limits',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
