/**
 * The sign-in pages as eta templates, kept as string constants so that they are compiled
 * once at start and bundled with the code (no template files to ship or find at run time).
 *
 * Every interpolation uses `<%= %>`, which eta escapes (& < > " '). The only raw output
 * (`<%~ %>`) is `it.body` in the layout: the already-escaped output of a page template.
 * No JavaScript: the pages work with forms and links alone, and the CSP forbids scripts.
 */

const STYLES = `
:root { color-scheme: light; --ink: #1f2933; --muted: #52606d; --line: #d9e2ec; --brand: #3a3ab8;
  --brand-dark: #2b2b8f; --bg: #f3f5f9; --danger-bg: #fdecec; --danger: #8a1c1c; --focus: #1d4ed8; }
* { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 100%; line-height: 1.5; color: var(--ink); background: var(--bg); }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; align-items: center; padding: 2rem 1rem; }
.brand { display: flex; align-items: center; gap: .6rem; font-weight: 600; font-size: 1.05rem; margin-bottom: 1.25rem; }
.logo { width: 2rem; height: 2rem; border-radius: .5rem; background: var(--brand); color: #fff;
  display: inline-flex; align-items: center; justify-content: center; font-weight: 700; }
main { width: 100%; max-width: 30rem; background: #fff; border: 1px solid var(--line); border-radius: .75rem;
  padding: 2rem; box-shadow: 0 1px 3px rgba(16, 24, 40, .08); }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .5rem; }
h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .35rem; }
p { margin: .5rem 0; }
.lead { color: var(--muted); margin-bottom: 1.5rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .3rem; }
input[type=email], input[type=password] { width: 100%; font: inherit; padding: .6rem .75rem;
  border: 1px solid #7b8794; border-radius: .4rem; color: var(--ink); background: #fff; }
button { font: inherit; font-weight: 600; padding: .65rem 1.2rem; border-radius: .4rem; cursor: pointer;
  border: 1px solid var(--brand); }
.primary { background: var(--brand); color: #fff; }
.primary:hover { background: var(--brand-dark); }
.secondary { background: #fff; color: var(--brand); }
.secondary:hover { background: #eef0fb; }
.full { width: 100%; margin-top: 1.5rem; }
.actions { display: flex; gap: .75rem; justify-content: flex-end; margin-top: 1.75rem; flex-wrap: wrap; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.alert { background: var(--danger-bg); color: var(--danger); border: 1px solid #f3b9b9; border-radius: .4rem;
  padding: .6rem .8rem; margin: 1rem 0; }
.account { background: var(--bg); border-radius: .5rem; padding: .6rem .8rem; margin: 1rem 0; }
ul.scopes { list-style: none; margin: 0; padding: 0; }
ul.scopes li { padding: .4rem 0; border-bottom: 1px solid var(--line); display: flex; justify-content: space-between;
  gap: 1rem; align-items: baseline; }
ul.scopes li:last-child { border-bottom: 0; }
ul.scopes code { white-space: nowrap; flex-shrink: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .8rem; color: var(--muted);
  overflow-wrap: anywhere; }
.note { font-size: .875rem; color: var(--muted); }
footer { margin-top: 1.5rem; font-size: .8rem; color: var(--muted); }
`;

export const LAYOUT_TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title><%= it.title %> · <%= it.brand %></title>
<style>${STYLES}</style>
</head>
<body>
<div class="brand"><span class="logo" aria-hidden="true"><%= it.brand.charAt(0) %></span><span><%= it.brand %></span></div>
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

export const LOGIN_TEMPLATE = `<% layout('@layout') %>
<h1>Sign in</h1>
<p class="lead">to continue to <strong><%= it.clientName %></strong></p>
<% if (it.error) { %>
<div class="alert" role="alert" id="form-error"><%= it.error %></div>
<% } %>
<form method="post" action="<%= it.action %>">
<input type="hidden" name="_csrf" value="<%= it.csrfToken %>">
${HIDDEN_FIELDS}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="<%= it.email %>"<% if (it.error) { %> aria-describedby="form-error"<% } %>>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit" class="primary full">Sign in</button>
</form>
`;

export const CONSENT_TEMPLATE = `<% layout('@layout') %>
<h1><%= it.clientName %> wants to access your account</h1>
<div class="account">
<p>Signed in as <strong><%= it.userName %></strong> (<%= it.userEmail %>)<% if (it.schoolName) { %> at <strong><%= it.schoolName %></strong><% } %>.</p>
</div>
<% if (it.error) { %>
<div class="alert" role="alert"><%= it.error %></div>
<% } %>
<h2 id="permissions">If you approve, <%= it.clientName %> will be able to:</h2>
<% for (const group of it.groups) { %>
<h3><%= group.label %></h3>
<ul class="scopes">
<% for (const scope of group.scopes) { %>
<li><span><%= scope.description %></span> <code><%= scope.name %></code></li>
<% } %>
</ul>
<% } %>
<p class="note">You will be sent back to <strong><%= it.redirectHost %></strong> on this computer.
The name <strong><%= it.clientName %></strong> is chosen by the application itself: approve only if you started this sign-in.</p>
<form method="post" action="<%= it.action %>">
<input type="hidden" name="_csrf" value="<%= it.csrfToken %>">
${HIDDEN_FIELDS}
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
</div>
</form>
`;

export const ERROR_TEMPLATE = `<% layout('@layout') %>
<h1><%= it.heading %></h1>
<div class="alert" role="alert"><%= it.description %></div>
<% if (it.code) { %>
<p class="note">Error code: <code><%= it.code %></code></p>
<% } %>
<p><%= it.advice %></p>
`;
