import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { folderImports, twoWayTies } from './folder-ties';

const root = join(__dirname, '..', '..');

/**
 * Each service's folders form layers a reader can take top-down: a folder may build on another,
 * never the other way round as well. Move what both need below them (a `common/`, `pages/`,
 * `config/`), as the auth server's clock, CSRF tokens and env loaders were.
 */
describe("the services' folders", () => {
  it.each(['auth-server', 'resource-server', 'gateway'])('%s: no two folders import each other', (service) => {
    expect(twoWayTies(folderImports(join(root, 'apps', service, 'src')))).toEqual([]);
  });
});

describe('folderImports and twoWayTies', () => {
  let dir: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'folder-ties-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a pair of folders importing each other, through imports, re-exports and require; a top-level file counts as the folder "."', () => {
    write('token/token.service.ts', "import { Clock } from '../keys/clock';\nexport * from '../app.module';\n");
    write('keys/clock.ts', "const grants = require('../token/grants/list');\nexport class Clock {}\n");
    write('token/grants/list.ts', "import { x } from '@platform/contracts';\n");
    write('app.module.ts', "import { TokenService } from './token/token.service';\n");
    write('keys/clock.spec.ts', "import '../config/x';\n");
    expect(twoWayTies(folderImports(dir))).toEqual([
      ['.', 'token'],
      ['keys', 'token'],
    ]);
  });

  it('a one-way dependency and a spec file are not ties', () => {
    write('token/token.service.ts', "import { Clock } from '../common/clock';\n");
    write('common/clock.ts', 'export class Clock {}\n');
    write('common/clock.spec.ts', "import '../token/token.service';\n");
    expect(folderImports(dir).get('token')).toEqual(new Set(['common']));
    expect(twoWayTies(folderImports(dir))).toEqual([]);
  });
});
