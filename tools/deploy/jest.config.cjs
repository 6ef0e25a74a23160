module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'deploy',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
