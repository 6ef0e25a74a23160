/**
 * What docs/configuration.md is made of, process by process. The services' variables come from
 * their zod schemas (the files named here, loaded as they run); only what no schema says is
 * written by hand below, and configuration.spec.ts holds each hand-written line to the code: the
 * production rules to the loaders' behaviour, the hand tables to the variables their sources read.
 */

/** A source of variables: an exported zod object schema. */
export interface SchemaSource {
  /** From the workspace root. */
  file: string;
  exportName: string;
}

/** A variable written by hand: one a process reads beside its schema, or one of a process with no schema. */
export interface HandVariable {
  name: string;
  /** The default column, Markdown. */
  fallback: string;
  values: string;
  /** The process does not start without it. */
  required?: boolean;
  description: string;
  /** Services only: the row it follows in the schema's order (the end of the table when absent). */
  after?: string;
  /** Where it is read, from the workspace root: the page names it. */
  readIn?: string;
}

/**
 * What NODE_ENV=production adds to a variable, as the service's loader enforces it (the loaders
 * check it in code after the schema; configuration.spec.ts runs them to hold these lines true).
 */
export interface ProductionRule {
  /** The start fails without it; with `orElse`, without either of the two. */
  required?: boolean;
  orElse?: string;
  /** A value the schema accepts and production refuses. */
  refused?: string;
  /** Appended to the values column. */
  note?: string;
}

export type ServiceName = 'auth-server' | 'resource-server' | 'gateway';

export interface ServiceDefinition {
  service: ServiceName;
  heading: string;
  /** One paragraph under the heading. */
  intro: string;
  /** In the order the loader reads them; a variable in two keeps its first place. */
  schemas: SchemaSource[];
  /** The loader: `(env) => config`, throwing a message that names the variable. */
  loader: SchemaSource;
  /** Its container image, whose final stage's ENV the page lists. */
  dockerfile: string;
  /** Read beside the schemas. */
  extras: HandVariable[];
  production: Record<string, ProductionRule>;
}

const LOG_FORMAT: HandVariable = {
  name: 'LOG_FORMAT',
  fallback: '`auto`',
  values: 'one of `auto`, `json`, `pretty`',
  description: '`auto`: readable lines when stdout is a terminal, JSON lines otherwise; `json` or `pretty` decides. Checked when the first logger is made.',
  after: 'LOG_LEVEL',
  readIn: 'libs/logging/src/log-format.ts',
};

const NOT_TRUE_IN_PRODUCTION: ProductionRule = { refused: 'true', note: 'not `true` (`1`) in production' };
const LONG_SECRET_IN_PRODUCTION: ProductionRule = { refused: 'sixteen-characters', note: 'at least 32 in production' };

export const SERVICES: readonly ServiceDefinition[] = [
  {
    service: 'auth-server',
    heading: 'The authorization server (`auth-server`)',
    intro: 'The OAuth 2.0 / OpenID Connect server: registration, sign-in and consent, tokens, introspection, revocation.',
    schemas: [
      { file: 'apps/auth-server/src/config/auth-config.ts', exportName: 'EnvSchema' },
      { file: 'apps/auth-server/src/config/limits-config.ts', exportName: 'LimitsEnvSchema' },
      { file: 'apps/auth-server/src/config/cimd-config.ts', exportName: 'EnvSchema' },
      { file: 'apps/auth-server/src/config/security-events-config.ts', exportName: 'SecurityEventsEnvSchema' },
    ],
    loader: { file: 'apps/auth-server/src/config/auth-config.ts', exportName: 'loadAuthConfig' },
    dockerfile: 'apps/auth-server/Dockerfile',
    extras: [LOG_FORMAT],
    production: {
      PUBLIC_BASE_URL: { required: true, refused: 'http://platform.example', note: '`https:` in production' },
      REDIS_URL: { required: true },
      RESOURCE_SERVER_URL: { required: true },
      OIDC_SIGNING_KEYS: { required: true, orElse: 'OIDC_SIGNING_KEYS_FILE' },
      OIDC_SIGNING_KEYS_FILE: { required: true, orElse: 'OIDC_SIGNING_KEYS' },
      INTROSPECTION_CLIENT_SECRET: LONG_SECRET_IN_PRODUCTION,
      EMBEDDED_MODE: NOT_TRUE_IN_PRODUCTION,
      SEED_DEMO_DATA: NOT_TRUE_IN_PRODUCTION,
      CIMD_ALLOW_SPECIAL_USE_HOSTS: NOT_TRUE_IN_PRODUCTION,
      CIMD_EXTRA_CA_FILE: { refused: '/etc/ssl/certs/extra.pem', note: 'refused in production' },
    },
  },
  {
    service: 'resource-server',
    heading: 'The resource server (`resource-server`)',
    intro: 'The course-platform API, `/mcp` and the agent documents; it learns about tokens by introspection.',
    schemas: [
      { file: 'apps/resource-server/src/config/resource-config.ts', exportName: 'EnvSchema' },
      { file: 'apps/resource-server/src/config/events-config.ts', exportName: 'EventsEnvSchema' },
    ],
    loader: { file: 'apps/resource-server/src/config/resource-config.ts', exportName: 'loadResourceConfig' },
    dockerfile: 'apps/resource-server/Dockerfile',
    extras: [
      LOG_FORMAT,
      {
        name: 'PRICING_FILE',
        fallback: '`data/pricing.yaml` beside the app',
        values: 'file path',
        description: 'The plans behind `/pricing.md` (YAML; JSON is YAML too), checked at start; a relative path is from the working directory.',
        after: 'DEFAULT_SCHOOL_ID',
        readIn: 'apps/resource-server/src/documents/pricing.ts',
      },
    ],
    production: {
      REDIS_URL: { required: true },
      INTROSPECTION_CLIENT_SECRET: LONG_SECRET_IN_PRODUCTION,
      EMBEDDED_MODE: NOT_TRUE_IN_PRODUCTION,
      SEED_DEMO_DATA: NOT_TRUE_IN_PRODUCTION,
    },
  },
  {
    service: 'gateway',
    heading: 'The gateway (`gateway`)',
    intro:
      'The one origin in front of both services. It has no production rules of its own, and it takes a variable set to nothing (`VAR=`, as a compose file may pass it) for one not set.',
    schemas: [{ file: 'apps/gateway/src/config.ts', exportName: 'EnvSchema' }],
    loader: { file: 'apps/gateway/src/config.ts', exportName: 'loadGatewayConfig' },
    dockerfile: 'apps/gateway/Dockerfile',
    extras: [LOG_FORMAT],
    production: {},
  },
];

/** A process with no schema: its variables, written by hand and held to what its sources read. */
export interface HandProcess {
  heading: string;
  intro: string;
  /** Every source that reads its environment, from the workspace root. */
  sources: string[];
  variables: HandVariable[];
}

/** tools/containers/migrate.cjs: the job that creates and migrates both databases before the services start. */
export const MIGRATION_JOB: HandProcess = {
  heading: 'The migration job (`migrate`)',
  intro:
    'Creates each service\'s database when missing and applies its migrations, then exits (compose\'s `migrate` service, the Kubernetes `migrate` Job, a `docker run` of the image on swarm). It connects as the schema\'s owner, directly to PostgreSQL.',
  sources: ['tools/containers/migrate.cjs'],
  variables: [
    { name: 'AUTH_DATABASE_URL', fallback: '—', values: 'URL (`postgres:`, `postgresql:`)', required: true, description: 'The authorization server\'s database.' },
    { name: 'RESOURCE_DATABASE_URL', fallback: '—', values: 'URL (`postgres:`, `postgresql:`)', required: true, description: 'The resource server\'s database.' },
    {
      name: 'MIGRATE_CREATE_DATABASES',
      fallback: '`true`',
      values: '`true` or `false` (`1`, `0`)',
      description: '`true`: `CREATE DATABASE` when missing, connected to the server\'s `postgres` database; `false` when the databases are provisioned elsewhere.',
    },
    { name: 'MIGRATE_CONNECT_TIMEOUT_SECONDS', fallback: '`60`', values: 'number of seconds, at least 0', description: 'How long the first connection is retried (PostgreSQL still starting).' },
  ],
};

/** tools/platform: `npm start`, the whole platform on one machine. */
export const LAUNCHER: HandProcess = {
  heading: 'The launcher (`npm start`)',
  intro:
    'Starts the databases, both services and the gateway on one machine (`tools/platform/start.mjs`). It passes its whole environment on to every process it starts, so any variable of the tables above can be set for `npm start`; the ones below it reads itself, to choose what it gives them. It also sets `EMBEDDED_MODE`, each service\'s `DATABASE_URL`, and glibc\'s `MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_` and `MALLOC_TRIM_THRESHOLD_` (a value you set wins).',
  sources: [
    'tools/platform/start.mjs',
    'tools/platform/services.mjs',
    'tools/platform/databases.mjs',
    'tools/platform/lock.mjs',
    'tools/platform/processes.mjs',
    'tools/platform/secrets.mjs',
  ],
  variables: [
    {
      name: 'DATABASE_URL',
      fallback: 'unset: embedded',
      values: 'URL (`postgres:`, `postgresql:`)',
      description:
        'A PostgreSQL server: each service gets a database of its own there, the URL\'s database name plus `_auth` and `_resource`, created when missing and migrated. Unset: the embedded mode, an embedded PostgreSQL (PGlite) per service in `PLATFORM_DATA_DIR`.',
    },
    { name: 'AUTH_DATABASE_URL', fallback: 'derived from `DATABASE_URL`', values: 'URL', description: 'With `DATABASE_URL`: the authorization server\'s database as is (migrated, not created).' },
    { name: 'RESOURCE_DATABASE_URL', fallback: 'derived from `DATABASE_URL`', values: 'URL', description: 'With `DATABASE_URL`: the resource server\'s database as is (migrated, not created).' },
    {
      name: 'PLATFORM_DATA_DIR',
      fallback: '`.data` in the repository',
      values: 'directory',
      description: 'Where the embedded mode keeps its databases, the generated introspection secret (`secrets.json`) and signing keys (`auth/signing-keys.json`), and its lock (`launcher.pid`).',
    },
    {
      name: 'INTROSPECTION_CLIENT_SECRET',
      fallback: 'generated (embedded mode)',
      values: 'text',
      description: 'Given to both services. The embedded mode generates one on first start and keeps it in `PLATFORM_DATA_DIR/secrets.json`; with `DATABASE_URL` it must be set.',
    },
    {
      name: 'OIDC_SIGNING_KEYS',
      fallback: 'unset',
      values: 'JSON',
      description: 'With neither this nor `OIDC_SIGNING_KEYS_FILE` set, the embedded mode sets `OIDC_SIGNING_KEYS_FILE=PLATFORM_DATA_DIR/auth/signing-keys.json`, where the authorization server generates a key on first start.',
    },
    { name: 'OIDC_SIGNING_KEYS_FILE', fallback: 'unset', values: 'file path', description: 'See `OIDC_SIGNING_KEYS`.' },
    { name: 'HOST', fallback: '`127.0.0.1`', values: 'address', description: 'The address every process listens on.' },
    { name: 'PORT', fallback: '`3000`', values: 'port', description: 'The gateway\'s port: the origin.' },
    { name: 'AUTH_PORT', fallback: '`3001`', values: 'port', description: 'The authorization server\'s port.' },
    { name: 'RESOURCE_PORT', fallback: '`3002`', values: 'port', description: 'The resource server\'s port.' },
    { name: 'PUBLIC_BASE_URL', fallback: '`http://127.0.0.1:$PORT`', values: 'URL', description: 'The origin the services announce (issuer, resource identifier) and the banner prints.' },
    { name: 'AUTH_SERVER_URL', fallback: '`http://127.0.0.1:$AUTH_PORT`', values: 'URL', description: 'Where the gateway and the resource server reach the authorization server.' },
    { name: 'RESOURCE_SERVER_URL', fallback: '`http://127.0.0.1:$RESOURCE_PORT`', values: 'URL', description: 'Where the gateway and the authorization server reach the resource server.' },
    { name: 'LOG_LEVEL', fallback: '`warn` for the gateway', values: 'as the services\'', description: 'Passed on; the gateway gets `warn` unless it is set.' },
    { name: 'NODE_ENV', fallback: 'unset', values: 'as the services\'', description: 'Passed on; with `production` the banner does not announce the demo account.' },
    { name: 'SEED_DEMO_DATA', fallback: 'unset', values: 'as the services\'', description: 'Passed on; the banner announces the demo account when the services seed it (the embedded mode by default).' },
  ],
};

/** apps/auth-server/src/cli: `npm run clients`, the staff tool for registered integrations. */
export const CLIENTS_CLI: HandProcess = {
  heading: 'The `clients` CLI (`npm run clients`)',
  intro: 'The staff tool for registered integrations ([Hosted clients](hosted-clients.md)). It finds the authorization server\'s database the way the launcher does.',
  sources: ['apps/auth-server/src/cli/clients-cli.ts', 'apps/auth-server/src/cli/database.ts'],
  variables: [
    { name: 'AUTH_DATABASE_URL', fallback: 'unset', values: 'URL', description: 'The authorization server\'s database, as is.' },
    { name: 'DATABASE_URL', fallback: 'unset', values: 'URL', description: 'Without `AUTH_DATABASE_URL`: a PostgreSQL server whose database name plus `_auth` is the one `npm start` uses there.' },
    {
      name: 'PLATFORM_DATA_DIR',
      fallback: '`.data` in the repository',
      values: 'directory',
      description: 'Without either URL: the embedded database there, migrated first. It serves one process: the CLI takes the launcher\'s lock and refuses to run while `npm start` holds it.',
    },
    {
      name: 'REDIS_URL',
      fallback: 'unset',
      values: 'URL',
      description: 'The platform\'s Redis: `disable` and `delete` tell the running servers at once. Unset: they learn it when their cached answers expire (the CLI says so).',
    },
  ],
};

/** apps/resource-server/src/cli: `npm run events`, the staff tool for security events and webhook deliveries. */
export const EVENTS_CLI: HandProcess = {
  heading: 'The `events` CLI (`npm run events`)',
  intro: 'The staff tool for every school\'s security events and webhook deliveries ([The resource server and MCP](resource-server-and-mcp.md)). It finds the resource server\'s database the way the launcher does.',
  sources: ['apps/resource-server/src/cli/events-cli.ts', 'apps/resource-server/src/cli/database.ts'],
  variables: [
    { name: 'RESOURCE_DATABASE_URL', fallback: 'unset', values: 'URL', description: 'The resource server\'s database, as is.' },
    { name: 'DATABASE_URL', fallback: 'unset', values: 'URL', description: 'Without `RESOURCE_DATABASE_URL`: a PostgreSQL server whose database name plus `_resource` is the one `npm start` uses there.' },
    {
      name: 'PLATFORM_DATA_DIR',
      fallback: '`.data` in the repository',
      values: 'directory',
      description: 'Without either URL: the embedded database there, migrated first. The CLI takes the launcher\'s lock and refuses to run while `npm start` holds it.',
    },
  ],
};

/** The staff CLIs, each with its hand-written table. */
export const CLIS: HandProcess[] = [CLIENTS_CLI, EVENTS_CLI];
