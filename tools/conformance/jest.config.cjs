module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'conformance',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.spec.ts'],
  // The suite's own package (installed by run.mjs) is not under test.
  modulePathIgnorePatterns: ['<rootDir>/node_modules/'],
};
