module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'database-errors',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
