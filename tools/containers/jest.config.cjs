module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'containers',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
