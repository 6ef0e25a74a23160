module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'resource-server',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
