module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'docs',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.spec.ts'],
};
