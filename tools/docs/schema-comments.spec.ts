import { declaresConstant, propertyComments } from './schema-comments';

const SOURCE = `
import { z } from 'zod';
import { operationsEnv, sharedEnv } from './shared';

export const EnvSchema = z.object({
  /** One line. */
  HOST: z.string(),
  /**
   * Two lines
   * joined.
   */
  PORT: z.coerce.number(),
  // a line comment is no doc comment
  DATABASE_URL: z.url(),
  ...sharedEnv,
  LOG_LEVEL: unsetWhenEmpty(operationsEnv.LOG_LEVEL),
});

const plain = {
  /** In a plain object. */
  SECRET: z.string(),
};
`;

describe('propertyComments', () => {
  it('reads the doc comment above each property of z.object({ ... }), one paragraph each', () => {
    const { comments } = propertyComments(SOURCE, 'config.ts', 'EnvSchema');
    expect(Object.fromEntries(comments)).toEqual({
      HOST: 'One line.',
      PORT: 'Two lines joined.',
      DATABASE_URL: undefined,
      LOG_LEVEL: undefined,
    });
  });

  it('names the objects it spreads and those it reads a field of the same name from', () => {
    expect(propertyComments(SOURCE, 'config.ts', 'EnvSchema').borrowedFrom).toEqual(['sharedEnv', 'operationsEnv']);
  });

  it('reads a plain object literal', () => {
    expect(Object.fromEntries(propertyComments(SOURCE, 'config.ts', 'plain').comments)).toEqual({ SECRET: 'In a plain object.' });
  });

  it('throws naming the file and the declaration it did not find', () => {
    expect(() => propertyComments(SOURCE, 'config.ts', 'Missing')).toThrow('config.ts declares no object literal or z.object({ ... }) named Missing');
  });
});

describe('declaresConstant', () => {
  it.each([
    ['EnvSchema', true],
    ['plain', true],
    ['operationsEnv', false],
  ])('%s: %s', (name, expected) => {
    expect(declaresConstant(SOURCE, 'config.ts', name)).toBe(expected);
  });
});
