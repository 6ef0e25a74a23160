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

let bridgeInstalled = false;

/**
 * When a launcher forked this process with an IPC channel (the embedded mode of `npm start`),
 * events also travel through the launcher to its other children.
 */
function installIpcBridge(): void {
  if (bridgeInstalled || typeof process.send !== 'function') return;
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
    if (typeof process.send === 'function' && process.connected) {
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
