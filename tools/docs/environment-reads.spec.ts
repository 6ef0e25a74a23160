import { environmentReads } from './environment-reads';

const namesRead = (source: string, fileName = 'source.ts') => environmentReads(source, fileName).reads.map((read) => read.name);

describe('environmentReads', () => {
  it.each([
    ['process.env.NAME', 'const a = process.env.LOG_FORMAT;', ['LOG_FORMAT']],
    ["process.env['NAME']", "const a = process.env['LOG_FORMAT'];", ['LOG_FORMAT']],
    ["a parameter named env: env['NAME'] and env.NAME", "function f(env) { return env['REDIS_URL'] ?? env.PORT; }", ['REDIS_URL', 'PORT']],
    ['a variable holding process.env', 'const environment = process.env; const a = environment.HOST;', ['HOST']],
    ['a parameter defaulting to process.env', "function f(vars = process.env) { return vars['HOST']; }", ['HOST']],
    ['destructured from process.env', 'const { HOST, PORT: port } = process.env;', ['HOST', 'PORT']],
    ['a constant of the file as the index', "const NAME_ENV = 'PRICING_FILE'; function f(env) { return env[NAME_ENV]; }", ['PRICING_FILE']],
    [
      'the variable of a for-of over literal strings',
      "function f(env) { for (const name of ['A_FLAG', 'B_FILE'] as const) if (env[name]) return name; }",
      ['A_FLAG', 'B_FILE'],
    ],
    [
      'a field destructured in a callback over a constant array',
      "const LIST = [{ variable: 'AUTH_URL' }, { variable: 'RESOURCE_URL' }]; const f = (env) => LIST.filter(({ variable }) => !env[variable]);",
      ['AUTH_URL', 'RESOURCE_URL'],
    ],
    ['not a lower-case property (a method of the object)', 'const a = process.env.hasOwnProperty;', []],
    ['not another object', "const a = config.PORT; const b = options['HOST'];", []],
    ['not the environment passed on whole', 'spawn(cmd, { env: { ...process.env, DATABASE_URL: url } });', []],
  ])('%s', (_case, source, expected) => {
    expect(namesRead(source)).toEqual(expected);
  });

  it('reads JavaScript sources too', () => {
    expect(namesRead("'use strict';\nconst flag = (process.env.MIGRATE_CREATE_DATABASES ?? 'true');\n", 'migrate.cjs')).toEqual(['MIGRATE_CREATE_DATABASES']);
  });

  it('resolves a name by the declaration in scope, not by another of the same name', () => {
    const source = [
      "const LIST = [{ variable: 'A_URL' }];",
      "function f(env) { const variable = 'B_URL'; return env[variable]; }",
      'const g = (env) => LIST.map(({ variable }) => env[variable]);',
    ].join('\n');
    expect(namesRead(source)).toEqual(['B_URL', 'A_URL']);
  });

  it('returns an index it cannot resolve, with its line, for the caller to account for', () => {
    const source = 'const a = 1;\nfunction portOf(service, env) { return env[service.portVar]; }\n';
    expect(environmentReads(source, 'services.mjs')).toEqual({ reads: [], computed: [{ expression: 'service.portVar', line: 2 }] });
  });
});
