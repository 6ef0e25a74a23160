import { isTokenPrincipal, type AuthPrincipal } from '@platform/bearer-auth';
import { type BusinessEventType, newEventId, type PlatformEvent } from '@platform/contracts';

/** What a write path says happened: the type, the item it happened to, and that item's API view. */
export interface BusinessChange {
  readonly type: BusinessEventType;
  readonly subject: { readonly type: string; readonly id: string };
  /** The item as the API shows it (a DTO class instance type: an object). */
  readonly data: object;
}

/**
 * The event of a change made through the API: the school and actor are the token's (the user
 * it was issued to, acting through its client); `data` is the item as the API shows it.
 */
export function businessEvent(schoolId: string, principal: AuthPrincipal, change: BusinessChange, requestId: string | null = null): PlatformEvent {
  return {
    id: newEventId(),
    type: change.type,
    occurred_at: new Date().toISOString(),
    school_id: schoolId,
    actor: isTokenPrincipal(principal) ? { type: 'user', id: principal.userId } : { type: 'system', id: null },
    subject: change.subject,
    client_id: isTokenPrincipal(principal) ? principal.clientId : null,
    address: null,
    request_id: requestId,
    outcome: 'success',
    data: change.data as Record<string, unknown>,
  };
}
