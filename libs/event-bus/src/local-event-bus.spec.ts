import type { LocalEventBus as LocalEventBusClass } from './local-event-bus';

/**
 * The IPC bridge of the embedded platform, in a process that has an IPC channel (process.send),
 * as both a service forked by the launcher and a jest worker have.
 */
type MessageListener = (message: unknown) => void;
const messageListeners = () => process.listeners('message') as unknown as MessageListener[];

describe('LocalEventBus across processes', () => {
  const originalSend = process.send;
  let sent: unknown[];
  let listenersBefore: MessageListener[];

  /** A fresh copy of the module: the bridge is installed once per process. */
  const freshBus = (): LocalEventBusClass => {
    let bus: LocalEventBusClass | undefined;
    jest.isolateModules(() => {
      const { LocalEventBus } = require('./local-event-bus') as typeof import('./local-event-bus');
      bus = new LocalEventBus();
    });
    return bus as LocalEventBusClass;
  };
  const addedMessageListeners = () => messageListeners().filter((listener) => !listenersBefore.includes(listener));

  beforeEach(() => {
    sent = [];
    listenersBefore = messageListeners();
    process.send = ((message: unknown) => {
      sent.push(message);
      return true;
    }) as typeof process.send;
    delete process.env['PLATFORM_EVENT_BUS_IPC'];
  });
  afterEach(() => {
    for (const listener of addedMessageListeners()) process.off('message', listener);
    process.send = originalSend;
    delete process.env['PLATFORM_EVENT_BUS_IPC'];
  });

  it("leaves a parent's IPC channel alone unless the launcher asked for the bridge: no listener holding the channel open, nothing sent", async () => {
    const bus = freshBus();
    expect(addedMessageListeners()).toEqual([]);
    await bus.publish('revocations', { token: 'hash' });
    expect(sent).toEqual([]);
  });

  it('on a service the launcher forked, events go out through the channel and come in from it', async () => {
    process.env['PLATFORM_EVENT_BUS_IPC'] = 'true';
    const connected = Object.getOwnPropertyDescriptor(process, 'connected');
    Object.defineProperty(process, 'connected', { value: true, configurable: true });
    try {
      const bus = freshBus();
      const received: unknown[] = [];
      await bus.subscribe('revocations', (payload) => {
        received.push(payload);
      });
      await bus.publish('revocations', { token: 'mine' });
      expect(sent).toEqual([{ type: 'event-bus', channel: 'revocations', payload: { token: 'mine' } }]);

      const [bridge] = addedMessageListeners();
      expect(addedMessageListeners()).toHaveLength(1);
      bridge({ type: 'event-bus', channel: 'revocations', payload: { token: 'from the other service' } });
      bridge({ type: 'something else', channel: 'revocations', payload: 'ignored' });
      expect(received).toEqual([{ token: 'mine' }, { token: 'from the other service' }]);
      await bus.close();
    } finally {
      if (connected) Object.defineProperty(process, 'connected', connected);
      else delete (process as { connected?: boolean }).connected;
    }
  });
});
