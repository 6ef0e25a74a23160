// Child processes of the launcher: fork, wait until listening, relay the event bus, stop.
import { fork } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const STOP_GRACE_MS = 10_000;

/**
 * What a forked service reads to send its in-process event bus through this process's IPC channel
 * (libs/event-bus local-event-bus.ts), for relayEventBus to hand on.
 */
export const EVENT_BUS_BRIDGE_ENV = { PLATFORM_EVENT_BUS_IPC: 'true' };

export function startChild(name, main, env, cwd, execArgv = []) {
  const child = fork(main, [], { env: { ...env, ...EVENT_BUS_BRIDGE_ENV }, cwd, stdio: 'inherit', execArgv });
  child.serviceName = name;
  return child;
}

function canConnect(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitUntilListening(child, host, port, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${child.serviceName} exited during start-up`);
    }
    if (await canConnect(host, port)) return;
    await sleep(200);
  }
  throw new Error(`${child.serviceName} did not listen on ${host}:${port} within ${timeoutMs / 1000} s`);
}

/** Resolves when the child sends {type}; rejects if it exits first or after timeoutMs. */
export function waitForMessage(child, type, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${child.serviceName} did not report ${type} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onMessage = (message) => {
      if (message?.type === type) done();
    };
    const onExit = () => done(new Error(`${child.serviceName} exited during start-up`));
    function done(error) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * LocalEventBus in each service sends {type:'event-bus'} to its parent when no Redis is
 * configured: hand every such message to the other services.
 */
export function relayEventBus(children) {
  for (const source of children) {
    source.on('message', (message) => {
      if (message?.type !== 'event-bus') return;
      for (const target of children) {
        if (target !== source && target.connected) target.send(message);
      }
    });
  }
}

/** SIGTERM, then SIGKILL after the grace period; resolves once the child has exited. */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
