// What the suite's results mean for this project: its raw results read back, each FAILURE or
// WARNING check held against baseline.json, and the Markdown table of the README. Pure, apart
// from reading the result files (run.mjs runs the suite; verdict.spec.ts tests this).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** `<prefix><scenario>-<ISO timestamp>/checks.json` for each scenario the suite ran. */
export function readResults(dir, prefix) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && existsSync(join(dir, name, 'checks.json')))
    .map((name) => ({
      scenario: name.slice(prefix.length).replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, ''),
      checks: JSON.parse(readFileSync(join(dir, name, 'checks.json'), 'utf8')),
    }))
    .sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/** How many scenarios the suite said it would run ("Running ... (N scenarios) against ..."). */
export function announcedCount(output) {
  const match = /^Running .*\((\d+) scenarios\)/m.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** The suite's "Not scored for <revision>" list: scenario -> reason (extension, pending...). */
export function notScored(output) {
  const reasons = new Map();
  const section = output.split(/\nNot scored for [^\n]*\n/)[1] ?? '';
  for (const match of section.matchAll(/^\s+[✓✗] (\S+) \(([^)]+)\)$/gm)) reasons.set(match[1], match[2]);
  return reasons;
}

/**
 * Each FAILURE or WARNING check must match an excuse (scenario, version, check id, status);
 * each excuse must still match something (else the baseline no longer says what happens).
 */
export function judge(runs, baseline) {
  const problems = [];
  const used = new Set();
  const rows = [];
  const reasons = [];
  const footnote = (reason) => {
    if (!reasons.includes(reason)) reasons.push(reason);
    return `[${reasons.indexOf(reason) + 1}]`;
  };
  const excuseFor = (kind, version, scenario, check) =>
    baseline.excuses.find(
      (excuse) =>
        excuse.kind === kind &&
        excuse.scenario === scenario &&
        (excuse.versions ?? ['all']).includes(version) &&
        excuse.checks[check.id] === check.status,
    );
  for (const run of runs) {
    if (run.expected === undefined || run.scenarios.length !== run.expected) {
      problems.push(`${run.kind} ${run.version}: the suite announced ${run.expected ?? 'no'} scenarios but left results for ${run.scenarios.length}` +
        (run.consent ? ` (${run.consent})` : '') + '; see tmp/conformance/');
    }
    for (const { scenario, checks, consent } of run.scenarios) {
      const counted = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      const unexcused = [];
      const excusedBy = new Set();
      for (const check of counted) {
        const excuse = excuseFor(run.kind, run.version, scenario, check);
        if (excuse) {
          used.add(`${baseline.excuses.indexOf(excuse)}:${run.version}:${check.id}:${check.status}`);
          excusedBy.add(excuse);
        } else {
          unexcused.push(check);
        }
      }
      for (const check of unexcused) {
        problems.push(`${scenario} (${run.version}): ${check.status} ${check.id}: ${oneLine(check.errorMessage ?? check.details?.message ?? check.description)}`);
      }
      // The wire-schema check rides along with every scenario: it alone passing is no pass.
      const own = checks.filter((check) => check.id !== 'wire-schema-valid');
      const passed = checks.filter((check) => check.status === 'SUCCESS').length;
      const ownPassed = own.filter((check) => check.status === 'SUCCESS').length;
      let result;
      if (unexcused.some((check) => check.status === 'FAILURE')) result = 'FAIL';
      else if (unexcused.length > 0) result = 'WARN';
      else if (excusedBy.size > 0) result = ownPassed > 0 ? 'pass (part excused)' : 'excused';
      else if (passed === 0) result = 'skipped';
      else result = 'pass';
      const notes = [];
      if (unexcused.length > 0) notes.push(unexcused.map((check) => `${check.id}: ${oneLine(check.errorMessage ?? check.details?.message ?? check.description)}`).join('; '));
      for (const excuse of excusedBy) {
        const fixtures = excuse.fixtureTools ? ` (fixture ${excuse.fixtureTools.map((tool) => `\`${tool}\``).join(', ')})` : '';
        notes.push(`excused ${footnote(excuse.reason)}${fixtures}: ${Object.keys(excuse.checks).join(', ')}`);
      }
      if (run.notScored.has(scenario)) notes.push(`not scored by the suite (${run.notScored.get(scenario)})`);
      if (consent) notes.push(consent);
      rows.push({ scenario, version: run.version, result, passed, total: checks.length, note: notes.join(' · ') });
    }
  }
  baseline.excuses.forEach((excuse, index) => {
    for (const version of excuse.versions ?? ['all']) {
      for (const [check, status] of Object.entries(excuse.checks)) {
        if (!used.has(`${index}:${version}:${check}:${status}`)) {
          problems.push(`baseline: ${excuse.scenario} (${version}) ${check} is excused as ${status} but did not report that: remove or correct the excuse`);
        }
      }
    }
  });
  return { rows, problems, reasons };
}

function oneLine(text = '') {
  return String(text).replace(/\s+/g, ' ').trim().slice(0, 240);
}

/** One row for a scenario that ended the same way under both versions. */
function mergeVersions(rows) {
  const merged = [];
  for (const row of rows) {
    const same = merged.find((other) =>
      other.scenario === row.scenario && other.result === row.result && other.passed === row.passed && other.total === row.total && other.note === row.note);
    if (same) same.version = `${same.version}, ${row.version}`;
    else merged.push({ ...row });
  }
  return merged.sort((a, b) => a.scenario.localeCompare(b.scenario) || a.version.localeCompare(b.version));
}

export function renderTable({ rows, problems, reasons: judged }, suiteVersion) {
  const cell = (text) => String(text).replaceAll('|', '\\|');
  // Footnotes numbered in the order the sorted table first cites them.
  const table = mergeVersions(rows);
  const order = [];
  const renumber = (note) =>
    note.replace(/excused \[(\d+)\]/g, (_, old) => {
      if (!order.includes(Number(old))) order.push(Number(old));
      return `excused [${order.indexOf(Number(old)) + 1}]`;
    });
  for (const row of table) row.note = renumber(row.note);
  const reasons = order.map((old) => judged[old - 1]);
  const lines = [
    `Results of \`@modelcontextprotocol/conformance\` ${suiteVersion} against the platform (\`npm run conformance\`).`,
    'A check the suite reports as a failure or warning counts unless `tools/conformance/baseline.json` excuses it;',
    '"pass (part excused)" means the scenario\'s other checks passed.',
    '',
    '| scenario | version | result | checks passed | note |',
    '|---|---|---|---|---|',
    ...table.map((row) => `| ${cell(row.scenario)} | ${row.version} | ${row.result} | ${row.passed}/${row.total} | ${cell(row.note)} |`),
    '',
    'Excuses (features this server deliberately lacks):',
    '',
    ...reasons.map((reason, index) => `${index + 1}. ${reason}`),
    '',
    problems.length === 0 ? 'Every failure and warning is excused by the baseline; every excuse still applies.' : `**${problems.length} problem(s):**`,
    ...problems.map((problem) => `- ${cell(problem)}`),
    '',
  ];
  return lines.join('\n');
}
