module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'lifecycle',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
