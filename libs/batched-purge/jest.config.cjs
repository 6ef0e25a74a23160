module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'batched-purge',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
