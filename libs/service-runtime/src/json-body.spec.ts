import { INPUT_LIMITS } from './input-limits';
import { nestingExceeds, RefusedJsonBodyError, stringRefusal } from './json-body';

describe('nestingExceeds', () => {
  it.each([
    ['a flat object', '{"a":1,"b":"x"}', 1, false],
    ['an object in an array at the limit', '[{"a":[1]}]', 3, false],
    ['one level too deep', '[{"a":[1]}]', 2, true],
    ['brackets inside a string do not count', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote does not end the string', '{"a":"\\"[[[["}', 1, false],
    ['an escaped backslash before the closing quote ends it', '{"a":"\\\\"}', 1, false],
    ['brackets after an escaped backslash and its closing quote count', '["\\\\",[[1]]]', 2, true],
    ['a run of backslashes, odd: the quote is escaped', '["\\\\\\"[[["]', 1, false],
    ['an unterminated string (JSON.parse refuses it)', '["[[[[', 1, false],
    ['siblings do not add up', '[[],[],[],[]]', 2, false],
  ])('%s', (_name, text, max, expected) => {
    expect(nestingExceeds(text, max)).toBe(expected);
  });

  it('refuses 500,000 levels without recursing, at the first level too deep', () => {
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    expect(nestingExceeds(deep, INPUT_LIMITS.jsonDepth)).toBe(true);
    const objects = '{"a":'.repeat(250_000) + '1' + '}'.repeat(250_000);
    expect(nestingExceeds(objects, INPUT_LIMITS.jsonDepth)).toBe(true);
  });

  it('passes a megabyte of backslashes and quotes in strings in one pass', () => {
    const text = JSON.stringify(Array.from({ length: 1000 }, () => '\\"'.repeat(500)));
    expect(nestingExceeds(text, 1)).toBe(false);
  });
});

describe('stringRefusal', () => {
  const surrogate = 'The JSON body has a string that is not well-formed Unicode (a lone UTF-16 surrogate)';

  it.each([
    ['a lone high surrogate in a value', { title: 'a\ud800' }],
    ['a lone low surrogate in a value', { title: '\udc00b' }],
    ['a reversed pair', { title: '\udc00\ud800' }],
    ['a lone surrogate in a key', { 'a\ud800': 1 }],
    ['deep in arrays and objects', { a: [1, { b: [null, 'ok', ['x\udfff']] }] }],
    ['the whole body a string', '\ud800'],
  ])('refuses %s', (_name, value) => {
    const refusal = stringRefusal(JSON.parse(JSON.stringify(value)));
    expect(refusal).toBeInstanceOf(RefusedJsonBodyError);
    expect(refusal?.toBody()).toEqual({ error: 'invalid_request', error_description: surrogate });
  });

  it('refuses a string longer than the bound, and accepts one at it', () => {
    expect(stringRefusal({ content: 'x'.repeat(INPUT_LIMITS.jsonStringLength) })).toBeUndefined();
    expect(stringRefusal({ content: 'x'.repeat(INPUT_LIMITS.jsonStringLength + 1) })?.description).toBe(
      `The JSON body has a string longer than ${INPUT_LIMITS.jsonStringLength} characters`,
    );
  });

  it.each([
    ['well-formed pairs (emoji, astral letters)', { title: '𝕏😀', tags: ['é', 'ÿ'] }],
    ['every other JSON value', { a: null, b: true, c: 1.5, d: [], e: {}, f: [null, false, 0] }],
    ['a scalar body', 42],
    ['null', null],
  ])('accepts %s', (_name, value) => {
    expect(stringRefusal(value)).toBeUndefined();
  });
});
