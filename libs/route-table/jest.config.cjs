module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'route-table',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
