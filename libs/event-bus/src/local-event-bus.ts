import { EventEmitter } from 'node:events';
import type { EventBus, EventHandler } from './event-bus';

/** Shared by every LocalEventBus of the process, so services hosted together hear each other. */
const processWide = new EventEmitter().setMaxListeners(0);

interface BridgedMessage {
  type: 'event-bus';
  channel: string;
  payload: unknown;
}

function isBridgedMessage(message: unknown): message is BridgedMessage {
  return typeof message === 'object' && message !== null && (message as BridgedMessage).type === 'event-bus';
}

/**
 * Set by the launcher of `npm start` (and the bench) on the services it forks: their events then
 * also travel through the launcher's IPC channel to its other children. Any other parent with an
 * IPC channel (a jest worker, say) is left alone: a 'message' listener would hold its channel
 * open, so it could not exit, and the events would go to a parent that does not relay them.
 */
function launcherBridgesEvents(): boolean {
  return process.env['PLATFORM_EVENT_BUS_IPC'] === 'true' && typeof process.send === 'function';
}

let bridgeInstalled = false;

function installIpcBridge(): void {
  if (bridgeInstalled || !launcherBridgesEvents()) return;
  bridgeInstalled = true;
  process.on('message', (message: unknown) => {
    if (isBridgedMessage(message)) processWide.emit(message.channel, message.payload);
  });
}

/**
 * The event bus when REDIS_URL is unset: an in-process emitter, bridged across the
 * processes of the embedded platform by the launcher's IPC channel.
 */
export class LocalEventBus implements EventBus {
  private readonly subscriptions = new Set<() => void>();

  constructor() {
    installIpcBridge();
  }

  async publish<T>(channel: string, payload: T): Promise<void> {
    processWide.emit(channel, payload);
    if (bridgeInstalled && process.send && process.connected) {
      const message: BridgedMessage = { type: 'event-bus', channel, payload };
      process.send(message);
    }
  }

  async subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>> {
    const listener = (payload: T) => handler(payload);
    processWide.on(channel, listener);
    const off = () => {
      processWide.off(channel, listener);
    };
    this.subscriptions.add(off);
    return async () => {
      off();
      this.subscriptions.delete(off);
    };
  }

  async close(): Promise<void> {
    for (const off of this.subscriptions) off();
    this.subscriptions.clear();
  }
}
