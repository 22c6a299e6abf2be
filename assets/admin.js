/* The admin UI's script (CONTRACT §7.9), served as /_/admin.js so the page runs under `script-src 'self'`. */
/* global document, sessionStorage, confirm */
(function () {
  var TOKEN_KEY = 'pksd-admin-token';
  var token = sessionStorage.getItem(TOKEN_KEY);
  function $(id) {
    return document.getElementById(id);
  }
  function text(v) {
    return v === null || v === undefined ? '' : String(v);
  }
  /** A table row of text cells, and a cell holding `action` when one is given. */
  function row(cells, action) {
    var tr = document.createElement('tr');
    cells.forEach(function (c) {
      var td = document.createElement('td');
      td.textContent = text(c);
      tr.appendChild(td);
    });
    if (action) {
      var td = document.createElement('td');
      td.appendChild(action);
      tr.appendChild(td);
    }
    return tr;
  }
  /**
   * Replaces the rows of table `id` with one row per item. Each cell is labelled with its column's heading, which
   * narrow screens show in front of it (the rows stack there).
   */
  function fill(id, items, toRow) {
    var table = $(id);
    var headings = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
      return th.textContent.trim();
    });
    var body = table.tBodies[0];
    body.textContent = '';
    items.forEach(function (item) {
      var tr = toRow(item);
      Array.prototype.forEach.call(tr.cells, function (td, i) {
        if (headings[i]) td.setAttribute('data-label', headings[i]);
      });
      body.appendChild(tr);
    });
  }
  function api(method, path) {
    var headers = { Accept: 'application/json' };
    if (token) headers['Authorization'] = token;
    return fetch(path, { method: method, headers: headers }).then(function (res) {
      if (res.status === 401) {
        signOut();
        throw new Error('signed out');
      }
      if (res.status === 204) return null;
      return res.json().then(function (data) {
        if (!res.ok) throw new Error(data.message || data.detail || res.status);
        return data;
      });
    });
  }
  function button(label, onClick) {
    var b = document.createElement('button');
    b.textContent = label;
    b.addEventListener('click', onClick);
    return b;
  }
  /**
   * A button that, once `question` is confirmed, sends `method path` and reloads the tables; focus then goes to the
   * heading of its section, since the button itself may be gone with its row.
   */
  function confirmed(label, question, method, path) {
    var b = button(label, function () {
      if (!confirm(question)) return;
      var heading = b.closest('section').querySelector('h2');
      api(method, path)
        .then(refresh)
        .then(function () {
          heading.focus();
        });
    });
    b.setAttribute('aria-label', label + ': ' + question.replace(/\?$/, ''));
    return b;
  }
  function actions(buttons) {
    var span = document.createElement('span');
    buttons.forEach(function (b) {
      span.appendChild(b);
      span.appendChild(document.createTextNode(' '));
    });
    return span;
  }
  function signOut() {
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    $('app').hidden = true;
    $('login').hidden = false;
    $('who').textContent = '';
    $('login-title').focus();
  }
  function loadUsers() {
    return api('GET', '/api/collections/users/records?page=1&perPage=500').then(function (data) {
      fill('users', data.items, function (u) {
        var who = u.login || u.id;
        var id = encodeURIComponent(u.id);
        return row(
          [u.id, u.login, u.email, u.name, u.provider, u.created],
          actions([
            confirmed(
              'Revoke sessions',
              'Sign ' + who + ' out everywhere (their PATs stay valid)?',
              'POST',
              '/api/admin/users/' + id + '/revoke-sessions',
            ),
            confirmed(
              'Delete',
              'Delete user ' + who + ' and all their tokens?',
              'DELETE',
              '/api/collections/users/records/' + id,
            ),
          ]),
        );
      });
    });
  }
  function loadPats() {
    return api('GET', '/api/collections/pat_tokens/records?page=1&perPage=500').then(function (data) {
      fill('pats', data.items, function (p) {
        return row(
          [p.id, p.user, p.name, p.prefix, p.scopes.join(', '), p.expires_at, p.last_used_at || 'never'],
          confirmed(
            'Revoke',
            'Revoke ' + p.prefix + '…?',
            'DELETE',
            '/api/collections/pat_tokens/records/' + encodeURIComponent(p.id),
          ),
        );
      });
    });
  }
  function loadSettings() {
    return api('GET', '/api/admin/settings').then(function (data) {
      fill('settings', data.settings, function (s) {
        return row([s.name, s.value, s.source]);
      });
    });
  }
  function loadHealth() {
    return api('GET', '/api/admin/health').then(function (data) {
      $('health').textContent = JSON.stringify(data, null, 2);
    });
  }
  function refresh() {
    $('login').hidden = true;
    $('app').hidden = false;
    return Promise.all([loadUsers(), loadPats(), loadSettings(), loadHealth()]).catch(function () {});
  }
  $('login-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    $('login-error').textContent = '';
    fetch('/api/collections/_superusers/auth-with-password', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identity: $('email').value, password: $('password').value }),
    })
      .then(function (res) {
        return res.json().then(function (data) {
          return { ok: res.ok, data: data };
        });
      })
      .then(function (r) {
        if (!r.ok) {
          $('login-error').textContent = r.data.message || r.data.detail || 'Failed to authenticate.';
          return;
        }
        token = r.data.token;
        sessionStorage.setItem(TOKEN_KEY, token);
        $('who').textContent = r.data.record.email + ' ';
        $('who').appendChild(button('Sign out', signOut));
        $('password').value = '';
        // The form is gone: focus goes to the first section of what replaced it.
        return refresh().then(function () {
          $('users-title').focus();
        });
      });
  });
  if (token) refresh();
})();
