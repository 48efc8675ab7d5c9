// SPDX-License-Identifier: MIT
// app.js: the spectators' page: the websocket of docs/protocol.md ("The web page"), the lists, the screen and a replay's keys.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const status = (t) => { $('status').textContent = t; };

  // xterm's 256 colours: what the terminal the server draws for (xterm-256color) shows.
  const base = ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
    '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'];
  function colour(n) {
    if (n < 16) return base[n];
    if (n < 232) {
      const v = [0, 95, 135, 175, 215, 255];
      n -= 16;
      const r = v[Math.floor(n / 36)], g = v[Math.floor(n / 6) % 6], b = v[n % 6];
      return 'rgb(' + r + ',' + g + ',' + b + ')';
    }
    const l = 8 + (n - 232) * 10;
    return 'rgb(' + l + ',' + l + ',' + l + ')';
  }
  const BOLD = 1, DIM = 2, REVERSE = 4, UNDERLINE = 8;

  // The screen message: one div a row, one span a run of cells of one style (data-fg, data-fl
  // keep the server's values, which the tests compare with the terminal's).
  function draw(m) {
    const grid = $('grid');
    const rows = [];
    for (let y = 0; y < m.rows; y++) {
      const row = document.createElement('div');
      const cells = Array.from(m.text[y]);
      const st = m.style[y];
      let x = 0;
      for (let i = 0; i + 2 < st.length; i += 3) {
        const n = st[i], fg = st[i + 1], fl = st[i + 2];
        let text = '', cols = 0;
        while (cols < n && x < cells.length) {
          const ch = cells[x++];
          text += ch;
          cols += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1faff}]/u.test(ch) ? 2 : 1;
        }
        const span = document.createElement('span');
        span.textContent = text;
        span.dataset.fg = fg;
        span.dataset.fl = fl;
        let c = colour(fl & BOLD && fg < 8 ? fg + 8 : fg), bg = '#000';
        if (fl & REVERSE) [c, bg] = [bg, c];
        span.style.color = c;
        if (fl & REVERSE) span.style.background = bg;
        if (fl & BOLD) span.style.fontWeight = 'bold';
        if (fl & DIM) span.style.opacity = '0.6';
        if (fl & UNDERLINE) span.style.textDecoration = 'underline';
        row.appendChild(span);
      }
      rows.push(row);
    }
    grid.replaceChildren(...rows);
    grid.dataset.n = String(Number(grid.dataset.n) + 1);
  }

  function row(cells) {
    const tr = document.createElement('tr');
    for (const c of cells) {
      const td = document.createElement('td');
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      tr.appendChild(td);
    }
    return tr;
  }
  function link(text, href) {
    const a = document.createElement('a');
    a.textContent = text;
    a.href = href;
    return a;
  }
  const who = (p) => (p[0] || '?') + ' vs ' + (p[1] || '?');

  function lists(m) {
    const rooms = m.rooms.map((r) => row([link(r.room, '#w=' + encodeURIComponent(r.room)), who(r.players),
      r.view === 'delayed' ? 'one view, ' + r.delay + ' turns behind' : 'shared view',
      'turn ' + r.turn, r.watching + ' watching']));
    const duels = m.duels.map((d) => row([link(d.ended, '#r=' + d.id + '.' + d.key), who(d.players)]));
    if (!rooms.length) rooms.push(row([m.private ? 'This server\'s duels are private: open one from its link.' : 'None now.']));
    if (!duels.length) duels.push(row([m.private ? '' : 'None yet.']));
    $('rooms').replaceChildren(...rooms);
    $('duels').replaceChildren(...duels);
    $('lists').classList.remove('hidden');
  }

  // What the address asks: #w=ROOM[.MAC] a live room, #r=ID.MAC a replay, else the lists.
  const hash = decodeURIComponent(location.hash.slice(1));
  const want = /^([wr])=([^.]+)(?:\.([0-9a-f]{32}))?$/.exec(hash);
  let ws, timer;

  function send(o) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(o));
  }

  // A live room follows its duel (docs/server.md, "A cluster"): the node says the cluster's web
  // pages ("nodes"); when the socket closes in the middle of the duel, the page asks the others
  // every 250 ms (as `wizwar watch` does), the lost node last, for as long as a terminal watch
  // tries (130 s), and watches on from the node that holds the room now: one that does not says
  // where it is ("moved") or that it is moving ("moving"). A node restarted with --resume is
  // found the same way (its own address is the only one then). Not found: once every live node it
  // knows said "no such room" since the last "moved" or "moving" (a room being taken over is
  // "moving" on every node until one holds it, so an answer of every node is the directory's
  // word), said at once; NOT_FOUND_MAX such answers in all is the bound when a node never answers.
  const TRY_MS = 250, FOLLOW_MS = 130000, NOT_FOUND_MAX = 40;
  let nodes = [], at = location.host, seen = false, over = false, follow = null;

  function url(addr) {
    return (location.protocol === 'https:' && addr === location.host ? 'wss://' : 'ws://') + addr + '/';
  }

  // Every node but the lost one (or the lost one, alone) said "no such room" since the last news.
  function nowhere() {
    const need = nodes.filter((n) => n !== follow.lost);
    return (need.length ? need : [follow.lost]).every((n) => follow.absent.has(n));
  }

  function tryNext() {
    if (Date.now() > follow.until || follow.notFound >= NOT_FOUND_MAX || nowhere()) {
      follow = null;
      status('The duel could not be found on any node: it may be over.');
      return;
    }
    let addr = follow.next;
    follow.next = null;
    if (!addr) {
      const order = nodes.filter((n) => n !== follow.lost).concat([follow.lost]);
      addr = order[follow.i++ % order.length];
    }
    connect(addr);
  }

  function startFollow(why) {
    if (follow) return;
    follow = { lost: at, until: Date.now() + FOLLOW_MS, i: 0, next: null, notFound: 0, absent: new Set(), again: seen };
    status(why);
  }

  function lost() {
    startFollow('The connection to ' + at + ' was lost: looking for the duel on the other nodes...');
    setTimeout(tryNext, TRY_MS);
  }

  function connect(addr) {
    let sock;
    try {
      sock = new WebSocket(url(addr), 'wizwar');
    } catch (e) { // a node this page's CSP does not name (one that joined after it was loaded)
      if (follow) lost();
      return;
    }
    ws = sock;
    sock.onopen = () => {
      if (!follow) status('');
      if (want && want[1] === 'w') {
        $('title').textContent = 'room ' + want[2];
        $('duel').classList.remove('hidden');
        send({ t: 'watch', room: want[2], key: want[3] || '' });
      } else if (want && want[1] === 'r') {
        $('title').textContent = 'replay';
        $('duel').classList.remove('hidden');
        send({ t: 'replay', id: want[2], key: want[3] || '' });
      } else {
        send({ t: 'list' });
        timer = setInterval(() => send({ t: 'list' }), 3000);
      }
    };
    sock.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.t === 'screen') {
        if (follow) {
          status('Live; watching ' + (follow.again ? 'again ' : '') + 'from ' + addr + '.');
          follow = null;
          at = addr;
        }
        seen = true;
        draw(m);
      } else if (m.t === 'list') lists(m);
      else if (m.t === 'nodes') nodes = m.nodes.filter((n) => typeof n === 'string');
      else if (m.t === 'moved') { // the room's node now: asked next (also a link opened on another node)
        startFollow('The room is on ' + m.to + ': watching it there...');
        follow.next = m.to;
        follow.absent.clear();
        sock.close();
      } else if (m.t === 'moving') {
        startFollow('The room is moving to another node: looking for it...');
        follow.absent.clear();
        sock.close();
      }
      else if (m.t === 'error' && follow) {
        follow.notFound++;
        follow.absent.add(addr);
        sock.close();
      } else if (m.t === 'error') {
        seen = false; // refused, or the room closed: nothing to follow
        status(m.text);
      }
      else if (m.t === 'replay') {
        $('controls').classList.remove('hidden');
        $('turn').max = m.turns;
      } else if (m.t === 'live') {
        over = false;
        $('over').replaceChildren();
      } else if (m.t === 'over') {
        over = true;
        const o = $('over');
        // A replay is kept by the node that ended the duel: its link, there.
        const r = m.replay && at !== location.host ? location.protocol + '//' + at + '/' + m.replay : m.replay;
        o.replaceChildren('The duel is over. ');
        if (r) o.appendChild(link('Replay it', r));
        o.dataset.replay = r || '';
      }
    };
    sock.onclose = () => {
      if (sock !== ws) return;
      clearInterval(timer);
      if (follow || (want && want[1] === 'w' && seen && !over)) lost();
      else if (!$('status').textContent) status('The connection closed.');
    };
  }

  const key = (k) => () => send({ t: 'key', k: k });
  $('b-start').onclick = key('0');
  $('b-back').onclick = key('b');
  $('b-play').onclick = key(' ');
  $('b-step').onclick = key('n');
  $('b-end').onclick = key('e');
  $('b-slower').onclick = key('-');
  $('b-faster').onclick = key('+');
  $('b-view').onclick = key('v');
  $('b-turn').onclick = () => send({ t: 'turn', turn: Math.max(0, Math.floor(Number($('turn').value) || 0)) });
  // The replay viewer's keys, as in the terminal (wizwar replay).
  const keys = { ' ': ' ', n: 'n', b: 'b', 0: '0', e: 'e', '+': '+', '=': '+', '-': '-', v: 'v', '[': '[', ']': ']', '?': '?',
    ArrowRight: 'n', ArrowLeft: 'b', Home: '0', End: 'e' };
  document.addEventListener('keydown', (e) => {
    if (!want || want[1] !== 'r' || e.target.tagName === 'INPUT' || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.key === 'g') { // the terminal's "g turn": here, the turn box beside the buttons
      e.preventDefault();
      $('turn').focus();
      $('turn').select();
      return;
    }
    const k = keys[e.key];
    if (k) {
      e.preventDefault();
      send({ t: 'key', k: k });
    }
  });
  window.addEventListener('hashchange', () => location.reload());
  connect(location.host);
})();
