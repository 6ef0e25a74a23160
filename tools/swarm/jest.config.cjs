module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'swarm',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
