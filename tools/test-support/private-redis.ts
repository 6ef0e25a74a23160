import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

export const REDIS_SERVER = '/usr/bin/redis-server';

/**
 * A redis-server of the test's own on a free loopback port, which the test may stop and
 * start again (the shared one of REDIS_URL is never touched). With `keepData`, a stop saves
 * the data and a start loads it, like a restart of a persistent Redis.
 */
export class PrivateRedis {
  readonly dir = mkdtempSync(join(tmpdir(), 'private-redis-'));
  port = 0;
  private process?: ChildProcess;

  static available(): boolean {
    return existsSync(REDIS_SERVER);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(options: { keepData?: boolean } = {}): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'no', '--daemonize', 'no'];
    args.push('--save', options.keepData ? '3600 1' : '', '--dbfilename', 'dump.rdb');
    this.process = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
    await waitFor(() => canConnect(this.port), 5_000, `redis-server on ${this.port} did not start`);
  }

  /** SHUTDOWN (saving when started with keepData); resolves once the port is closed. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.process = undefined;
  }

  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, like a network partition. */
  freeze(): void {
    this.process?.kill('SIGSTOP');
  }

  thaw(): void {
    this.process?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    this.thaw();
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitFor(condition: () => Promise<boolean> | boolean, withinMs: number, message: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
