// Preloaded into the Prisma CLI (node -r). Its wasm schema engine arms 10 s and 60 s timers
// it never clears, so the CLI lingers after finishing (STACK.md, known problem 3). Long
// timers are unref'ed so that they no longer keep the process alive.
'use strict';
const originalSetTimeout = global.setTimeout;
global.setTimeout = function unrefLongTimeout(callback, delay, ...args) {
  const timer = originalSetTimeout(callback, delay, ...args);
  if (typeof delay === 'number' && delay >= 5000 && timer && typeof timer.unref === 'function') timer.unref();
  return timer;
};
