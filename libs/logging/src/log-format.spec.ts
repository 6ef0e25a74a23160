import pino from 'pino';
import { PassThrough } from 'node:stream';
import { baseLoggerOptions } from './http-logging';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchedLogDestination, defaultRequestLogDestination, humanLogStream, humanMessage, logFormat, REQUEST_LOG_BUFFER_BYTES } from './log-format';

describe('logFormat: readable lines for a person at a terminal, JSON lines otherwise', () => {
  it.each([
    ['a terminal', {}, { isTTY: true }, 'pretty'],
    ['a pipe, a file or a container without a tty', {}, { isTTY: false }, 'json'],
    ['a stream that does not say', {}, {}, 'json'],
    ['LOG_FORMAT=auto at a terminal', { LOG_FORMAT: 'auto' }, { isTTY: true }, 'pretty'],
    ['LOG_FORMAT=json at a terminal', { LOG_FORMAT: 'json' }, { isTTY: true }, 'json'],
    ['LOG_FORMAT=pretty into a pipe', { LOG_FORMAT: 'pretty' }, { isTTY: false }, 'pretty'],
  ])('%s', (_name, env, stdout, expected) => {
    expect(logFormat(env, stdout)).toBe(expected);
  });

  it('names LOG_FORMAT when it is malformed', () => {
    expect(() => logFormat({ LOG_FORMAT: 'yaml' }, { isTTY: true })).toThrow(/^LOG_FORMAT: expected one of auto, json, pretty, got yaml$/);
  });
});

describe('readable lines', () => {
  it('says service, context and message, and for a request its method, path, status and duration', () => {
    expect(humanMessage({ service: 'auth-server', context: 'NestApplication', msg: 'started' }, 'msg')).toBe('[auth-server] NestApplication: started');
    expect(
      humanMessage({ service: 'gateway', msg: 'request completed', req: { method: 'POST', url: '/oauth/token' }, res: { statusCode: 429 }, responseTime: 3.4 }, 'msg'),
    ).toBe('[gateway] request completed POST /oauth/token 429 3 ms');
  });

  it('writes one line per event from the JSON the services log, headers and ids left out', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const logger = pino(baseLoggerOptions({ service: 'resource-server', level: 'info' }), humanLogStream(out));
    logger.info({ reqId: 'abc', req: { method: 'GET', url: '/api/courses', headers: { cookie: 'x' } }, res: { statusCode: 200 }, responseTime: 12 }, 'request completed');
    logger.warn({ context: 'Storage', free: 3 }, 'disk nearly full');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[resource-server\] request completed GET \/api\/courses 200 12 ms$/);
    expect(lines[1]).toMatch(/WARN: \[resource-server\] Storage: disk nearly full \{"free":3\}$/);
    expect(text).not.toContain('cookie');
    expect(text).not.toContain('abc');
  });
});

describe('defaultRequestLogDestination', () => {
  it('writes JSON request lines in synchronous batches, readable lines one at a time', () => {
    const json = defaultRequestLogDestination({ LOG_FORMAT: 'json' }, { isTTY: false }) as unknown as { sync: boolean; fd: number; minLength: number };
    expect(json.sync).toBe(true);
    expect(json.fd).toBe(1);
    expect(json.minLength).toBe(REQUEST_LOG_BUFFER_BYTES);
    const readable = defaultRequestLogDestination({ LOG_FORMAT: 'pretty' }, { isTTY: true }) as unknown as { sync?: boolean };
    expect(readable.sync).not.toBe(false);
  });
});

describe('batchedLogDestination', () => {
  const dir = mkdtempSync(join(tmpdir(), 'request-log-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function contentOf(file: string, until: (text: string) => boolean): Promise<string> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const text = readFileSync(file, 'utf8');
      if (until(text)) return text;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return readFileSync(file, 'utf8');
  }

  it('holds a quiet service\'s line in the buffer, then writes it on the periodic flush', async () => {
    const file = join(dir, 'quiet.log');
    const destination = batchedLogDestination(file);
    await new Promise((resolve) => (destination as unknown as NodeJS.EventEmitter).once('ready', resolve));
    const log = pino(destination);
    log.info({ reqId: 'r-1' }, 'request completed');
    expect(readFileSync(file, 'utf8')).toBe('');
    const text = await contentOf(file, (t) => t.includes('r-1'));
    expect(JSON.parse(text.trim())).toMatchObject({ reqId: 'r-1', msg: 'request completed' });
    (destination as unknown as { destroy(): void }).destroy();
  });

  it('writes every line of a busy service, in order, once a batch is full', async () => {
    const file = join(dir, 'busy.log');
    const destination = batchedLogDestination(file);
    await new Promise((resolve) => (destination as unknown as NodeJS.EventEmitter).once('ready', resolve));
    const log = pino(destination);
    const count = Math.ceil((2 * REQUEST_LOG_BUFFER_BYTES) / 60);
    for (let i = 0; i < count; i++) log.info({ reqId: `r-${i}` }, 'request completed');
    const text = await contentOf(file, (t) => t.split('\n').length > count);
    expect(text.trim().split('\n').map((line) => JSON.parse(line).reqId)).toEqual(Array.from({ length: count }, (_, i) => `r-${i}`));
    (destination as unknown as { destroy(): void }).destroy();
  });

  // A line still in the buffer when the process exits is written then: the process logs one
  // line (far below a batch) and exits at once, before any periodic flush.
  it.each([
    ['process.exit', 'process.exit(0);'],
    ['an uncaught exception', "setImmediate(() => { throw new Error('boom'); });"],
  ])('writes the pending lines when the process exits by %s', (_how, ending) => {
    const file = join(dir, `exit-${ending.length}.log`);
    const script = join(dir, `exit-${ending.length}.ts`);
    writeFileSync(
      script,
      [
        `import { batchedLogDestination } from ${JSON.stringify(join(__dirname, 'log-format.ts'))};`,
        `const destination = batchedLogDestination(${JSON.stringify(file)});`,
        `destination.on('ready', () => {`,
        `  destination.write(JSON.stringify({ reqId: 'r-last', msg: 'request completed' }) + '\\n');`,
        `  ${ending}`,
        `});`,
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, ['--import', 'jiti/register', script], { cwd: join(__dirname, '../../..'), encoding: 'utf8', timeout: 30_000 });
    expect(run.error).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8').trim())).toMatchObject({ reqId: 'r-last', msg: 'request completed' });
  });
});
