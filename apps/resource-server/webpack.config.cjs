module.exports = require('../../tools/build/service-webpack.cjs')(__dirname, {
  // /pricing.md renders this operator-editable file (PRICING_FILE overrides it).
  assets: [{ input: './data', glob: 'pricing.yaml', output: 'data' }],
});
