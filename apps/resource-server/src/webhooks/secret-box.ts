import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * The webhook signing secrets at rest: AES-256-GCM under WEBHOOK_SECRETS_KEY. A secret must be
 * usable to sign, so it cannot be stored hashed as the platform's other secrets are; encrypted,
 * a reader of the database alone (a backup, a replica, an SQL injection) cannot forge a school's
 * webhooks, and a changed ciphertext fails authentication instead of signing with garbage.
 * Stored as `v1.<iv>.<ciphertext>.<tag>` (base64url), the subscription id as additional data so a
 * ciphertext copied onto another subscription does not decrypt.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secrets key must be 32 bytes');
  }

  seal(plaintext: string, subscriptionId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(subscriptionId, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  open(stored: string, subscriptionId: string): string {
    const [version, iv, sealed, tag] = stored.split('.');
    if (version !== 'v1' || !iv || !sealed || !tag) throw new Error('not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'))
      .setAAD(Buffer.from(subscriptionId, 'utf8'))
      .setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
  }
}
