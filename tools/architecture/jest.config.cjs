module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'architecture',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.spec.ts'],
};
