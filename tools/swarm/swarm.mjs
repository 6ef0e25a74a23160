// Docker swarm for the swarm stage (test-swarm.mjs): a one-node swarm on the local engine, the
// stack deployed and waited for, and everything removed again. Synchronous docker CLI calls,
// except where a caller waits on a long one.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

/** Where dockerd mounts the network namespaces of sandboxes and overlay networks. */
const NETNS_DIR = '/var/run/docker/netns';

/**
 * @typedef {{ docker: string, root: string, log: (message: string) => void }} Context
 */

export class Swarm {
  /**
   * @param {Context} context
   * @param {string} stack the stack's name (its services are `<stack>_<service>`)
   */
  constructor(context, stack) {
    this.docker = context.docker;
    this.root = context.root;
    this.log = context.log;
    this.stack = stack;
    /** This run made the node a swarm manager, so it leaves the swarm at the end. */
    this.initialized = false;
  }

  /**
   * @param {string[]} args
   * @param {{ env?: NodeJS.ProcessEnv, input?: string, timeoutMs?: number }} [options]
   */
  run(args, options = {}) {
    const result = spawnSync(this.docker, args, {
      cwd: this.root,
      encoding: 'utf8',
      env: options.env ?? process.env,
      input: options.input,
      maxBuffer: 64 * 1024 * 1024,
      // No docker command here takes minutes; `service logs` has been seen to hang (moby#38640).
      timeout: options.timeoutMs ?? 120_000,
    });
    return { ok: !result.error && result.status === 0, stdout: (result.stdout ?? '').trim(), stderr: (result.stderr ?? '').trim() };
  }

  /**
   * Like run, but a failure throws with what docker said.
   * @param {string[]} args
   * @param {{ env?: NodeJS.ProcessEnv, input?: string }} [options]
   */
  must(args, options) {
    const result = this.run(args, options);
    if (!result.ok) throw new Error(`docker ${args.slice(0, 3).join(' ')}: ${result.stderr || result.stdout}`);
    return result.stdout;
  }

  /**
   * A long docker command, its output streamed to ours (a rolling update, the migration).
   * @param {string[]} args
   * @param {NodeJS.ProcessEnv} [env]
   * @returns {Promise<{ code: number, output: string }>}
   */
  runAsync(args, env) {
    return new Promise((resolve) => {
      const child = spawn(this.docker, args, { cwd: this.root, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.once('error', (error) => resolve({ code: 1, output: `${output}${error.message}` }));
      child.once('exit', (code) => resolve({ code: code ?? 1, output }));
    });
  }

  /** `inactive`, `active`, ... */
  nodeState() {
    return this.run(['info', '--format', '{{.Swarm.LocalNodeState}}']).stdout;
  }

  /**
   * A one-node swarm on this engine. An engine that is already in a swarm is refused: the stage
   * would deploy into someone's cluster and could not leave it afterwards.
   */
  init() {
    const state = this.nodeState();
    if (state !== 'inactive') throw new Error(`this engine is already in a swarm (${state}); the stage needs an engine of its own`);
    // Loopback: nothing outside this machine can join. No IPVS here: the services use dnsrr,
    // but `swarm init` still creates the `ingress` network (removed when the node leaves).
    this.must(['swarm', 'init', '--advertise-addr', '127.0.0.1', '--listen-addr', '127.0.0.1:2377']);
    this.initialized = true;
    const node = this.must(['info', '--format', '{{.Swarm.NodeID}}']);
    // PostgreSQL's volume lives on this node (stack.yml's placement constraint).
    this.must(['node', 'update', '--label-add', 'course-platform.postgres=true', node]);
  }

  /**
   * `docker stack deploy` of the given files with this environment (the stack's variables).
   * @param {string[]} files
   * @param {NodeJS.ProcessEnv} env
   */
  deploy(files, env) {
    // --resolve-image never: the images are local (no registry to record digests from).
    return this.must(['stack', 'deploy', '--resolve-image', 'never', '--prune', ...files.flatMap((file) => ['-c', file]), this.stack], { env });
  }

  /** @param {string} service */
  serviceName(service) {
    return `${this.stack}_${service}`;
  }

  /**
   * Running containers of a service's tasks on this node.
   * @param {string} service
   */
  containersOf(service) {
    return this.must(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${this.serviceName(service)}`]).split('\n').filter(Boolean);
  }

  /**
   * Running / desired replicas of each service of the stack.
   * @returns {Record<string, { running: number, desired: number }>}
   */
  replicas() {
    const lines = this.must(['service', 'ls', '--filter', `label=com.docker.stack.namespace=${this.stack}`, '--format', '{{.Name}} {{.Replicas}}']).split('\n').filter(Boolean);
    return Object.fromEntries(
      lines.map((line) => {
        const [name = '', replicas = ''] = line.split(' ');
        const [running, desired] = replicas.split('/').map(Number);
        return [name.slice(this.stack.length + 1), { running: running ?? 0, desired: desired ?? 0 }];
      }),
    );
  }

  /**
   * Until each named service runs its replicas (a task with a healthcheck counts once healthy),
   * no update is in progress, and every container of the stack is healthy.
   * @param {Record<string, number>} expected service → replicas
   * @param {number} timeoutSeconds
   */
  async waitConverged(expected, timeoutSeconds) {
    const deadline = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const replicas = this.replicas();
      const pending = Object.entries(expected).filter(([service, count]) => replicas[service]?.running !== count || replicas[service]?.desired !== count);
      const updating = Object.keys(expected).filter((service) => ['updating', 'rollback_started'].includes(this.updateState(service)));
      const unhealthy = this.must(['ps', '--filter', `label=com.docker.stack.namespace=${this.stack}`, '--format', '{{.Names}} {{.Status}}'])
        .split('\n')
        .filter((line) => line && !line.includes('(healthy)'));
      if (pending.length === 0 && updating.length === 0 && unhealthy.length === 0) return;
      if (Date.now() > deadline) {
        const why = [
          ...pending.map(([service, count]) => `${service} ${replicas[service]?.running ?? 0}/${count}`),
          ...updating.map((service) => `${service} still updating`),
          ...unhealthy,
        ];
        throw new Error(`not converged after ${timeoutSeconds} s: ${why.join(', ')}\n${this.taskErrors()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  /**
   * The state of a service's last update (`completed`, `updating`, `rollback_completed`...), or '' if none.
   * @param {string} service
   */
  updateState(service) {
    return this.run(['service', 'inspect', '--format', '{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}', this.serviceName(service)]).stdout;
  }

  /** Tasks that failed or were rejected, with swarm's reason (for a failure message). */
  taskErrors() {
    return this.run(['stack', 'ps', '--no-trunc', '--filter', 'desired-state=shutdown', '--format', '{{.Name}} {{.CurrentState}} {{.Error}}', this.stack]).stdout
      .split('\n')
      .filter((line) => /Failed|Rejected|error/i.test(line))
      .slice(0, 20)
      .join('\n');
  }

  /**
   * Each service's recent errors, one line per distinct message (for a failure).
   * @param {string[]} services
   */
  logs(services) {
    return services
      .map((service) => {
        const lines = this.run(['service', 'logs', '--no-task-ids', '--tail', '300', this.serviceName(service)], { timeoutMs: 15_000 }).stdout.split('\n');
        /** @type {Map<string, { line: string, count: number }>} */
        const distinct = new Map();
        for (const line of lines.filter((text) => !text.includes('"level":"info"') && !text.includes('"level":"debug"'))) {
          // The same message about other requests, files or times counts once.
          const message = (/"msg":"([^"]*)"/.exec(line)?.[1] ?? line.slice(line.indexOf('|') + 1, 200)) + (/"message":"([^"]{0,60})/.exec(line)?.[1] ?? '').replace(/'[^']*'|\d+/g, '');
          const seen = distinct.get(message);
          if (seen) seen.count++;
          else distinct.set(message, { line: line.slice(0, 400), count: 1 });
        }
        return `--- ${service}: ${distinct.size} distinct warnings and errors in its last 300 lines\n${[...distinct.values()].slice(0, 12).map(({ line, count }) => `${count}x ${line}`).join('\n')}`;
      })
      .join('\n');
  }

  /**
   * Removes the stack, its networks and volume; leaves the swarm this run created and removes
   * the `docker_gwbridge` bridge swarm left behind (dockerd.sh then stops the engine and puts
   * the host's iptables, bridges and ip_forward back). Each step is attempted whatever the
   * previous one did; returns what could not be removed.
   * @param {string[]} volumes the stack's named volumes
   */
  async teardown(volumes) {
    /** @type {string[]} */
    const leftovers = [];
    if (this.run(['stack', 'ls', '--format', '{{.Name}}']).stdout.split('\n').includes(this.stack)) this.run(['stack', 'rm', this.stack]);
    // `stack rm` returns at once; containers and networks go over the next seconds.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const containers = this.run(['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${this.stack}`]).stdout;
      const networks = this.run(['network', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${this.stack}`]).stdout;
      if (!containers && !networks) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    for (const volume of volumes) {
      const name = `${this.stack}_${volume}`;
      if (this.run(['volume', 'inspect', name]).ok && !this.run(['volume', 'rm', '-f', name]).ok) leftovers.push(`volume ${name}`);
    }
    if (this.initialized) {
      const left = this.run(['swarm', 'leave', '--force']);
      if (!left.ok) leftovers.push(`swarm membership (${left.stderr})`);
      this.initialized = false;
    }
    // Created by the first swarm service on this node; swarm does not remove it when leaving.
    if (this.nodeState() === 'inactive' && this.run(['network', 'inspect', 'docker_gwbridge']).ok) {
      const removed = this.run(['network', 'rm', 'docker_gwbridge']);
      if (!removed.ok) leftovers.push(`docker_gwbridge (${removed.stderr})`);
    }
    // The overlay networks' namespaces (and the ingress sandbox) go a few seconds after the
    // node left: wait for them, so that stopping the engine next leaves none mounted.
    const namespaces = () => (existsSync(NETNS_DIR) ? readdirSync(NETNS_DIR).filter((name) => /^(ingress_sbox|lb_|\d+-)/.test(name)) : []);
    const gone = Date.now() + 60_000;
    while (namespaces().length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const name of namespaces()) leftovers.push(`network namespace ${name}`);
    const networks = this.run(['network', 'ls', '--format', '{{.Name}}']).stdout.split('\n');
    for (const name of networks.filter((network) => network === 'ingress' || network.startsWith(`${this.stack}_`))) leftovers.push(`network ${name}`);
    return leftovers;
  }
}
