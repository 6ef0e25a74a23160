module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'metrics',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
