const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

// Node bundle of the app's own code and workspace libs; npm packages stay in node_modules.
module.exports = {
  output: { path: join(__dirname, '../../dist/apps/resource-server') },
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
      // /pricing.md renders this operator-editable file (PRICING_FILE overrides it).
      assets: [{ input: './data', glob: 'pricing.yaml', output: 'data' }],
    }),
  ],
};
