/**
 * The scope catalogue: the one source for discovery metadata, consent pages,
 * request validation and documentation. Order matters: it is the order in which
 * scopes are listed in metadata and on the consent page.
 */
export const SCOPE_GROUPS = {
  identity: 'Your identity',
  catalog: 'Courses and content',
  people: 'People',
  commerce: 'Sales and billing',
  school: 'School and site',
  account: 'Your account',
} as const;

export type ScopeGroup = keyof typeof SCOPE_GROUPS;

interface ScopeDefinition {
  readonly description: string;
  readonly group: ScopeGroup;
  /**
   * The read scope a write scope includes: granting the write scope grants this one with it
   * (scope-set.ts withIncludedScopes), so a client can read what it writes.
   */
  readonly includes?: string;
}

export const SCOPES = {
  openid: { group: 'identity', description: 'Sign you in and know who you are' },
  profile: { group: 'identity', description: 'See your name' },
  email: { group: 'identity', description: 'See your email address' },
  'courses:read': { group: 'catalog', description: 'See the school’s courses, including unpublished ones' },
  'courses:write': { group: 'catalog', description: 'Create, edit and delete courses', includes: 'courses:read' },
  'curriculum:read': { group: 'catalog', description: 'See course sections and lessons' },
  'curriculum:write': { group: 'catalog', description: 'Create, edit and delete course sections and lessons', includes: 'curriculum:read' },
  'lecturers:read': { group: 'catalog', description: 'See lecturer profiles' },
  'lecturers:write': { group: 'catalog', description: 'Create, edit and delete lecturer profiles', includes: 'lecturers:read' },
  'posts:read': { group: 'catalog', description: 'See blog posts, including drafts' },
  'posts:write': { group: 'catalog', description: 'Write, edit and delete blog posts', includes: 'posts:read' },
  'comments:read': { group: 'catalog', description: 'See comments on posts and lessons' },
  'events:read': { group: 'catalog', description: 'See events, including private ones' },
  'events:write': { group: 'catalog', description: 'Create, edit and delete events', includes: 'events:read' },
  'digital_products:read': { group: 'catalog', description: 'See digital products' },
  'digital_products:write': { group: 'catalog', description: 'Create, edit and delete digital products', includes: 'digital_products:read' },
  'pages:read': { group: 'catalog', description: 'See site pages, including drafts' },
  'pages:write': { group: 'catalog', description: 'Create, edit and delete site pages', includes: 'pages:read' },
  'forms:read': { group: 'catalog', description: 'See forms and the answers people submitted' },
  'storage:write': { group: 'catalog', description: 'Upload files to the school’s storage' },
  'students:read': { group: 'people', description: 'See students and their enrollments' },
  'students:write': { group: 'people', description: 'Add, edit and remove students and enrollments', includes: 'students:read' },
  'members:read': { group: 'people', description: 'See the school’s team members and their roles' },
  'members:write': { group: 'people', description: 'Invite, edit and remove team members', includes: 'members:read' },
  'orders:read': { group: 'commerce', description: 'See orders and payments' },
  'orders:write': { group: 'commerce', description: 'Record orders, their payments and refunds', includes: 'orders:read' },
  'coupons:read': { group: 'commerce', description: 'See coupons' },
  'coupons:write': { group: 'commerce', description: 'Create, edit and delete coupons', includes: 'coupons:read' },
  'membership_plans:read': { group: 'commerce', description: 'See membership plans' },
  'membership_plans:write': { group: 'commerce', description: 'Create, edit and delete membership plans', includes: 'membership_plans:read' },
  'subscriptions:read': { group: 'commerce', description: 'See subscriptions to membership plans' },
  'subscriptions:write': { group: 'commerce', description: 'Create, change and cancel subscriptions', includes: 'subscriptions:read' },
  'analytics:read': { group: 'commerce', description: 'See revenue, enrollment and course figures' },
  'school:read': { group: 'school', description: 'See the school’s profile and settings' },
  'school:write': { group: 'school', description: 'Change the school’s profile and settings', includes: 'school:read' },
  'appearance:read': { group: 'school', description: 'See the school’s theme and branding' },
  'appearance:write': { group: 'school', description: 'Change the school’s theme and branding', includes: 'appearance:read' },
  'audit_log:read': { group: 'school', description: 'See the school’s security events: sign-ins, consents, tokens and revocations (owners only)' },
  'webhooks:read': { group: 'school', description: 'See the school’s webhook subscriptions and their deliveries (owners only)' },
  'webhooks:write': { group: 'school', description: 'Create, change and delete webhook subscriptions and redeliver events (owners only)', includes: 'webhooks:read' },
  'account:read': { group: 'account', description: 'See your account in this school' },
  'account:write': { group: 'account', description: 'Change your account in this school', includes: 'account:read' },
} as const satisfies Record<string, ScopeDefinition>;

export type Scope = keyof typeof SCOPES;

/** Every scope, in catalogue order. */
export const ALL_SCOPES = Object.keys(SCOPES) as readonly Scope[];

/** The OpenID Connect scopes; everything else is a business scope guarding API routes. */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const satisfies readonly Scope[];

export const BUSINESS_SCOPES = ALL_SCOPES.filter(
  (scope) => !(OIDC_SCOPES as readonly string[]).includes(scope),
) as readonly Scope[];

/**
 * OpenID Connect Core §11: `offline_access` asks for a refresh token usable while the user is
 * not present. A protocol scope of the authorization server, not a business scope: it guards
 * no API route, so it is outside the catalogue above (and never in a protected resource's
 * `scopes_supported`). This platform issues refresh tokens to every client registered for the
 * refresh_token grant, with or without it; consent shows it as "stay signed in".
 */
export const OFFLINE_ACCESS = 'offline_access';

export const PROTOCOL_SCOPES = {
  [OFFLINE_ACCESS]: { group: 'identity', description: 'Stay signed in: keep access while you are away, until you revoke it' },
} as const satisfies Record<string, ScopeDefinition>;

export type ProtocolScope = keyof typeof PROTOCOL_SCOPES;

/** What the authorization server accepts and lists in its `scopes_supported`: the catalogue, then the protocol scopes. */
export const AUTHORIZATION_SERVER_SCOPES = [...ALL_SCOPES, ...(Object.keys(PROTOCOL_SCOPES) as ProtocolScope[])] as readonly (
  | Scope
  | ProtocolScope
)[];
