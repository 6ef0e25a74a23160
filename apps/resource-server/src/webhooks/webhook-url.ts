import { z } from 'zod';

/**
 * A webhook endpoint: an absolute https URL without credentials or fragment, at most 2,000
 * characters. Where it resolves to is checked on every delivery, on the address connected to
 * (libs/outbound-http): a name that is public today may not be tomorrow. An IP literal of a
 * special-use block is refused at once (webhooks.service.ts).
 */
export const webhookUrl = z
  .url({ protocol: /^https$/ })
  .max(2_000)
  .refine((value) => {
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.hash === '';
  }, 'no user name, password or fragment')
  .describe('An https URL; deliveries never follow redirects and never go to loopback or private addresses');
