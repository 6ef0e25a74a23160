// The answers each action of the load tool (load.mjs) must get; anything else is a failure
// (status 0: no answer at all). Shared by the load tool and the stage's ledger check.

/** @type {Readonly<Record<string, readonly number[]>>} */
export const EXPECTED = {
  register: [201],
  // 200: the sign-in or consent page; 302/303: back to the client (a consent remembered).
  authorize: [200, 302, 303],
  login: [303],
  consent: [302, 303],
  'token:code': [200],
  'token:refresh': [200],
  read: [200],
  write: [201],
  upload: [201],
  'verify:download': [200],
  'verify:read': [200],
  'verify:refresh': [200],
};

/**
 * @param {{ action: string, status: number }} entry
 * @returns {boolean}
 */
export function answeredAsExpected(entry) {
  return (EXPECTED[entry.action] ?? []).includes(entry.status);
}
