module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'observability',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
