import { InvalidRequestError } from '@platform/oauth-errors';
import { INPUT_LIMITS } from './input-limits';
import { queryLimitRefusal, parseFormBody } from './url-encoded';

describe('parseFormBody', () => {
  it('reads a form as URLSearchParams does, a repeated name as an array', () => {
    expect({ ...parseFormBody('grant_type=refresh_token&scope=openid+courses%3Aread&resource=a&resource=b&empty=&bare') }).toEqual({
      grant_type: 'refresh_token',
      scope: 'openid courses:read',
      resource: ['a', 'b'],
      empty: '',
      bare: '',
    });
  });

  it('keeps broken escapes as they are and never throws on bytes that are not UTF-8', () => {
    expect({ ...parseFormBody('a=%zz&b=%FF&c=%') }).toEqual({ a: '%zz', b: '\ufffd', c: '%' });
  });

  it('has no prototype to pollute', () => {
    const params = parseFormBody('__proto__=x&constructor=y');
    expect(Object.getPrototypeOf(params)).toBeNull();
    expect(params['__proto__']).toBe('x');
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });

  it.each([
    ['too many parameters', Array.from({ length: INPUT_LIMITS.parameters + 1 }, (_, i) => `p${i}=1`).join('&'), 'The form body has more than 100 parameters'],
    ['one name repeated too often', Array.from({ length: INPUT_LIMITS.valuesPerName + 1 }, () => 'resource=x').join('&'), 'A parameter in the form body is repeated more than 16 times'],
    ['a value too long', `state=${'/'.repeat(INPUT_LIMITS.valueLength + 1)}`, 'A parameter value in the form body is longer than 8192 characters'],
    ['a name too long', `${'n'.repeat(INPUT_LIMITS.nameLength + 1)}=1`, 'A parameter name in the form body is longer than 128 characters'],
  ])('refuses %s with invalid_request', (_name, body, description) => {
    expect(() => parseFormBody(body)).toThrow(new InvalidRequestError(description));
  });

  it('accepts every bound exactly', () => {
    const atBounds = [
      `${'n'.repeat(INPUT_LIMITS.nameLength)}=${'v'.repeat(INPUT_LIMITS.valueLength)}`,
      ...Array.from({ length: INPUT_LIMITS.valuesPerName }, () => 'resource=x'),
      ...Array.from({ length: INPUT_LIMITS.parameters - INPUT_LIMITS.valuesPerName - 1 }, (_, i) => `p${i}=1`),
    ].join('&');
    expect(Object.keys(parseFormBody(atBounds))).toHaveLength(INPUT_LIMITS.parameters - INPUT_LIMITS.valuesPerName + 1);
  });
});

describe('queryLimitRefusal', () => {
  it('names the query, and passes an empty one', () => {
    expect(queryLimitRefusal({})).toBeUndefined();
    expect(queryLimitRefusal({ a: Array.from({ length: 17 }, () => 'x') })?.description).toBe(
      'A parameter in the query is repeated more than 16 times',
    );
  });
});
