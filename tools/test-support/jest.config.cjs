module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'test-support',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.spec.ts'],
};
