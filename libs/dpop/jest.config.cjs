module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'dpop',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
