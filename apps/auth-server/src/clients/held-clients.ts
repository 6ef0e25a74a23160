import { Inject, Injectable } from '@nestjs/common';
import { HeldUnderTrust } from '@platform/held-under-trust';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { RevocationTrust } from '../events/revocation-trust';
import { ClientsRepository, type StoredClient } from './clients.repository';

/** Registered clients held at most; the least recently used go first. */
const MAX_ENTRIES = 10_000;
/**
 * The longest a row is held: a change whose event could not be published (Redis refused the
 * publish) is seen after at most this long, as the live access tokens' ceiling.
 */
const TTL_MS = 60_000;

/**
 * Registered clients (dynamic registrations and staff integrations) held in memory after their
 * first lookup: every token, revocation and introspection request authenticates its client, and
 * the row changes only through the clients CLI, which announces each change on the bus
 * (CLIENT_CHANGED_CHANNEL; ClientChangeSubscriber evicts here). Held only while this instance
 * hears every event (RevocationTrust, the judge the live access tokens use): meanwhile every
 * lookup reads the database, and trust comes back with an empty map. Unknown ids are never
 * held, so a client registered on another instance is found at once. Without REDIS_URL nothing is
 * held: the CLI runs in a process of its own and could not tell this one.
 */
@Injectable()
export class HeldClients {
  /** Undefined without REDIS_URL. */
  private readonly held: HeldUnderTrust<StoredClient> | undefined;

  constructor(
    private readonly clients: ClientsRepository,
    trust: RevocationTrust,
    @Inject(AUTH_CONFIG) config: Pick<AuthConfig, 'redisUrl'>,
  ) {
    this.held = config.redisUrl ? new HeldUnderTrust(trust, { max: MAX_ENTRIES, maxDropped: MAX_ENTRIES, ttlMs: TTL_MS }) : undefined;
  }

  findById(id: string): Promise<StoredClient | null> {
    const load = () => this.clients.findClientById(id);
    return this.held ? this.held.read(id, load) : load();
  }

  /** The client changed: dropped at once, and kept out while lookups that began before are under way. */
  evict(id: string): void {
    this.held?.drop(id);
  }
}
