module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'outbound-http',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
