module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'operations-config',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
