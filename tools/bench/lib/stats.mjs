// Small statistics and formatting helpers for the bench report.

export function summary(values) {
  const clean = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (clean.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const middle = Math.floor(clean.length / 2);
  const median = clean.length % 2 ? clean[middle] : (clean[middle - 1] + clean[middle]) / 2;
  return { median, min: clean[0], max: clean[clean.length - 1], n: clean.length };
}

export function fmt(value, digits = 0) {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** "median (min–max)", or just the value when there is one sample. */
export function fmtSummary(s, digits = 0, unit = '') {
  if (!s || s.n === 0) return 'n/a';
  if (s.n === 1 || s.min === s.max) return `${fmt(s.median, digits)}${unit}`;
  return `${fmt(s.median, digits)}${unit} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

/** Digits that keep about three significant figures. */
export function digitsFor(value) {
  const magnitude = Math.abs(value);
  if (!Number.isFinite(magnitude) || magnitude >= 100) return 0;
  if (magnitude >= 10) return 1;
  if (magnitude >= 1) return 2;
  return 3;
}

export function fmtAuto(s, unit = '') {
  return fmtSummary(s, digitsFor(s?.median), unit);
}

export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.map((cell) => String(cell).replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
