import { OAUTH_PATHS as AS } from '@platform/contracts';
import { SCOPE_GROUPS } from '@platform/scopes';
import { renderMcpToolTable } from '../mcp/tools';
import { RESOURCE_PATHS as RS } from '../common/resource-paths';
import { DEFAULT_RESOURCE_NAME, type DocumentsOptions } from './documents-options';
import { table } from './markdown';

/** The loopback redirect URI of every example (RFC 8252 §7.3: the port may change at authorization). */
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const EXAMPLE_SCOPE = 'openid profile courses:read';

/** The scope table of the guide, generated from the catalogue: scope, description, group. */
export function renderScopeTable(scopes: DocumentsOptions['scopes']): string {
  return table(
    ['Scope', 'Description', 'Group'],
    Object.entries(scopes).map(([scope, { description, group }]) => [
      `\`${scope}\``,
      description,
      SCOPE_GROUPS[group] ?? group,
    ]),
  );
}

/**
 * The walkthrough's shell helper: prints one member (a dotted path: `authorization_servers.0`) of the
 * JSON document on stdin, or prints the document to stderr and fails when the member is absent (an
 * error answer stops the script). `jq -r .member` does the same where jq is installed.
 * Every `node -e` of the walkthrough passes its values after `--`: a value that begins with '-' (a
 * base64url PKCE verifier does, one time in 64) would otherwise be read as an option of node.
 */
export const JSON_HELPER =
  `json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{` +
  `const v=process.argv[1].split(".").reduce((o,k)=>o==null?o:o[k],JSON.parse(s));` +
  `if(v==null){console.error(s);process.exit(1)}console.log(v)})' -- "$1"; }`;

/** A one-line listener on the redirect URI's port: prints the callback's path and query, then exits. */
export const CALLBACK_LISTENER =
  `CALLBACK=$(node -e "require('http').createServer((q,s)=>s.end('You can close this window.',()=>{console.log(q.url);process.exit(0)})).listen(8765,'127.0.0.1')")`;

/** Checks error, state and iss (RFC 9207 §2.4) of the callback and prints the code. */
export const CALLBACK_CHECK =
  `CODE=$(node -e "const p=new URL(process.argv[1],'http://x').searchParams;` +
  `if(p.get('state')!==process.argv[2])throw Error('state does not match');` +
  `if(p.get('iss')!==process.argv[3])throw Error('iss is not the issuer');` +
  `if(p.get('error'))throw Error(p.get('error')+': '+p.get('error_description'));` +
  `console.log(p.get('code'))" -- "$CALLBACK" "$STATE" "$ISSUER")`;

/** The line the walkthrough prints before it waits for the browser (tests watch for it). */
export const OPEN_BROWSER_PROMPT = 'Open this URL in your browser:';

/**
 * `/auth.md`: how a developer or an AI agent gets a token and calls the API, step by step. Every
 * ```bash block, run in order in one shell, is the whole walkthrough: each variable is set by
 * the commands themselves (apps/platform-e2e/src/interop/curl-walkthrough.e2e.spec.ts runs them
 * against the platform). Every URL comes from the options.
 */
export function renderAuthGuide(options: DocumentsOptions): string {
  const base = options.publicBaseUrl;
  const issuer = options.issuer;
  const name = options.resourceName ?? DEFAULT_RESOURCE_NAME;
  const at = (path: string) => `${issuer}${path}`;
  const q = encodeURIComponent;
  const authorizeUrl =
    `${at(AS.authorization)}?response_type=code&client_id=$CLIENT_ID` +
    `&redirect_uri=${q(REDIRECT_URI)}&scope=${q(EXAMPLE_SCOPE)}&state=$STATE` +
    `&code_challenge=$CHALLENGE&code_challenge_method=S256&resource=${q(base)}`;

  return `# Authentication guide: ${name}

> How developers and AI agents obtain an OAuth 2.0 access token for ${base} and call the API with it:
> discovery, dynamic client registration, the authorization code flow with PKCE (S256) and resource
> indicators, token refresh with rotation, and revocation. Run the \`bash\` blocks in order in one shell
> (bash, curl and node): each command sets the variables the next ones use.

| | |
|---|---|
| Protected resource (the API, canonical URI) | \`${base}\` |
| Authorization server (issuer) | \`${issuer}\` |
| REST API | \`${base}${RS.api}\` (described by [${base}${RS.openApi}](${base}${RS.openApi})) |
| MCP endpoint (Streamable HTTP) | \`${base}${RS.mcp}\` |

Any OAuth 2.0 / OpenID Connect client library that supports discovery, dynamic registration and PKCE
works; the steps below show what it does, with curl, node and a browser for signing in. Browser-based
clients can call the metadata, JWKS, registration, token, revocation and userinfo endpoints from any
origin (CORS without credentials); the authorization endpoint is a page for the user's browser, never
fetched.

## 1. Discover

Start from the protected resource metadata (RFC 9728). It names the authorization server and the scopes.
\`json\` is a small helper the next steps use to read one member of a JSON answer (\`jq -r .member\`
does the same):

\`\`\`bash
${JSON_HELPER}
curl -s -w '\\n' ${base}${RS.protectedResourceMetadata}
# the MCP endpoint's own document (RFC 9728 §3.1): resource ${base}${RS.mcp}, the scopes its tools use
curl -s -w '\\n' ${base}${RS.protectedResourceMetadataMcp}
ISSUER=$(curl -s ${base}${RS.protectedResourceMetadata} | json authorization_servers.0)
echo "$ISSUER"
\`\`\`

Then read the authorization server metadata (RFC 8414) of that issuer. It is the source of truth for
every endpoint below:

\`\`\`bash
curl -s -w '\\n' "$ISSUER${AS.authorizationServerMetadata}"
# OpenID Connect discovery: the same plus the ID token members
curl -s -w '\\n' "$ISSUER${AS.openIdConfiguration}"
\`\`\`

## 2. Register a client

Dynamic client registration (RFC 7591), JSON in and out. Only loopback redirect URIs are accepted:
\`http://127.0.0.1:<port>/<path>\`, \`http://[::1]:<port>/<path>\` or \`http://localhost:<port>/<path>\`,
in normalized form (lowercase, no default port, no dot segments, no userinfo or fragment). At
authorization the port may differ from the registered one (RFC 8252 §7.3), so a native app or CLI can
listen on any free port.

\`\`\`bash
CLIENT_ID=$(curl -s ${at(AS.registration)} -H 'content-type: application/json' \\
  -d '{"client_name":"My CLI","redirect_uris":["${REDIRECT_URI}"],"scope":"${EXAMPLE_SCOPE}"}' | json client_id)
echo "$CLIENT_ID"
\`\`\`

The registered \`scope\` is the default for authorization requests that send none; it is not a limit: a
client may later ask for more (step-up), and the user's consent decides. A request without \`scope\` from
a client that registered none asks for \`openid profile\` only.

A public client (\`token_endpoint_auth_method\` \`none\`, the default) gets no secret; with
\`"token_endpoint_auth_method":"client_secret_basic"\` (or \`client_secret_post\`) the answer carries a
\`client_secret\`, shown only this once, to send to the token, revocation and introspection endpoints
either as HTTP Basic (\`-u "$CLIENT_ID:$CLIENT_SECRET"\`) or as a \`client_secret\` form parameter, never
both. A client the server does not know (never registered, or removed) gets \`401 invalid_client\` at the
token endpoint: register again. A client that holds a key pair authenticates with \`private_key_jwt\` instead of a
secret: it publishes a client ID metadata document ([below](#hosted-clients-a-client-id-metadata-document)), or gets
a registered integration from the platform's support.

## 3. Make a PKCE verifier and challenge (S256)

PKCE is required, and only \`S256\` (RFC 7636): the verifier is 43 to 128 characters of
\`[A-Za-z0-9-._~]\`, the challenge is the base64url SHA-256 of the verifier, without padding.

\`\`\`bash
VERIFIER=$(node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))")
CHALLENGE=$(node -e "console.log(require('crypto').createHash('sha256').update(process.argv[1]).digest('base64url'))" -- "$VERIFIER")
STATE=$(node -e "console.log(require('crypto').randomBytes(16).toString('hex'))")
\`\`\`

With openssl instead of node:

\`\`\`sh
VERIFIER=$(openssl rand -base64 48 | tr -d '\\n=' | tr '+/' '-_')
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr -d '=' | tr '+/' '-_')
STATE=$(openssl rand -hex 16)
\`\`\`

## 4. Authorize

Send the user's browser to the authorization endpoint (RFC 6749 §4.1.1) and catch the redirect with a
one-line listener on the redirect URI's port. The second command waits until the browser comes back:

\`\`\`bash
echo "${OPEN_BROWSER_PROMPT} ${authorizeUrl}"
${CALLBACK_LISTENER}
\`\`\`

| parameter | value |
|---|---|
| \`response_type\` | \`code\` (the only response type) |
| \`client_id\` | from registration |
| \`redirect_uri\` | a registered redirect URI (the port may differ) |
| \`scope\` | space-separated scopes from the table below, e.g. \`${EXAMPLE_SCOPE}\`; ask for what you need. Omitted: the registered scope, or \`openid profile\`. \`offline_access\` (OpenID Connect Core §11) is accepted and shown as "stay signed in"; refresh tokens are issued with or without it |
| \`state\` | a fresh random value; the callback must bring it back unchanged (CSRF protection) |
| \`code_challenge\` | the S256 challenge of step 3 |
| \`code_challenge_method\` | \`S256\` |
| \`resource\` | \`${base}\` (RFC 8707). Any URI under it is accepted too, \`${base}${RS.mcp}\` (what MCP clients send) and \`${base}${RS.api}\` included, in any spelling \`URL.href\` gives (trailing slash, upper-case scheme or host). The platform is one protected resource: whichever you send, the token's audience is \`${base}\`, and one token serves the API and the MCP endpoint |
| \`nonce\` | optional (OpenID Connect): echoed in the ID token when \`openid\` is requested |
| \`prompt\` | optional: \`none\` answers with the code when everything asked was approved before (else \`consent_required\`; \`login_required\` without a session); \`consent\` always shows the consent page; \`login\` and \`select_account\` ask for the password again |

The user signs in to their school's account, then sees a consent page listing the requested scopes and
approves or denies. What the user approved is remembered for your client: asking again for those scopes
brings the code back without the page, and asking for more (step-up) shows only the new scopes. A write
scope includes its read scope (\`coupons:write\` brings \`coupons:read\`). The browser is then redirected to
the redirect URI:

\`\`\`
${REDIRECT_URI}?code=...&state=...&iss=${q(issuer)}
\`\`\`

Check both before using the code: \`state\` must equal the value you sent, and \`iss\` must equal
\`${issuer}\`, the issuer you sent the request to (RFC 9207 §2.4; it defeats mix-up attacks). A refusal
arrives the same way as \`error=access_denied\` (or another RFC 6749 §4.1.2.1 code) with \`state\` and \`iss\`.
The code lives 60 seconds and works once.

\`\`\`bash
${CALLBACK_CHECK}
\`\`\`

## 5. Exchange the code for tokens

\`\`\`bash
TOKENS=$(curl -s ${at(AS.token)} \\
  -d grant_type=authorization_code \\
  -d code="$CODE" \\
  --data-urlencode redirect_uri=${REDIRECT_URI} \\
  -d client_id="$CLIENT_ID" \\
  -d code_verifier="$VERIFIER")
ACCESS_TOKEN=$(printf '%s' "$TOKENS" | json access_token)
REFRESH_TOKEN=$(printf '%s' "$TOKENS" | json refresh_token)
\`\`\`

The body is \`application/x-www-form-urlencoded\`; \`redirect_uri\` must be identical to the one of the
authorization request. The answer (RFC 6749 §5.1):

\`\`\`json
{ "access_token": "...", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "...", "scope": "${EXAMPLE_SCOPE}", "id_token": "..." }
\`\`\`

\`id_token\` is present when \`openid\` was granted. A code used twice is refused (\`invalid_grant\`) and
revokes every token it produced. Errors are RFC 6749 §5.2 bodies: \`{"error":"...","error_description":"..."}\`.

## 6. Call the API

Send the access token in the Authorization header (RFC 6750 §2.1; no query or form-body tokens):

\`\`\`bash
curl -s -w '\\n' ${base}${RS.api}/courses -H "authorization: Bearer $ACCESS_TOKEN"
curl -s -w '\\n' ${at(AS.userinfo)} -H "authorization: Bearer $ACCESS_TOKEN"
\`\`\`

The token acts for the user's school: nothing of another school is reachable with it. Every operation,
with the scopes it requires, is in [${base}${RS.openApi}](${base}${RS.openApi}). Refusals carry a
\`WWW-Authenticate\` challenge (RFC 6750 §3) that says what to do:

| status | \`WWW-Authenticate\` | meaning, what to do |
|---|---|---|
| 401 | \`Bearer scope="courses:read", resource_metadata="${base}${RS.protectedResourceMetadata}"\` | no token (or not a Bearer one): fetch \`resource_metadata\` (RFC 9728 §5.1), then authorize asking for \`scope\` |
| 401 | \`Bearer error="invalid_token", error_description="...", resource_metadata="..."\` | the token is unknown, expired, revoked or for another resource: refresh it (step 7) or authorize again |
| 403 | \`Bearer error="insufficient_scope", error_description="...", scope="courses:write", resource_metadata="..."\` | the token lacks a scope: step up by authorizing again (step 4) with the scopes you hold plus those in \`scope\` |
| 400 | \`Bearer error="invalid_request", ...\` | a malformed Authorization header, or a token sent in the URL |

A \`429 too_many_requests\` (writes of one user, or requests without a token from one address, beyond the
platform's limits) carries \`Retry-After\`: wait that many seconds, then send the request again.

Some read routes also serve callers without a token: the public view (published courses, public events…)
of the school named by \`?school=<id>\`, or of the platform's default school. A caller that does send a
token still needs the route's scopes, and with a token only the token's own school is reachable. The MCP endpoint \`${base}${RS.mcp}\` serves public catalog
reads without a token, and the school's private tools with one (see [MCP](#mcp) below).

## 7. Refresh

\`\`\`bash
TOKENS=$(curl -s ${at(AS.token)} \\
  -d grant_type=refresh_token \\
  -d refresh_token="$REFRESH_TOKEN" \\
  -d client_id="$CLIENT_ID")
ACCESS_TOKEN=$(printf '%s' "$TOKENS" | json access_token)
REFRESH_TOKEN=$(printf '%s' "$TOKENS" | json refresh_token)
\`\`\`

Refresh tokens rotate: every refresh returns a new refresh token and retires the one you sent. Always
keep the newest one. Processes of one client that refresh with the same token at the same moment each
get a valid pair, for a short window after the rotation (30 seconds by default). A rotated refresh token
presented later from the network whose refresh rotated it (another session of the same application on
the same computer) is refused with \`invalid_grant\` and the grant goes on: use the newest token, or
authorize again in that session. Presented later from anywhere else, it is treated as theft (RFC 9700
§4.14.2): the whole grant is revoked, with its access tokens, and the user must authorize again. An
optional narrower \`scope\` narrows the new access token only; the new refresh token keeps the original
scope.

## 8. Revoke

Revoke the current refresh token (the one the last refresh returned); the grant then ends, so the
refresh token is refused afterwards:

\`\`\`bash
curl -s -o /dev/null -w '%{http_code}\\n' ${at(AS.revocation)} -d token="$REFRESH_TOKEN" -d token_type_hint=refresh_token -d client_id="$CLIENT_ID"
curl -s -w '\\n' ${at(AS.token)} -d grant_type=refresh_token -d refresh_token="$REFRESH_TOKEN" -d client_id="$CLIENT_ID"
# {"error":"invalid_grant","error_description":"The refresh token is invalid, expired or revoked"}
\`\`\`

Revocation (RFC 7009) answers 200 whether or not the token was known. Revoking any refresh token of a
grant, the current one or one already rotated out, ends the whole grant, its access tokens included;
revoking an access token ends that token only. Confidential clients add \`-d client_secret=...\` here and
at the token endpoint.

## Sender-constrained tokens (DPoP, optional)

A copied bearer token works for whoever holds it. With DPoP (RFC 9449) your tokens are bound to a key pair you
keep beside them: make one asymmetric key pair (ES256 is a good choice), and send a \`DPoP\` header holding a fresh
proof, a JWT signed by that key, on the token request (\`htm\` \`POST\`, \`htu\` \`${at(AS.token)}\`). The answer is
\`token_type: DPoP\`. Then call the API, /mcp and userinfo with \`Authorization: DPoP <token>\` and a new proof on
every request (\`htm\` the method, \`htu\` the URL without its query, \`ath\` = base64url(SHA-256(token)), a new
\`jti\`, \`iat\` now). A public client's refresh token is bound too: refreshing needs the same key. The server
may answer \`use_dpop_nonce\` with a \`DPoP-Nonce\` header: retry with that value as the proof's \`nonce\`.
oauth4webapi and openid-client do all of this with their \`DPoP\` option; the accepted algorithms are in
\`dpop_signing_alg_values_supported\` of both discovery documents.

## MCP

\`${base}${RS.mcp}\` is a Model Context Protocol server (Streamable HTTP, stateless, POST only). It serves the
protocol revision 2026-07-28 (no \`initialize\`; \`_meta\` and the \`Mcp-Method\`/\`Mcp-Name\` headers on every
request) and 2025-11-25, 2025-06-18 and 2025-03-26 (\`initialize\` first, no session id), nothing older. An
\`initialize\` asking for another revision is answered with \`2025-11-25\` (disconnect if you cannot speak it); a
request whose \`MCP-Protocol-Version\` header names a revision it does not serve is \`400\`, listing those it does; a
request without the header is taken as 2025-03-26. Its protected resource metadata is
\`${base}${RS.protectedResourceMetadataMcp}\`: \`resource\` is \`${base}${RS.mcp}\` and \`scopes_supported\` lists the
scopes its tools use.

- Without a token, the public catalog tools work. Authorize with \`resource=${base}${RS.mcp}\` (as MCP clients do) or
  \`resource=${base}\`: either way the token's audience is \`${base}\`, the platform's one protected resource, of which
  \`${RS.mcp}\` is a part, so the same token serves \`${RS.mcp}\` and the API. A token that is unknown, expired, revoked or
  for another resource is answered \`401\` \`invalid_token\` with the \`resource_metadata\` above.
- \`tools/list\` shows every tool to every caller; each private tool's description names the scopes it needs.
- Step-up: calling a tool whose scopes the token lacks is answered \`403\` with
  \`WWW-Authenticate: Bearer error="insufficient_scope", ..., scope="<every scope the call needs>", resource_metadata="..."\`
  (\`401\` with \`scope=\` and no error code without a token, its body a JSON-RPC error saying which tool needs which
  scope). Authorize again with the scopes you hold plus those, then retry the call. A refresh cannot add scopes
  (RFC 6749 §6).
- Tool schemas keep to plain JSON Schema that every model provider's function calling reads: one \`type\` per field,
  no \`$ref\`; an optional input is left out rather than sent as \`null\`, and a field of an answer that may be null
  says so with \`anyOf\` and a \`null\` branch.
- From a web page: only the platform's own origin and the origins its operator allows may call \`${RS.mcp}\` (any other
  \`Origin\` is \`403\`, the CORS preflight included: DNS-rebinding protection); clients outside a browser send no
  \`Origin\` and are not concerned.

${renderMcpToolTable()}
## Hosted clients: a client ID metadata document

A hosted client (an https callback) does not register: its \`client_id\` is the https URL of a JSON document that
describes it (OAuth Client ID Metadata Documents; the authorization server metadata says
\`client_id_metadata_document_supported: true\`). The consent page shows the host of that URL. The document:

- is served at an \`https\` URL with a path, no fragment, no userinfo, no \`.\`/\`..\` segments, in normalized form, at
  most 255 characters; with \`200\`, \`Content-Type: application/json\`, at most 5 KB, within 3 seconds, without
  redirects (a redirect is refused, not followed), from a public address (never loopback, private, link-local or
  other special-use addresses);
- has \`client_id\` equal to that URL character for character, a \`client_name\` (1 to 200 characters), and 1 to 20
  \`redirect_uris\`, each \`http\` on a loopback host (any port at authorization) or \`https\` on the same origin as
  the \`client_id\` URL (anything else on http or https makes the document invalid; private-use schemes are ignored);
- uses \`token_endpoint_auth_method\` \`none\` (the default, a public client) or \`private_key_jwt\` with its public
  keys in \`jwks\` or at an https \`jwks_uri\` (one of the two). A document with only
  \`token_endpoint_auth_methods_supported\` (MCP SEP-3149) gets \`private_key_jwt\` when it lists it and publishes
  keys, else \`none\`. A \`client_secret*\` method or a \`client_secret\` member makes it invalid: a published document
  cannot keep a secret. \`grant_types\`, if present, includes \`authorization_code\`
  (\`refresh_token\` for refresh tokens; others are ignored) and \`response_types\`, if present, \`code\`; \`scope\`
  is the default scope of requests without one; other members are ignored.

\`\`\`json
{
  "client_id": "https://app.example.com/oauth/client-metadata.json",
  "client_name": "Example Agent",
  "redirect_uris": ["https://app.example.com/oauth/callback"],
  "grant_types": ["authorization_code", "refresh_token"],
  "response_types": ["code"],
  "token_endpoint_auth_method": "none"
}
\`\`\`

A client with a key pair publishes its public keys and signs a client assertion (RFC 7523) for every request to
the token, revocation and introspection endpoints, instead of a secret:

\`\`\`json
{
  "client_id": "https://app.example.com/oauth/client-metadata.json",
  "client_name": "Example Agent",
  "redirect_uris": ["https://app.example.com/oauth/callback"],
  "grant_types": ["authorization_code", "refresh_token"],
  "response_types": ["code"],
  "token_endpoint_auth_method": "private_key_jwt",
  "jwks_uri": "https://app.example.com/oauth/jwks.json"
}
\`\`\`

It sends \`client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer\` and \`client_assertion\`, a
JWT signed with its private key (an asymmetric algorithm of \`token_endpoint_auth_signing_alg_values_supported\`;
\`kid\` in the header) whose \`iss\` and \`sub\` are the \`client_id\`, \`aud\` is the issuer \`${issuer}\` (or the token
endpoint URL), \`exp\` at most 5 minutes away, and \`jti\` new for every request (a \`jti\` is accepted once). Such a client always sends an
assertion: \`client_id\` alone is \`401 invalid_client\`. Publish a new key before signing with it: keys at
\`jwks_uri\` are fetched again when an assertion names an unknown \`kid\`.

The authorization request's \`redirect_uri\` must be one of the document's (https exactly; loopback exactly except the
port). A public client (\`none\`) on a loopback redirect URI is asked for consent every time: any program on the
user's computer could present its \`client_id\`. The document is cached for its HTTP freshness lifetime, between 60
seconds and 24 hours by default; a failed fetch or an invalid document is never cached, and ends the request with a
clear reason (an error page at the authorization endpoint, \`401 invalid_client\` at the token and revocation
endpoints). A host's documents and key sets are fetched at most 30 times a minute (by default), then \`429\` with \`Retry-After\`.
Everything else (PKCE, refresh, revocation) is as for a registered client. Services that cannot publish a document
get a registered integration from the platform's support.

## Connected apps

Users see every application connected to their account, with the scopes it holds, and disconnect any of them at
[${at('/oauth/connected-apps')}](${at('/oauth/connected-apps')}): disconnecting ends its grants and all its tokens at once, and
forgets what it was allowed (its next authorization shows the consent page again).

## Scopes

${renderScopeTable(options.scopes)}
`;
}
