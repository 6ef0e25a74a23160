module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'redis-connection',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
