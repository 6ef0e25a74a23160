module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'auth-server',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
