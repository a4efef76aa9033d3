// jest loads a reporter with a plain require, which cannot read TypeScript: tsx compiles this one and
// its imports, then lets go of Node's loader so the rest of jest's run resolves modules as before.
const path = require('node:path');
const { register } = require('tsx/cjs/api');

const tsx = register({ namespace: 'e2e-reporter' });
try {
  module.exports = tsx.require(
    path.join(__dirname, 'reporter.ts'),
    path.join(__dirname, 'reporter.cjs'),
  ).default;
} finally {
  tsx.unregister();
}
