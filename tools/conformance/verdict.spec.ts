import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { announcedCount, judge, notScored, readResults, renderTable } from './verdict.mjs';

type Status = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
const check = (id: string, status: Status, errorMessage?: string) => ({ id, name: id, description: id, status, errorMessage });
const WIRE = check('wire-schema-valid', 'SUCCESS');

/** Results laid out as the suite writes them: `<prefix><scenario>-<timestamp>/checks.json`. */
function resultsDir(prefix: string, scenarios: Record<string, ReturnType<typeof check>[]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-verdict-'));
  for (const [scenario, checks] of Object.entries(scenarios)) {
    const folder = join(dir, `${prefix}${scenario}-2026-11-23T21-37-47-250Z`);
    mkdirSync(folder);
    writeFileSync(join(folder, 'checks.json'), JSON.stringify(checks));
  }
  return dir;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function serverRun(version: string, scenarios: Record<string, ReturnType<typeof check>[]>, expected = Object.keys(scenarios).length) {
  const dir = resultsDir('server-', scenarios);
  dirs.push(dir);
  return { kind: 'server', version, scenarios: readResults(dir, 'server-'), expected, notScored: new Map<string, string>() };
}

const imageExcuse = {
  kind: 'server',
  scenario: 'tools-call-image',
  versions: ['2025-11-25'],
  checks: { 'tools-call-image': 'FAILURE' },
  reason: 'fixture tool',
  fixtureTools: ['test_image_content'],
};

describe('the verdict on the suite results', () => {
  it('reads scenario names back from the folders the suite writes (names with hyphens and digits included)', () => {
    const run = serverRun('2026-07-28', { 'sep-2164-resource-not-found': [WIRE], 'tools-list': [WIRE] });
    expect(run.scenarios.map((scenario: { scenario: string }) => scenario.scenario)).toEqual(['sep-2164-resource-not-found', 'tools-list']);
  });

  it('passes when every failure is excused for that scenario, version, check and status', () => {
    const run = serverRun('2025-11-25', {
      'tools-call-image': [check('tools-call-image', 'FAILURE', 'Failed: Tool test_image_content not found'), WIRE],
      ping: [check('ping', 'SUCCESS'), WIRE],
    });
    const verdict = judge([run], { excuses: [imageExcuse] });
    expect(verdict.problems).toEqual([]);
    expect(verdict.rows.find((row: { scenario: string }) => row.scenario === 'tools-call-image')).toMatchObject({ result: 'excused' });
    expect(verdict.rows.find((row: { scenario: string }) => row.scenario === 'ping')).toMatchObject({ result: 'pass', passed: 2, total: 2 });
  });

  it('fails on an unexcused failure, an excuse for another version, and an unexcused warning', () => {
    const run = serverRun('2026-07-28', {
      'tools-call-image': [check('tools-call-image', 'FAILURE', 'Failed: Tool test_image_content not found'), WIRE],
      'server-sse-polling': [check('server-sse-polling-session', 'WARNING', 'no session'), WIRE],
    });
    const verdict = judge([run], { excuses: [] });
    expect(verdict.problems).toEqual([
      'server-sse-polling (2026-07-28): WARNING server-sse-polling-session: no session',
      'tools-call-image (2026-07-28): FAILURE tools-call-image: Failed: Tool test_image_content not found',
    ]);
    expect(verdict.rows.map((row: { result: string }) => row.result)).toEqual(['WARN', 'FAIL']);
    // The 2025-11-25 excuse does not cover 2026-07-28, and (unused) is reported as stale.
    const other = judge([run], { excuses: [imageExcuse] });
    expect(other.problems).toContain('tools-call-image (2026-07-28): FAILURE tools-call-image: Failed: Tool test_image_content not found');
  });

  it('fails on an excuse that no longer matches (the check passes now, or reports another status)', () => {
    const run = serverRun('2025-11-25', { 'tools-call-image': [check('tools-call-image', 'WARNING', 'something else'), WIRE] });
    const verdict = judge([run], { excuses: [imageExcuse] });
    expect(verdict.problems).toEqual([
      'tools-call-image (2025-11-25): WARNING tools-call-image: something else',
      'baseline: tools-call-image (2025-11-25) tools-call-image is excused as FAILURE but did not report that: remove or correct the excuse',
    ]);
  });

  it('fails when the suite announced more scenarios than it left results for', () => {
    const run = serverRun('2025-11-25', { ping: [check('ping', 'SUCCESS')] }, 2);
    expect(judge([run], { excuses: [] }).problems).toEqual([
      'server 2025-11-25: the suite announced 2 scenarios but left results for 1; see tmp/conformance/',
    ]);
  });

  it('a scenario whose only passing check is the wire-schema check is "excused", not a pass', () => {
    const run = serverRun('2025-11-25', {
      caching: [check('tools-hints', 'SUCCESS'), check('prompts-hints', 'FAILURE'), WIRE],
      'tools-call-image': [check('tools-call-image', 'FAILURE'), WIRE],
    });
    const excuses = [imageExcuse, { kind: 'server', scenario: 'caching', versions: ['2025-11-25'], checks: { 'prompts-hints': 'FAILURE' }, reason: 'no prompts' }];
    const rows = judge([run], { excuses }).rows.map((row: { scenario: string; result: string }) => [row.scenario, row.result]);
    expect(rows).toEqual([['caching', 'pass (part excused)'], ['tools-call-image', 'excused']]);
  });

  it('renders one row per scenario that ended alike under both versions, with numbered reasons', () => {
    const excuse = { ...imageExcuse, versions: ['2025-11-25', '2026-07-28'] };
    const runs = ['2025-11-25', '2026-07-28'].map((version) =>
      serverRun(version, { 'tools-call-image': [check('tools-call-image', 'FAILURE'), WIRE], ping: [check('ping', 'SUCCESS')] }),
    );
    const table = renderTable(judge(runs, { excuses: [excuse] }), '0.2.0-alpha.12');
    expect(table).toContain('| ping | 2025-11-25, 2026-07-28 | pass | 1/1 |  |');
    expect(table).toContain('| tools-call-image | 2025-11-25, 2026-07-28 | excused | 1/2 | excused [1] (fixture `test_image_content`): tools-call-image |');
    expect(table).toContain('1. fixture tool');
    expect(table).toContain('Every failure and warning is excused by the baseline; every excuse still applies.');
  });

  it('reads what the suite printed: the scenario count and the scenarios it does not score', () => {
    const output = [
      'Running requirements 2026-07-28 (50 scenarios) against http://127.0.0.1:1/mcp',
      '',
      'Not scored for 2026-07-28: 2 scenario(s) run, 1 failing. These do not affect conformance.',
      '  ✗ tasks-lifecycle (extension)',
      '  ✓ http-header-validation (pending)',
    ].join('\n');
    expect(announcedCount(output)).toBe(50);
    expect([...notScored(output)]).toEqual([['tasks-lifecycle', 'extension'], ['http-header-validation', 'pending']]);
  });
});
