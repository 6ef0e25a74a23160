module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'embedded-postgres',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
