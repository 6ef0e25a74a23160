import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { createEventBus } from '@platform/event-bus';
import type { PrismaService } from '../database/prisma.service';
import { ClientChangePublisher } from '../clients/client-change-publisher';
import { RevocationPublisher } from '../events/revocation-publisher';
import { GrantRevoker } from '../token/grant-revoker';
import { TokensRepository } from '../token/tokens.repository';
import { type CliDatabase, openAuthDatabase } from './database';
import { type ClientSummary, type GrantEnder, type IntegrationAuthMethod, type IntegrationKeys, Integrations, UsageError } from './integrations';

export const USAGE = `Registered integrations of the authorization server (staff only).

  npm run clients -- create --name NAME --redirect-uri https://app.example.com/callback [--redirect-uri ...]
                            [--auth-method client_secret_basic|client_secret_post|private_key_jwt]
                            [--jwks FILE_OR_JSON | --jwks-uri https://app.example.com/jwks.json]
                            [--scope-ceiling "openid profile courses:read"] [--default-scope "openid profile"]
                            [--dpop-bound-access-tokens]
  npm run clients -- list [--all]
  npm run clients -- show CLIENT_ID
  npm run clients -- rotate-secret CLIENT_ID
  npm run clients -- set-keys CLIENT_ID --jwks FILE_OR_JSON | --jwks-uri URL
  npm run clients -- disable CLIENT_ID
  npm run clients -- enable CLIENT_ID
  npm run clients -- delete CLIENT_ID --yes

private_key_jwt (RFC 7523): the integration signs its token requests with its own private key; give
its PUBLIC keys as a JWK Set (a file, or the JSON itself) or the https URL where it publishes them.
No secret is issued. Private keys (a JWK with "d") and symmetric keys ("k") are refused.

--dpop-bound-access-tokens (RFC 9449 §5.2): every token request of the integration must carry a DPoP
proof, so each of its access tokens is bound to a key it holds; a request without one is refused.

Every command takes --json. Database: AUTH_DATABASE_URL; else DATABASE_URL + "_auth" (as npm start);
else the embedded database in .data/ (PLATFORM_DATA_DIR), which needs the platform stopped.
REDIS_URL: revocations (disable, delete) are announced to the resource servers at once.`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export interface CliDependencies {
  openDatabase?: (env: Record<string, string | undefined>) => Promise<CliDatabase>;
}

const consoleIo: CliIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

const OPTIONS = {
  name: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  'auth-method': { type: 'string' },
  jwks: { type: 'string' },
  'jwks-uri': { type: 'string' },
  'scope-ceiling': { type: 'string' },
  'default-scope': { type: 'string' },
  'dpop-bound-access-tokens': { type: 'boolean' },
  all: { type: 'boolean' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** The options that take a value (the next argument, unless written `--name=value`). */
const VALUE_OPTIONS = new Set(Object.entries(OPTIONS).flatMap(([name, option]) => (option.type === 'string' ? [`--${name}`] : [])));
/** The options' one-letter forms (`-h`): the only arguments with a single "-" that are not ids. */
const SHORT_OPTIONS = new Set(Object.values(OPTIONS).flatMap((option) => ('short' in option ? [`-${option.short}`] : [])));

/** The options' long forms. */
const LONG_OPTIONS = new Set(Object.keys(OPTIONS).map((name) => `--${name}`));
/** A client id as drawn (16 bytes, base64url), which no long option resembles. */
const DRAWN_CLIENT_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * Client ids are base64url, so one made before ids were drawn without a leading "-" (or a
 * self-registered one from an older release) can begin with "-" or "--"; parseArgs would read
 * `show -AbC…` as options. Every option here is `--long` or a one-letter form (SHORT_OPTIONS), so
 * any other argument that begins with a single "-", or with "--" and has a drawn id's shape, and
 * is not an option's value, is an id: it goes after a `--`.
 */
function dashLeadingIdsLast(argv: readonly string[]): string[] {
  const args: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return [...args, '--', ...ids, ...argv.slice(i + 1)];
    if (VALUE_OPTIONS.has(arg) && i + 1 < argv.length) args.push(arg, argv[++i]);
    else if (isDashLeadingId(arg)) ids.push(arg);
    else args.push(arg);
  }
  return ids.length > 0 ? [...args, '--', ...ids] : args;
}

function isDashLeadingId(arg: string): boolean {
  if (/^-[^-]/.test(arg)) return !SHORT_OPTIONS.has(arg);
  return arg.startsWith('--') && DRAWN_CLIENT_ID.test(arg) && !LONG_OPTIONS.has(arg);
}

/** Runs one command; returns the exit status (0 done, 1 failure, 2 usage). */
export async function runClientsCli(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  io: CliIo = consoleIo,
  dependencies: CliDependencies = {},
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: dashLeadingIdsLast(argv), allowPositionals: true, options: OPTIONS });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, clientId, ...extra] = positionals;
  const needsId = ['show', 'rotate-secret', 'set-keys', 'disable', 'enable', 'delete'];
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? 0 : 2;
  }
  if (![...needsId, 'create', 'list'].includes(command) || extra.length > 0 || (needsId.includes(command) !== Boolean(clientId))) {
    io.err(USAGE);
    return 2;
  }
  if (command === 'delete' && !values.yes) {
    io.err('delete removes the client and its whole history: add --yes to confirm (disable keeps the history)');
    return 2;
  }

  let database: CliDatabase | undefined;
  let closeBus: (() => Promise<void>) | undefined;
  try {
    database = await (dependencies.openDatabase ?? openAuthDatabase)(env);
    if ((command === 'disable' || command === 'delete') && !env['REDIS_URL']) {
      io.err(
        "REDIS_URL is not set: running services are not told; resource servers refuse this client's tokens once their cached answers expire (at most 5 min), authorization servers once their in-memory token entries do (at most 1 min).",
      );
    }
    const bus = await createEventBus(env['REDIS_URL']);
    closeBus = () => bus.close();
    const prisma = database.prisma as unknown as PrismaService;
    const grants: GrantEnder = new GrantRevoker(new TokensRepository(prisma), new RevocationPublisher(bus));
    const integrations = new Integrations(database.prisma, grants, new ClientChangePublisher(bus), { staffId: staffName(), warn: io.err });
    const print = (value: unknown, text: () => string[]) => {
      if (values.json) io.out(JSON.stringify(value, null, 2));
      else for (const line of text()) io.out(line);
    };

    switch (command) {
      case 'create': {
        const { client, clientSecret } = await integrations.create({
          name: values.name ?? '',
          redirectUris: values['redirect-uri'] ?? [],
          authMethod: values['auth-method'] as IntegrationAuthMethod | undefined,
          ...keyOptions(values),
          scopeCeiling: values['scope-ceiling'],
          defaultScope: values['default-scope'],
          dpopBoundAccessTokens: values['dpop-bound-access-tokens'],
        });
        if (clientSecret === undefined) {
          print(client, () => [
            ...describe(client),
            '',
            'No secret was issued: the integration signs each token request with its private key (private_key_jwt).',
            `Replace its keys: npm run clients -- set-keys ${client.clientId} --jwks FILE_OR_JSON`,
          ]);
          break;
        }
        print({ ...client, clientSecret }, () => [
          ...describe(client),
          `client_secret:   ${clientSecret}`,
          '',
          'Give the secret to the integration now, over a secure channel: it is stored hashed and cannot be shown again.',
          `Lost or leaked? npm run clients -- rotate-secret ${client.clientId}`,
        ]);
        break;
      }
      case 'set-keys': {
        const client = await integrations.setKeys(clientId, keyOptions(values));
        print(client, () => [...describe(client), '', 'The new keys count from the next token request, on every instance.']);
        break;
      }
      case 'list': {
        const clients = await integrations.list({ all: values.all });
        print(clients, () =>
          clients.length === 0
            ? ['No integrations or metadata-document clients yet (--all lists self-registered clients too).']
            : clients.map(
                (c) => `${c.clientId}  ${c.kind.padEnd(17)}  ${(c.disabledAt ? 'disabled' : 'active').padEnd(8)}  grants ${String(c.activeGrants).padStart(4)}  ${c.name ?? ''}`,
              ),
        );
        break;
      }
      case 'show': {
        const client = await integrations.show(clientId);
        print(client, () => describe(client));
        break;
      }
      case 'rotate-secret': {
        const clientSecret = await integrations.rotateSecret(clientId);
        print({ clientId, clientSecret }, () => [
          `client_id:       ${clientId}`,
          `client_secret:   ${clientSecret}`,
          '',
          'The previous secret no longer works. This one is shown once.',
        ]);
        break;
      }
      case 'disable': {
        const ended = await integrations.disable(clientId);
        print({ clientId, disabled: true, grantsEnded: ended }, () => [`${clientId} disabled; ${ended} grant(s) and their tokens ended.`]);
        break;
      }
      case 'enable': {
        await integrations.enable(clientId);
        print({ clientId, disabled: false }, () => [`${clientId} enabled again (users must authorize it anew).`]);
        break;
      }
      case 'delete': {
        const ended = await integrations.delete(clientId);
        print({ clientId, deleted: true, grantsEnded: ended }, () => [`${clientId} deleted; ${ended} grant(s) and their tokens ended.`]);
        break;
      }
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(error.message);
      return 2;
    }
    io.err(`clients: ${(error as Error).message}`);
    return 1;
  } finally {
    await closeBus?.().catch(() => undefined);
    await database?.close();
  }
}

/** Who runs the tool, as its security events name them: the operating-system user, when there is one. */
function staffName(): string | null {
  try {
    return userInfo().username || null;
  } catch {
    // No passwd entry for the uid (some containers).
    return null;
  }
}

function describe(client: ClientSummary): string[] {
  return [
    `client_id:       ${client.clientId}`,
    `kind:            ${client.kind}`,
    `name:            ${client.name ?? ''}`,
    `status:          ${client.disabledAt ? `disabled since ${client.disabledAt.toISOString()}` : 'active'}`,
    `auth method:     ${client.authMethod}`,
    ...(client.jwksUri ? [`jwks_uri:        ${client.jwksUri}`] : []),
    ...(client.publicKeys ? [`public keys:     ${client.publicKeys.map((key) => `${key.kid ?? '(no kid)'} (${key.kty})`).join(', ')}`] : []),
    `redirect URIs:   ${client.redirectUris.join('\n                 ')}`,
    `default scope:   ${client.defaultScope || '(the server default: openid profile)'}`,
    `scope ceiling:   ${client.scopeCeiling ?? '(none: the user consent decides)'}`,
    `DPoP:            ${client.dpopBoundAccessTokens ? 'required: every access token is DPoP-bound (dpop_bound_access_tokens)' : 'optional (a token request with a proof gets a bound token)'}`,
    `created:         ${client.createdAt.toISOString()}`,
    `first authorized: ${client.firstAuthorizedAt?.toISOString() ?? 'never'}`,
    `active grants:   ${client.activeGrants}`,
  ];
}

/**
 * --jwks (a file, or the JSON itself when it starts with "{") and --jwks-uri, as the keys
 * Integrations checks. Only a JSON object is read: a PEM key is not a JWK Set.
 */
function keyOptions(values: { jwks?: string; 'jwks-uri'?: string }): IntegrationKeys {
  const keys: IntegrationKeys = {};
  if (values['jwks-uri'] !== undefined) keys.jwksUri = values['jwks-uri'];
  if (values.jwks === undefined) return keys;
  let text = values.jwks.trim();
  if (!text.startsWith('{')) {
    try {
      text = readFileSync(values.jwks, 'utf8');
    } catch (error) {
      throw new UsageError(`--jwks: cannot read ${values.jwks} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  try {
    keys.jwks = JSON.parse(text);
  } catch {
    throw new UsageError('--jwks: not JSON (give a JWK Set, {"keys": [...]}, or one public JWK)');
  }
  return keys;
}
