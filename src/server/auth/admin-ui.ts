/**
 * The admin UI at `/_/` (CONTRACT §7.9): one same-origin page, no external assets. It signs in a superuser with
 * `auth-with-password` and reads the admin data routes with that token (kept in sessionStorage).
 */
export const ADMIN_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>pksd admin</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f7}
header{background:#24292f;color:#fff;padding:.6rem 1rem;display:flex;justify-content:space-between;align-items:center}
main{max-width:70rem;margin:1rem auto;padding:0 1rem}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1rem;margin-bottom:1rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #eee;vertical-align:top}
th{font-weight:600}code,pre{font-family:ui-monospace,monospace;font-size:12px}pre{white-space:pre-wrap;margin:0}
button{cursor:pointer}input{margin:.2rem 0;padding:.3rem;width:16rem}.err{color:#b00020}.muted{color:#777}
</style></head>
<body>
<header><strong>pksd admin</strong><span id="who"></span></header>
<main>
<section id="login"><h2>Sign in</h2>
<form id="login-form"><div><input id="email" type="email" placeholder="email" autocomplete="username" required></div>
<div><input id="password" type="password" placeholder="password" autocomplete="current-password" required></div>
<button type="submit">Sign in</button> <span id="login-error" class="err"></span></form>
<p class="muted">Superusers are managed with <code>pksd superuser upsert &lt;email&gt; &lt;password&gt;</code>.</p></section>
<div id="app" hidden>
<section><h2>Users</h2><table id="users"><thead><tr><th>ID</th><th>Login</th><th>Email</th><th>Name</th><th>Provider</th><th>Created</th><th></th></tr></thead><tbody></tbody></table></section>
<section><h2>Personal access tokens</h2><table id="pats"><thead><tr><th>ID</th><th>User</th><th>Name</th><th>Prefix</th><th>Scopes</th><th>Expires</th><th>Last used</th><th></th></tr></thead><tbody></tbody></table></section>
<section><h2>Settings</h2><table id="settings"><thead><tr><th>Name</th><th>Value</th><th>Source</th></tr></thead><tbody></tbody></table></section>
<section><h2>Health</h2><pre id="health"></pre></section>
</div>
</main>
<script>
(function () {
  var TOKEN_KEY = 'pksd-admin-token';
  var token = sessionStorage.getItem(TOKEN_KEY);
  function $(id) { return document.getElementById(id); }
  function text(v) { return v === null || v === undefined ? '' : String(v); }
  function row(cells, action) {
    var tr = document.createElement('tr');
    cells.forEach(function (c) { var td = document.createElement('td'); td.textContent = text(c); tr.appendChild(td); });
    var td = document.createElement('td');
    if (action) td.appendChild(action);
    tr.appendChild(td);
    return tr;
  }
  function api(method, path, body) {
    var headers = { 'Accept': 'application/json' };
    if (token) headers['Authorization'] = token;
    if (body) headers['Content-Type'] = 'application/json';
    return fetch(path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined }).then(function (res) {
      if (res.status === 401) { signOut(); throw new Error('signed out'); }
      if (res.status === 204) return null;
      return res.json().then(function (data) { if (!res.ok) throw new Error(data.message || data.detail || res.status); return data; });
    });
  }
  function button(label, onClick) {
    var b = document.createElement('button'); b.textContent = label; b.addEventListener('click', onClick); return b;
  }
  function signOut() {
    token = null; sessionStorage.removeItem(TOKEN_KEY); $('app').hidden = true; $('login').hidden = false; $('who').textContent = '';
  }
  function loadUsers() {
    return api('GET', '/api/collections/users/records?page=1&perPage=500').then(function (data) {
      var body = $('users').tBodies[0]; body.textContent = '';
      data.items.forEach(function (u) {
        body.appendChild(row([u.id, u.login, u.email, u.name, u.provider, u.created], button('Delete', function () {
          if (confirm('Delete user ' + (u.login || u.id) + ' and all their tokens?')) api('DELETE', '/api/collections/users/records/' + encodeURIComponent(u.id)).then(refresh);
        })));
      });
    });
  }
  function loadPats() {
    return api('GET', '/api/collections/pat_tokens/records?page=1&perPage=500').then(function (data) {
      var body = $('pats').tBodies[0]; body.textContent = '';
      data.items.forEach(function (p) {
        body.appendChild(row([p.id, p.user, p.name, p.prefix, p.scopes.join(', '), p.expires_at, p.last_used_at || 'never'], button('Revoke', function () {
          if (confirm('Revoke ' + p.prefix + '…?')) api('DELETE', '/api/collections/pat_tokens/records/' + encodeURIComponent(p.id)).then(refresh);
        })));
      });
    });
  }
  function loadSettings() {
    return api('GET', '/api/admin/settings').then(function (data) {
      var body = $('settings').tBodies[0]; body.textContent = '';
      data.settings.forEach(function (s) { var r = row([s.name, s.value, s.source]); r.removeChild(r.lastChild); body.appendChild(r); });
    });
  }
  function loadHealth() {
    return api('GET', '/api/admin/health').then(function (data) { $('health').textContent = JSON.stringify(data, null, 2); });
  }
  function refresh() {
    $('login').hidden = true; $('app').hidden = false;
    return Promise.all([loadUsers(), loadPats(), loadSettings(), loadHealth()]).catch(function () {});
  }
  $('login-form').addEventListener('submit', function (ev) {
    ev.preventDefault(); $('login-error').textContent = '';
    fetch('/api/collections/_superusers/auth-with-password', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identity: $('email').value, password: $('password').value })
    }).then(function (res) { return res.json().then(function (data) { return { ok: res.ok, data: data }; }); })
      .then(function (r) {
        if (!r.ok) { $('login-error').textContent = r.data.message || r.data.detail || 'Failed to authenticate.'; return; }
        token = r.data.token; sessionStorage.setItem(TOKEN_KEY, token); $('who').textContent = r.data.record.email + ' ';
        $('who').appendChild(button('Sign out', signOut)); $('password').value = ''; refresh();
      });
  });
  if (token) refresh();
})();
</script>
</body></html>
`;
