// The webpack configuration of every app's Node bundle (apps/*/webpack.config.cjs): the app's own
// code and the workspace libs in one file, npm packages left in node_modules.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { basename, join } = require('node:path');

/**
 * @param {string} appDir the app's folder (its webpack.config.cjs passes __dirname)
 * @param {{ assets?: unknown[] }} [extra] files copied next to the bundle
 */
module.exports = function serviceWebpackConfig(appDir, extra = {}) {
  return {
    output: { path: join(appDir, '../../dist/apps', basename(appDir)) },
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main: './src/main.ts',
        tsConfig: './tsconfig.app.json',
        outputHashing: 'none',
        optimization: false,
        generatePackageJson: false,
        externalDependencies: 'all',
        ...(extra.assets ? { assets: extra.assets } : {}),
      }),
    ],
  };
};
