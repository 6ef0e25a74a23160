import { SCOPE_GROUPS } from '@platform/scopes';
import {
  AUTHORIZATION_SERVER_PATHS as AS,
  DEFAULT_RESOURCE_NAME,
  type DocumentsOptions,
  RESOURCE_PATHS as RS,
} from './documents-options';
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
 * `/auth.md`: how a developer or an AI agent gets a token and calls the API, step by step,
 * with commands that run as they are against this deployment (every URL comes from the options).
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
> indicators, token refresh with rotation, and revocation. The commands run as shown against this
> deployment once the shell variables they use are set.

| | |
|---|---|
| Protected resource (the API, canonical URI) | \`${base}\` |
| Authorization server (issuer) | \`${issuer}\` |
| REST API | \`${base}${RS.api}\` (described by [${base}${RS.openApi}](${base}${RS.openApi})) |
| MCP endpoint (Streamable HTTP) | \`${base}${RS.mcp}\` |

Any OAuth 2.0 / OpenID Connect client library that supports discovery, dynamic registration and PKCE
works; the steps below show what it does, with curl, openssl or node and a browser for signing in.

## 1. Discover

Start from the protected resource metadata (RFC 9728). It names the authorization server and the scopes:

\`\`\`bash
curl -s ${base}${RS.protectedResourceMetadata}
# the same document, at the path-aware URL MCP clients try first:
curl -s ${base}${RS.protectedResourceMetadataMcp}
\`\`\`

Then read the authorization server metadata (RFC 8414) of the issuer listed in \`authorization_servers\`.
It is the source of truth for every endpoint below; read them from it rather than hard-coding them:

\`\`\`bash
curl -s ${at(AS.authorizationServerMetadata)}
# OpenID Connect discovery: the same plus the ID token members
curl -s ${at(AS.openIdConfiguration)}
\`\`\`

## 2. Register a client

Dynamic client registration (RFC 7591), JSON in and out. Only loopback redirect URIs are accepted:
\`http://127.0.0.1:<port>/<path>\`, \`http://[::1]:<port>/<path>\` or \`http://localhost:<port>/<path>\`,
in normalized form (lowercase, no default port, no dot segments, no userinfo or fragment). At
authorization the port may differ from the registered one (RFC 8252 §7.3), so a native app or CLI can
listen on any free port. Without \`scope\` the client may request every scope in the table below.

\`\`\`bash
curl -s ${at(AS.registration)} -H 'content-type: application/json' \\
  -d '{"client_name":"My CLI","redirect_uris":["${REDIRECT_URI}"]}'
\`\`\`

The answer (201) carries \`client_id\`. A public client (\`token_endpoint_auth_method\` \`none\`, the default)
gets no secret; with \`"token_endpoint_auth_method":"client_secret_basic"\` (or \`client_secret_post\`) the
answer carries a \`client_secret\`, shown only this once, to send to the token, revocation and introspection
endpoints either as HTTP Basic (\`-u "$CLIENT_ID:$CLIENT_SECRET"\`) or as a \`client_secret\` form parameter, never both.

\`\`\`bash
CLIENT_ID=...   # from the registration response
\`\`\`

## 3. Make a PKCE verifier and challenge (S256)

PKCE is required, and only \`S256\` (RFC 7636): the verifier is 43 to 128 characters of
\`[A-Za-z0-9-._~]\`, the challenge is the base64url SHA-256 of the verifier, without padding.

With openssl:

\`\`\`bash
VERIFIER=$(openssl rand -base64 48 | tr -d '\\n=' | tr '+/' '-_')
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr -d '=' | tr '+/' '-_')
STATE=$(openssl rand -hex 16)
\`\`\`

With node:

\`\`\`bash
VERIFIER=$(node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))")
CHALLENGE=$(node -e "console.log(require('crypto').createHash('sha256').update(process.argv[1]).digest('base64url'))" "$VERIFIER")
STATE=$(node -e "console.log(require('crypto').randomBytes(16).toString('hex'))")
\`\`\`

## 4. Authorize

Send the user's browser to the authorization endpoint (RFC 6749 §4.1.1):

\`\`\`bash
echo "${authorizeUrl}"
\`\`\`

| parameter | value |
|---|---|
| \`response_type\` | \`code\` (the only response type) |
| \`client_id\` | from registration |
| \`redirect_uri\` | a registered redirect URI (the port may differ) |
| \`scope\` | space-separated scopes from the table below, e.g. \`${EXAMPLE_SCOPE}\`; ask for what you need |
| \`state\` | a fresh random value; the callback must bring it back unchanged (CSRF protection) |
| \`code_challenge\` | the S256 challenge of step 3 |
| \`code_challenge_method\` | \`S256\` |
| \`resource\` | \`${base}\` (RFC 8707). \`${base}${RS.mcp}\` and \`${base}${RS.api}\` are accepted too; the token's audience is always \`${base}\`, so one token serves the API and the MCP endpoint |
| \`nonce\` | optional (OpenID Connect): echoed in the ID token when \`openid\` is requested |
| \`prompt\` | optional: \`login\`, \`consent\`, \`select_account\` or \`none\` (consent is asked on every authorization, so \`none\` answers \`consent_required\`) |

The user signs in to their school's account, then sees a consent page listing the requested scopes and
approves or denies. The browser is then redirected to the redirect URI:

\`\`\`
${REDIRECT_URI}?code=...&state=...&iss=${q(issuer)}
\`\`\`

Check both before using the code: \`state\` must equal the value you sent, and \`iss\` must equal
\`${issuer}\`, the issuer you sent the request to (RFC 9207 §2.4; it defeats mix-up attacks). A refusal
arrives the same way as \`error=access_denied\` (or another RFC 6749 §4.1.2.1 code) with \`state\` and \`iss\`.
The code lives 60 seconds and works once.

To catch the redirect from a script, listen on the redirect URI's port:

\`\`\`bash
node -e "require('http').createServer((q,s)=>{console.log(q.url);s.end('You can close this window.',()=>process.exit(0))}).listen(8765,'127.0.0.1')"
\`\`\`

\`\`\`bash
CODE=...   # the code parameter of the redirect, once state and iss are checked
\`\`\`

## 5. Exchange the code for tokens

\`\`\`bash
curl -s ${at(AS.token)} \\
  -d grant_type=authorization_code \\
  -d code="$CODE" \\
  --data-urlencode redirect_uri=${REDIRECT_URI} \\
  -d client_id="$CLIENT_ID" \\
  -d code_verifier="$VERIFIER"
\`\`\`

The body is \`application/x-www-form-urlencoded\`; \`redirect_uri\` must be identical to the one of the
authorization request. The answer (RFC 6749 §5.1):

\`\`\`json
{ "access_token": "...", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "...", "scope": "${EXAMPLE_SCOPE}", "id_token": "..." }
\`\`\`

\`\`\`bash
ACCESS_TOKEN=...    # access_token of the answer
REFRESH_TOKEN=...   # refresh_token of the answer
\`\`\`

\`id_token\` is present when \`openid\` was granted. A code used twice is refused (\`invalid_grant\`) and
revokes every token it produced. Errors are RFC 6749 §5.2 bodies: \`{"error":"...","error_description":"..."}\`.

## 6. Call the API

Send the access token in the Authorization header (RFC 6750 §2.1; no query or form-body tokens):

\`\`\`bash
curl -s ${base}${RS.api}/courses -H "authorization: Bearer $ACCESS_TOKEN"
curl -s ${at(AS.userinfo)} -H "authorization: Bearer $ACCESS_TOKEN"
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

Some read routes also serve callers without a token: the public view (published courses, public events…)
of the school named by \`?school=<id>\`, or of the platform's default school. A caller that does send a
token still needs the route's scopes, and with a token only the token's own school is reachable. The MCP endpoint \`${base}${RS.mcp}\` serves public catalog
reads without a token.

## 7. Refresh

\`\`\`bash
curl -s ${at(AS.token)} \\
  -d grant_type=refresh_token \\
  -d refresh_token="$REFRESH_TOKEN" \\
  -d client_id="$CLIENT_ID"
\`\`\`

Refresh tokens rotate: every refresh returns a new refresh token and ends the one you sent. Always keep
the newest one. Presenting a rotated refresh token again is treated as theft (RFC 9700 §4.14.2): the
whole grant is revoked, with its access tokens, and the user must authorize again. An optional narrower
\`scope\` narrows the new access token only; the new refresh token keeps the original scope.

## 8. Revoke

\`\`\`bash
curl -s ${at(AS.revocation)} -d token="$REFRESH_TOKEN" -d client_id="$CLIENT_ID"
\`\`\`

Revocation (RFC 7009) answers 200 whether or not the token was known. Revoking a refresh token ends the
whole grant, its access tokens included; revoking an access token ends that token only. Confidential
clients add \`-d client_secret=...\` here and at the token endpoint.

## Scopes

${renderScopeTable(options.scopes)}
`;
}
