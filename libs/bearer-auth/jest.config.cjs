module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'bearer-auth',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
