// The receiver's side of the platform's webhooks, as the docs give it: Node, node:crypto only.
// Pass the raw body (the exact bytes received, before any JSON parsing) and the request headers.
const { createHmac, timingSafeEqual } = require('node:crypto');

function verifyWebhook(secret, headers, rawBody) {
  const id = headers['webhook-id'], timestamp = headers['webhook-timestamp'], signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new Error('missing webhook headers');
  // Replay window: refuse a delivery signed more than 5 minutes from now.
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 5 * 60) throw new Error('timestamp outside the 5-minute window');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  // Several signatures during a secret rotation: any one that matches will do.
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new Error('no valid signature');
  return JSON.parse(rawBody); // then de-duplicate by `id`: a delivery may come more than once
}

module.exports = { verifyWebhook };
