import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokenLinks, headingAnchors, linkTargets } from './markdown-links';

const ROOT = join(__dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
const pages = readdirSync(DOCS).filter((name) => name.endsWith('.md'));

/** The front door, every page of docs/, and the bench results' README the performance page leads to. */
const CHECKED = ['README.md', ...pages.map((page) => `docs/${page}`), 'tools/bench/results/README.md'];

describe('the docs navigate', () => {
  it.each(CHECKED)('%s: every relative link points at an existing file and heading', (file) => {
    expect(brokenLinks(join(ROOT, file), ROOT)).toEqual([]);
  });

  it('docs/README.md links every page of docs/', () => {
    const index = linkTargets(readFileSync(join(DOCS, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]);
    expect(pages.filter((page) => page !== 'README.md' && !index.includes(page))).toEqual([]);
  });

  it('README.md links the docs index', () => {
    expect(linkTargets(readFileSync(join(ROOT, 'README.md'), 'utf8')).map(({ target }) => target)).toContain('docs/README.md');
  });
});

describe('headingAnchors (GitHub anchors)', () => {
  it.each([
    ['## MCP at `/mcp`', 'mcp-at-mcp'],
    ['### The API (`/api/v1`)', 'the-api-apiv1'],
    ['## What `npm run test:compose` checks', 'what-npm-run-testcompose-checks'],
    ['## Hosted clients: Client ID Metadata Documents (CIMD)', 'hosted-clients-client-id-metadata-documents-cimd'],
    ['## Registered integrations (for platform staff)', 'registered-integrations-for-platform-staff'],
    ['### 9. The MCP server at `/mcp`', '9-the-mcp-server-at-mcp'],
    ['## Where does X live', 'where-does-x-live'],
    ['## **Bold** and [a link](x.md) and snake_case', 'bold-and-a-link-and-snake_case'],
    ['## Token state: held in memory, one statement', 'token-state-held-in-memory-one-statement'],
    ['## Café, naïve — ünïcode', 'café-naïve--ünïcode'],
  ])('%s → #%s', (heading, anchor) => {
    expect([...headingAnchors(heading)]).toEqual([anchor]);
  });

  it('numbers a repeated heading, and ignores headings inside code blocks', () => {
    const markdown = ['## Notes', '```bash', '# a comment, not a heading', '```', '## Notes', '~~~', '## Notes', '~~~'].join('\n');
    expect([...headingAnchors(markdown)]).toEqual(['notes', 'notes-1']);
  });

  it('counts <a id> anchors', () => {
    expect(headingAnchors('<a id="custom-anchor"></a>').has('custom-anchor')).toBe(true);
  });
});

describe('linkTargets', () => {
  it('finds inline links, images and reference definitions, not what is inside code', () => {
    const markdown = [
      'See [a](a.md#x) and ![b](img/b.png "title"), `[not](code.md)`.',
      '```',
      '[not either](fenced.md)',
      '```',
      '[ref]: <docs/with space.md>',
    ].join('\n');
    expect(linkTargets(markdown)).toEqual([
      { line: 1, target: 'a.md#x' },
      { line: 1, target: 'img/b.png' },
      { line: 5, target: 'docs/with space.md' },
    ]);
  });
});

describe('brokenLinks', () => {
  const root = mkdtempSync(join(tmpdir(), 'docs-links-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'page.md'), '# Page\n\n## A section\n');
  writeFileSync(join(root, 'code.ts'), '');

  it('accepts existing files, headings, the page itself and external URLs', () => {
    writeFileSync(
      join(root, 'README.md'),
      '# Top\n[1](docs/page.md) [2](docs/page.md#a-section) [3](#top) [4](code.ts#L1) [5](https://example.com/x.md#nope) [6](docs/)\n',
    );
    expect(brokenLinks(join(root, 'README.md'), root)).toEqual([]);
  });

  it('names a missing file and a missing heading, with the line', () => {
    writeFileSync(join(root, 'README.md'), '# Top\n\n[gone](docs/gone.md) [typo](docs/page.md#a-sectoin) [here](#nowhere)\n');
    expect(brokenLinks(join(root, 'README.md'), root)).toEqual([
      { file: 'README.md', line: 3, target: 'docs/gone.md', reason: 'docs/gone.md does not exist' },
      { file: 'README.md', line: 3, target: 'docs/page.md#a-sectoin', reason: 'docs/page.md has no heading #a-sectoin' },
      { file: 'README.md', line: 3, target: '#nowhere', reason: 'README.md has no heading #nowhere' },
    ]);
  });
});
