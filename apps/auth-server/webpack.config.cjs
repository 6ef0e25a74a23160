module.exports = require('../../tools/build/service-webpack.cjs')(__dirname);
