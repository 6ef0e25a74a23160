module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'event-bus',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
