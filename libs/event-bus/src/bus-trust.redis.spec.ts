/**
 * The trust rule on a real Redis: a stalled event loop is not a lost message. A heartbeat's echo
 * that reached the socket while the process was busy is read before the next beat is judged.
 */
import { Logger } from '@nestjs/common';
import { PrivateRedis, waitFor } from '../../../tools/test-support/private-redis';
import { BusTrust } from './bus-trust';
import { RedisEventBus } from './redis-event-bus';

/** Keeps the event loop busy, as a long synchronous task (a big JSON.parse, a slow regex) would. */
function stallEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

jest.setTimeout(30_000);

(PrivateRedis.available() ? describe : describe.skip)('BusTrust on Redis', () => {
  const redis = new PrivateRedis();

  beforeAll(async () => {
    Logger.overrideLogger(false);
    await redis.start();
  });
  afterAll(() => redis.destroy());

  it('keeps trust through an event-loop stall longer than a heartbeat, when every echo arrived', async () => {
    const bus = await new RedisEventBus(redis.url).connect();
    // Stalls once, right after a heartbeat is published: its echo arrives while the loop is busy.
    let stallAfterNextPublish = false;
    const publish = bus.publish.bind(bus);
    bus.publish = async (channel, payload) => {
      await publish(channel, payload);
      if (stallAfterNextPublish) {
        stallAfterNextPublish = false;
        stallEventLoop(2_500);
      }
    };
    const trust = new BusTrust(bus, { name: 'stall-test', holds: 'state' });
    try {
      await trust.start();
      await waitFor(() => trust.trustPeriod() !== undefined, 5_000, 'trust never came');
      const period = trust.trustPeriod();
      stallAfterNextPublish = true;
      await waitFor(() => !stallAfterNextPublish, 5_000, 'no heartbeat was published');
      // Two more beats judged after the stall.
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      expect(trust.trustPeriod()).toBe(period);
    } finally {
      await trust.stop();
      await bus.close();
    }
  });
});
