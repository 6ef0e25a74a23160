module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'held-under-trust',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
