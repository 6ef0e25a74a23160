import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../../../tools/test-support/free-port';

const BIN = process.env['POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl) on a free loopback port, which the
 * test may stop and start again; the shared server of DATABASE_URL is never touched. PostgreSQL
 * refuses to run as root: as root, the cluster belongs to the `postgres` user.
 */
export class PrivatePostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'private-postgres-'));
  private readonly data = join(this.dir, 'data');
  port = 0;

  static available(): boolean {
    const asRoot = process.getuid?.() === 0;
    return (
      existsSync(join(BIN, 'initdb')) &&
      existsSync(join(BIN, 'pg_ctl')) &&
      (!asRoot || spawnSync('id', ['-u', 'postgres']).status === 0)
    );
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async init(): Promise<void> {
    this.port = await freePort();
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
      chownSync(this.dir, uid, gid);
      chmodSync(this.dir, 0o700);
    }
    this.run('initdb', ['-D', this.data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  }

  start(): void {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
    this.run('pg_ctl', ['-D', this.data, '-o', options, '-l', join(this.dir, 'log'), '-w', '-t', '30', 'start']);
  }

  /** `fast`: rolls back open transactions and disconnects; `immediate`: like a crash (recovery at the next start). */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    this.run('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '30', 'stop']);
  }

  destroy(): void {
    if (existsSync(join(this.data, 'postmaster.pid'))) {
      try {
        this.stop('immediate');
      } catch {
        // already gone
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private run(tool: string, args: string[]): void {
    const command = join(BIN, tool);
    const asRoot = process.getuid?.() === 0;
    const result = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' })
      : spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr || result.stdout}`);
  }
}
