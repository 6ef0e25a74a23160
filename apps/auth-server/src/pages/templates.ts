/**
 * The sign-in pages as eta templates, kept as string constants so that they are compiled
 * once at start and bundled with the code (no template files to ship or find at run time).
 *
 * Every interpolation uses `<%= %>`, which eta escapes (& < > " '). The only raw output
 * (`<%~ %>`) is `it.body` in the layout: the already-escaped output of a page template.
 * No JavaScript: the pages work with forms and links alone, and the CSP forbids scripts.
 */

/**
 * The look: a card on a tinted backdrop, in the school's colors. Every color is a custom
 * property set on <body> from a validated theme (branding/theme.ts), which guarantees the
 * contrast of each text color with the background it is used on; the alert keeps fixed,
 * checked colors so that an error reads the same in every theme.
 */
const STYLES = `
* { box-sizing: border-box; }
html { font-size: 100%; line-height: 1.5; -webkit-text-size-adjust: 100%; }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; align-items: center; padding: 2.5rem 1rem;
  font-family: var(--font); color: var(--ink); background: var(--backdrop); }
.brand { display: flex; align-items: center; gap: .75rem; margin: 0 0 1.5rem; font-weight: 700; font-size: 1.25rem;
  line-height: 1.2; max-width: 28rem; text-align: center; }
.logo { flex: none; width: 2.5rem; height: 2.5rem; border-radius: .6rem; background: var(--brand); color: var(--on-brand);
  display: inline-flex; align-items: center; justify-content: center; font-size: 1.25rem; }
.logo-image { flex: none; height: 2.5rem; width: auto; max-width: 10rem; object-fit: contain; }
main { width: 100%; max-width: 28rem; background: var(--surface); border: 1px solid var(--line);
  border-top: .25rem solid var(--accent); border-radius: .75rem; padding: 2rem;
  box-shadow: 0 1px 2px rgba(16, 24, 40, .06), 0 .5rem 1.5rem rgba(16, 24, 40, .08); }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .5rem; overflow-wrap: anywhere; }
h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; overflow-wrap: anywhere; }
h3 { font-size: .8125rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .35rem; }
p { margin: .5rem 0; }
strong { overflow-wrap: anywhere; }
.lead { color: var(--muted); margin-bottom: 1.5rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
input[type=email], input[type=password] { display: block; width: 100%; font: inherit; padding: .65rem .8rem;
  border: 1px solid var(--field); border-radius: .5rem; color: var(--ink); background: var(--surface); }
input[type=email]:focus, input[type=password]:focus { border-color: var(--brand-ink); }
button { font: inherit; font-weight: 600; padding: .7rem 1.25rem; border-radius: .5rem; cursor: pointer;
  border: 1px solid var(--brand-ink); min-height: 2.75rem; }
.primary { background: var(--brand); color: var(--on-brand); }
.primary:hover { background: var(--brand-hover); }
.secondary { background: var(--surface); color: var(--brand-ink); }
.secondary:hover { background: var(--subtle); }
.full { width: 100%; margin-top: 1.5rem; }
.actions { display: flex; gap: .75rem; justify-content: flex-end; margin-top: 1.75rem; flex-wrap: wrap; }
:focus-visible { outline: 3px solid var(--brand-ink); outline-offset: 2px; }
.alert { background: #fdecec; color: #8a1c1c; border: 1px solid #f3b9b9; border-left: .25rem solid #b42318;
  border-radius: .5rem; padding: .65rem .85rem; margin: 1rem 0; }
.account { background: var(--backdrop); border-radius: .5rem; padding: .65rem .85rem; margin: 1rem 0; }
ul.scopes { list-style: none; margin: 0; padding: 0; }
ul.scopes li { padding: .45rem 0; border-bottom: 1px solid var(--line); display: flex; justify-content: space-between;
  gap: 1rem; align-items: baseline; }
ul.scopes li:last-child { border-bottom: 0; }
ul.scopes code { white-space: nowrap; flex-shrink: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .8125rem; color: var(--muted);
  overflow-wrap: anywhere; }
.note { font-size: .875rem; color: var(--muted); }
footer { margin-top: 1.5rem; font-size: .8125rem; color: var(--muted); text-align: center; }
@media (max-width: 30rem) { main { padding: 1.5rem 1.25rem; } body { padding-top: 1.5rem; } }
@media (forced-colors: active) { main { border-top-width: 1px; } :focus-visible { outline-color: Highlight; } }
`;

/**
 * `it.themeStyle` is the theme's custom properties (branding/theme.ts: validated colors and
 * font names only), escaped like any attribute. The logo's URL is https or the public origin
 * (branding/branding.ts) and the CSP allows only its origin.
 */
export const LAYOUT_TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title><% if (it.error) { %>Error: <% } %><%= it.title %> · <%= it.brand %></title>
<style>${STYLES}</style>
</head>
<body style="<%= it.themeStyle %>">
<header class="brand">
<% if (it.logo) { %><img class="logo-image" src="<%= it.logo.url %>" alt="<%= it.logo.alt %>" height="40"><% } else { %><span class="logo" aria-hidden="true"><%= it.brand.charAt(0) %></span><% } %>
<span><%= it.brand %></span>
</header>
<main>
<%~ it.body %>
</main>
<footer>Secured sign-in for <%= it.brand %></footer>
</body>
</html>
`;

const HIDDEN_FIELDS = `<% for (const [name, value] of it.hidden) { %>
<input type="hidden" name="<%= name %>" value="<%= value %>">
<% } %>`;

/**
 * Focus order is the reading order: email, password, Sign in. An error is announced (role=alert)
 * and read again with each field (aria-describedby); it never says which of the two was wrong.
 */
export const LOGIN_TEMPLATE = `<% layout('@layout') %>
<h1>Sign in</h1>
<p class="lead">to continue to <strong><%= it.clientName %></strong></p>
<% if (it.error) { %>
<div class="alert" role="alert" id="form-error"><%= it.error %></div>
<% } %>
<form method="post" action="<%= it.action %>"<% if (it.error) { %> aria-describedby="form-error"<% } %>>
<input type="hidden" name="_csrf" value="<%= it.csrfToken %>">
${HIDDEN_FIELDS}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" spellcheck="false" value="<%= it.email %>"<% if (it.error) { %> aria-describedby="form-error"<% } %><% if (it.invalid) { %> aria-invalid="true"<% } %>>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"<% if (it.error) { %> aria-describedby="form-error"<% } %><% if (it.invalid) { %> aria-invalid="true"<% } %>>
<button type="submit" class="primary full">Sign in</button>
</form>
`;

/**
 * A step-up lists only what is new ("will also be able to"); what the user approved before for
 * this app is one sentence after it, so the list stays what this decision is about.
 * The decision comes last, after everything it is about. Deny comes before Approve, in the
 * markup, on screen and in the focus order (WCAG 2.4.3: focus order follows the visual order):
 * the first button a keyboard user reaches is the one that hands out nothing, so a stray
 * Enter or Space never grants access. Approve carries the school's color and sits where
 * the eye ends, at the right.
 */
export const CONSENT_TEMPLATE = `<% layout('@layout') %>
<h1><%= it.clientName %> wants to access your account</h1>
<% if (it.clientHost) { %>
<p class="lead">Application published by <strong><%= it.clientHost %></strong></p>
<% } %>
<div class="account">
<p>Signed in as <strong><%= it.userName %></strong> (<%= it.userEmail %>)<% if (it.schoolName) { %> at <strong><%= it.schoolName %></strong><% } %>.</p>
</div>
<% if (it.error) { %>
<div class="alert" role="alert" id="form-error"><%= it.error %></div>
<% } %>
<h2 id="permissions">If you approve, <%= it.clientName %> will <% if (it.alreadyGranted) { %>also <% } %>be able to:</h2>
<% for (const group of it.groups) { %>
<h3><%= group.label %></h3>
<ul class="scopes">
<% for (const scope of group.scopes) { %>
<li><span><%= scope.description %></span> <code><%= scope.name %></code></li>
<% } %>
</ul>
<% } %>
<% if (it.alreadyGranted) { %>
<p class="note" id="already-granted">You allowed this before, and are not asked again: <%= it.alreadyGranted %>.</p>
<% } %>
<% if (it.clientHost && it.loopbackOnly) { %>
<p class="note"><strong>This application runs on your computer.</strong> <%= it.clientHost %> describes it, but any program on this computer could use that description: approve only if you just started this sign-in from it.</p>
<% } %>
<p class="note">You will be sent back to <strong><%= it.redirectHost %></strong><% if (!it.clientHost || it.loopbackOnly) { %> on this computer<% } %>.
The name <strong><%= it.clientName %></strong> is chosen by the application itself: approve only if you started this sign-in.</p>
<form method="post" action="<%= it.action %>"<% if (it.error) { %> aria-describedby="form-error"<% } %>>
<input type="hidden" name="_csrf" value="<%= it.csrfToken %>">
${HIDDEN_FIELDS}
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
</div>
</form>
<p class="note"><a href="/oauth/connected-apps">See and disconnect the apps connected to your account</a></p>
`;

export const ERROR_TEMPLATE = `<% layout('@layout') %>
<h1><%= it.heading %></h1>
<div class="alert" role="alert"><%= it.description %></div>
<% if (it.code) { %>
<p class="note">Error code: <code><%= it.code %></code></p>
<% } %>
<p><%= it.advice %></p>
`;
