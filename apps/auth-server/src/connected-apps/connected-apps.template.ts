/**
 * The connected-apps page, rendered inside the sign-in pages' layout (pages/templates.ts), so
 * it has the same look, escaping rules (`<%= %>` only) and no script. Each app is a section
 * named by its heading, with what tells apart apps of one name (its web site or client id, the
 * browser and network it was approved from, when); its Disconnect button is described by that heading, so a screen
 * reader announces which app it cuts off. Sign out comes last.
 */
export const CONNECTED_APPS_TEMPLATE = `<% layout('@layout') %>
<h1>Connected apps</h1>
<div class="account">
<p>Signed in as <strong><%= it.userName %></strong> (<%= it.userEmail %>)<% if (it.schoolName) { %> at <strong><%= it.schoolName %></strong><% } %>.</p>
</div>
<% if (it.notice) { %>
<p class="account" role="status"><%= it.notice %></p>
<% } %>
<% if (it.error) { %>
<div class="alert" role="alert"><%= it.error %></div>
<% } %>
<% if (it.apps.length === 0) { %>
<p>No application has access to your account.</p>
<% } else { %>
<p class="lead">These applications can use your account. Disconnect one to end its access at once and forget what you allowed it: it will have to ask you again.</p>
<% } %>
<% it.apps.forEach(function (app, index) { %>
<section aria-labelledby="app-<%= index %>">
<h2 id="app-<%= index %>"><%= app.name %></h2>
<p class="note"><%= app.originLabel %>: <code><%= app.origin %></code></p>
<% if (app.approvedFrom) { %>
<p class="note">Approved from <%= app.approvedFrom %>.</p>
<% } %>
<% app.groups.forEach(function (group) { %>
<h3><%= group.label %></h3>
<ul class="scopes">
<% group.scopes.forEach(function (scope) { %>
<li><span><%= scope.description %></span> <code><%= scope.name %></code></li>
<% }) %>
</ul>
<% }) %>
<p class="note">First authorized <time datetime="<%= app.firstAuthorizedIso %>"><%= app.firstAuthorized %></time>.
Last used <time datetime="<%= app.lastUsedIso %>"><%= app.lastUsed %></time>.</p>
<% if (app.remembered) { %>
<p class="note"><%= app.remembered %></p>
<% } %>
<form method="post" action="<%= it.disconnectAction %>">
<input type="hidden" name="_csrf" value="<%= it.csrfToken %>">
<input type="hidden" name="client_id" value="<%= app.clientId %>">
<div class="actions">
<button type="submit" class="secondary" aria-describedby="app-<%= index %>">Disconnect</button>
</div>
</form>
</section>
<% }) %>
<form method="post" action="<%= it.signOutAction %>">
<input type="hidden" name="_csrf" value="<%= it.csrfToken %>">
<button type="submit" class="secondary full">Sign out</button>
</form>
`;
