// Every project's own jest config: apps/*, libs/* and tools/* (tools/test-support's specs).
const fs = require('node:fs');
const path = require('node:path');

const projectConfigs = ['apps', 'libs', 'tools'].flatMap((group) => {
  const dir = path.join(__dirname, group);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((name) => path.join(dir, name, 'jest.config.cjs'))
    .filter((file) => fs.existsSync(file));
});

module.exports = {
  projects: projectConfigs,
  maxWorkers: 2,
  // A worker runs a hundred suites or more, and what they load stays: the workers ended a run at
  // 3.0-3.3 GB (2.1-2.2 GB of heap), and a process that size takes about 500 ms to exit, jest's
  // limit before it kills the worker and reports "a worker process has failed to exit gracefully".
  // A worker above 1 GB after a suite is replaced before the next.
  workerIdleMemoryLimit: '1GB',
  // A guard against a hang, not a measure of speed (jest reads it here, not from the projects, when
  // it runs several): 5 s failed hooks that start a server on a loaded 2-core CI machine.
  testTimeout: 30_000,
};
