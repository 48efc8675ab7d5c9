// SPDX-License-Identifier: MIT
// web.test.mjs: the spectators' page in headless chromium (playwright-core): replays equal the terminal, a live duel, private links.
// Started by test_web.sh, which starts the servers and bots and captures the terminal's screens; see there.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { ok, notok, tap, waitText } from './tap.mjs';

const env = process.env;

// The DEC special graphics a terminal draws lines with (what tmux keeps as SO, 'q', SI).
const DEC = { '`': '\u25c6', a: '\u2592', f: '\u00b0', g: '\u00b1', j: '\u2518', k: '\u2510', l: '\u250c', m: '\u2514',
  n: '\u253c', o: '\u23ba', p: '\u23bb', q: '\u2500', r: '\u23bc', s: '\u23bd', t: '\u251c', u: '\u2524', v: '\u2534',
  w: '\u252c', x: '\u2502', y: '\u2264', z: '\u2265', '{': '\u03c0', '|': '\u2260', '}': '\u00a3', '~': '\u00b7' };

// ---- the terminal's screen: tmux capture-pane -e, its SGR sequences into cells ----
function parseAnsi(text) {
  const rows = [];
  let fg = 7, fl = 0, acs = false; // tmux says a style once: it holds on the lines after
  for (const line of text.split('\n').slice(0, 24)) {
    const cells = [];
    const re = /\x1b\[([0-9;:]*)m|\x1b\(([0B])|([^\x1b])/gu;
    let m;
    while ((m = re.exec(line)) !== null) {
      if (m[2] !== undefined) { acs = m[2] === '0'; continue; }
      if (m[3] === '\x0e' || m[3] === '\x0f') { acs = m[3] === '\x0e'; continue; }
      if (m[3] !== undefined) { cells.push({ ch: acs && DEC[m[3]] ? DEC[m[3]] : m[3], fg, fl }); continue; }
      const ps = m[1] === '' ? [0] : m[1].split(/[;:]/).map(Number);
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i];
        if (p === 0) { fg = 7; fl = 0; }
        else if (p === 1) fl |= 1;
        else if (p === 2) fl |= 2;
        else if (p === 4) fl |= 8;
        else if (p === 7) fl |= 4;
        else if (p === 22) fl &= ~3;
        else if (p === 24) fl &= ~8;
        else if (p === 27) fl &= ~4;
        else if (p >= 30 && p <= 37) fg = p - 30;
        else if (p === 39) fg = 7;
        else if (p >= 90 && p <= 97) fg = p - 90 + 8;
        else if ((p === 38 || p === 48) && ps[i + 1] === 5) { if (p === 38) fg = ps[i + 2]; i += 2; }
        else if ((p === 38 || p === 48) && ps[i + 1] === 2) i += 4;
      }
    }
    while (cells.length < 80) cells.push({ ch: ' ', fg: 7, fl: 0 });
    rows.push(cells);
  }
  while (rows.length < 24) rows.push(Array.from({ length: 80 }, () => ({ ch: ' ', fg: 7, fl: 0 })));
  return rows;
}

// ---- the page's grid, read from its DOM: a div a row, a span a run ----
async function pageGrid(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('#grid > div')).map((row) => {
    const cells = [];
    for (const span of row.children)
      for (const ch of Array.from(span.textContent))
        cells.push({ ch, fg: Number(span.dataset.fg), fl: Number(span.dataset.fl) });
    return cells;
  }));
}

// Cell for cell: the character, and what shows of its colours: a character's colour and
// attributes, a blank's reverse video (its background).
function compare(want, got) {
  const diffs = [];
  for (let y = 0; y < 24; y++) {
    for (let x = 0; x < 80; x++) {
      const a = want[y][x], b = (got[y] || [])[x] || { ch: '(none)', fg: -1, fl: -1 };
      const blank = a.ch === ' ';
      const same = a.ch === b.ch && (blank ? (a.fl & 4) === (b.fl & 4) : a.fg === b.fg && a.fl === b.fl);
      if (!same && diffs.length < 5)
        diffs.push(`row ${y} col ${x}: terminal '${a.ch}' fg ${a.fg} attr ${a.fl}, page '${b.ch}' fg ${b.fg} attr ${b.fl}`);
      if (!same && diffs.length >= 5) break;
    }
  }
  return diffs;
}

const text = (grid) => grid.map((r) => r.map((c) => c.ch).join('')).join('\n');

const waitScreen = (page, re, ms) => waitText(page, 'grid', re, ms);

// The replay link the end of a live duel gave ("over"): kept in #over's data-replay, which the
// next duel of the room (a rematch) does not clear, unlike the link shown.
async function overLink(page, ms = 10000) {
  return page.evaluate((ms) => new Promise((res, rej) => {
    const el = document.getElementById('over');
    if (el.dataset.replay) { res(el.dataset.replay); return; }
    const o = new MutationObserver(() => {
      if (el.dataset.replay) { clearTimeout(t); o.disconnect(); res(el.dataset.replay); }
    });
    const t = setTimeout(() => { o.disconnect(); rej(new Error(`no replay link in ${ms} ms`)); }, ms);
    o.observe(el, { attributes: true });
  }), ms);
}

const browser = await chromium.launch({ executablePath: env.CHROMIUM, args: ['--no-sandbox'] });
const context = await browser.newContext({ viewport: { width: 900, height: 620 } });
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => notok('no script error on the page', String(e)));

  // ==== 1. a live duel (the bots began it just before), followed to its end ====
  async function live() {
    // The room's page at once (the duel is short), and the list beside it.
    const p = await context.newPage();
    await p.goto(env.WEB_PUB + '#w=' + env.PUB_ROOM);
    const l = await context.newPage();
    await l.goto(env.WEB_PUB);
    await l.waitForSelector(`#rooms a[href="#w=${env.PUB_ROOM}"]`, { timeout: 10000 });
    const entry = await l.textContent(`#rooms tr:has(a[href="#w=${env.PUB_ROOM}"])`);
    if (/pub-a vs pub-b.*shared view.*turn \d+.*watching/.test(entry)) ok(`the live room is in the list: ${entry}`);
    else notok('the live room is in the list with its players, view, turn and spectators', entry);
    await l.close();
    await waitScreen(p, /Spectator in room .*shared view/);
    await waitScreen(p, /Live\./);
    const live = text(await pageGrid(p));
    if (/pub-a HP \d+\/\d+ +vs +pub-b HP/.test(live) || /pub-b HP \d+\/\d+ +vs +pub-a HP/.test(live)) ok('the live page shows both names and HPs');
    else notok('the live page shows both names and HPs', live);
    if (env.SHOTS) { // docs/web-live.png: a duel some rounds in, not its empty first screen
      await waitScreen(p, /Round [1-9][0-9]+:/, 25000);
      await p.screenshot({ path: env.SHOTS + '/web-live.png', clip: { x: 0, y: 0, width: 900, height: 560 } });
    }
    // Followed from a screen of a running duel to its end. A page that came in at a duel's very
    // end (a loaded machine) follows the room's next one (the bots play ten).
    const count = async () => Number(await p.$eval('#grid', (g) => g.dataset.n));
    let frames = 0;
    for (let game = 0; game < 2 && frames < 2; game++) {
      await waitScreen(p, /Live\./, 25000);
      const first = await count();
      await waitScreen(p, /The duel is over: everything is shown\./, 25000);
      frames = (await count()) - first;
    }
    if (frames >= 2) ok(`the page followed the duel to its end (${frames} more screens)`);
    else notok('the page followed the duel', `${frames} screens`);
    const rlink = await overLink(p);
    const p2 = await context.newPage();
    await p2.goto(env.WEB_PUB + rlink);
    await waitScreen(p2, /Replay: paused, 1x, turn 1, command 0\//);
    await p2.keyboard.press('e');
    await waitScreen(p2, /at the end/);
    ok(`its end gives a replay link that plays it (${rlink.slice(0, 24)}...)`);
    await p2.close();
    await p.close();
  }

  // ==== 2. the lists, and replays against the terminal ====
  async function replays() {
  await page.goto(env.WEB_PUB);
  await page.waitForSelector('#duels a');
  const links = await page.$$eval('#duels a', (as) => as.map((a) => a.getAttribute('href')));
  const players = await page.$$eval('#duels tr', (trs) => trs.map((tr) => tr.textContent));
  const three = ['normal-vs-hard', 'small-15-nofov', 'large-51'].every((d) => links.some((h) => h.includes('-' + d + '.')));
  if (three && players.some((p) => /normal-bot-0 vs hard-bot-1/.test(p))) ok('the list holds the three recorded duels, with their players');
  else notok('the list holds the three finished duels', JSON.stringify(players));

  const cases = JSON.parse(fs.readFileSync(env.CASES, 'utf8'));
  const byDuel = {};
  for (const c of cases) (byDuel[c.duel] ||= []).push(c);
  let shot = false;
  await Promise.all(Object.entries(byDuel).map(async ([duel, steps]) => {
    const href = links.find((h) => h.includes('-' + duel + '.'));
    if (!href) { notok(`${duel}: a link in the list`, links.join(' ')); return; }
    const p = await context.newPage();
    await p.goto(env.WEB_PUB + href);
    for (const c of steps) {
      for (const k of c.keys.split(' ').filter(Boolean)) await p.keyboard.press(k === 'b' ? 'b' : k);
      if (c.turn) { // the terminal's "g 1 0 Enter": the page's turn box
        await p.fill('#turn', String(c.turn));
        await p.click('#b-turn');
      }
      const what = c.turn ? `turn ${c.turn}, command ${c.at}/${c.of}` : `command ${c.at}/${c.of}`;
      try {
        await waitScreen(p, new RegExp(`${what}\\b`));
      } catch (e) {
        notok(`${duel}: the page reaches ${what}`, text(await pageGrid(p)));
        continue;
      }
      const how = c.turn ? `jump to turn ${c.turn}` : `keys '${c.keys}'`;
      const diffs = compare(parseAnsi(fs.readFileSync(c.ref, 'utf8')), await pageGrid(p));
      if (diffs.length === 0) ok(`${duel} at ${what} (${how}): the page's grid equals the terminal's, cell for cell`);
      else notok(`${duel} at ${what} (${how}): the page's grid equals the terminal's`, diffs.join('\n'));
      if (env.SHOTS && !shot && c.at === c.of - 11) {
        await p.screenshot({ path: env.SHOTS + '/web-replay.png', clip: { x: 0, y: 0, width: 900, height: 560 } });
        shot = true;
      }
    }
    await p.close();
  }));
  }

  // A replay refused without its link's key, and with a wrong one (beside the replays above).
  async function refusals() {
    for (const [what, frag] of [['no key', '#r=20260102-normal-vs-hard'], ['a wrong key', '#r=20260102-normal-vs-hard.' + '0'.repeat(32)]]) {
      const p = await context.newPage();
      await p.goto(env.WEB_PUB + frag);
      await waitText(p, 'status', /./);
      const st = await p.textContent('#status');
      const rows = await p.$$eval('#grid > div', (d) => d.length);
      if (/not its link/.test(st) && rows === 0) ok(`a replay with ${what} is refused: "${st}"`);
      else notok(`a replay with ${what} is refused`, `status "${st}", ${rows} rows`);
      await p.close();
    }
    // A room and a duel that do not exist: said, and nothing drawn (the page's "not found" path). The
    // two pages at once: 1.8 to 2.5 s together at a load of 8 to 11 on 2 cores (3 s one after the other).
    const t0 = Date.now();
    await Promise.all([['a room', '#w=no-such-room', /^no such room$/],
      ['a duel', '#r=20260102-no-such-duel.' + 'f'.repeat(32), /^no such duel, or not its link$/]].map(async ([what, frag, want]) => {
      const p = await context.newPage();
      await p.goto(env.WEB_PUB + frag);
      await waitText(p, 'status', /./);
      const st = await p.textContent('#status');
      const rows = await p.$$eval('#grid > div', (d) => d.length);
      if (want.test(st) && rows === 0) ok(`${what} that does not exist: "${st}", nothing drawn`);
      else notok(`${what} that does not exist is said`, `status "${st}", ${rows} rows`);
      await p.close();
    }));
    console.log(`# the two pages of nothing found: ${Date.now() - t0} ms`);
  }

  // ==== 3. a private server ====
  async function priv() {
    const p = await context.newPage();
    await p.goto(env.WEB_PRIV);
    await p.waitForSelector('#rooms tr');
    const rooms = await p.$$eval('#rooms a', (a) => a.length), duels = await p.$$eval('#duels a', (a) => a.length);
    if (rooms === 0 && duels === 0) ok('a private server lists no room and no duel');
    else notok('a private server lists nothing', `${rooms} rooms, ${duels} duels`);
    for (const [what, frag] of [['without its link', `#w=${env.PRIV_ROOM}`],
      ['with a wrong link', `#w=${env.PRIV_ROOM}.${'a'.repeat(32)}`],
      ['its finished duel without its link', `#r=${env.PRIV_DUEL}`]]) {
      const q = await context.newPage();
      await q.goto(env.WEB_PRIV + frag);
      await waitText(q, 'status', /./);
      const st = await q.textContent('#status');
      const rows = await q.$$eval('#grid > div', (d) => d.length);
      if (rows === 0 && /private|not its link/.test(st)) ok(`a private room's page ${what} is refused: "${st}"`);
      else notok(`a private room's page ${what} is refused`, `status "${st}", ${rows} rows`);
      await q.close();
    }
    const q = await context.newPage();
    await q.goto(env.WEB_PRIV + env.PRIV_LINK);
    await waitScreen(q, new RegExp(`Spectator in room ${env.PRIV_ROOM}`));
    await waitScreen(q, /priv-a HP/);
    ok('the private room opens from the link its server logged');
    await q.close();
    await p.close();
  }

  // ==== 4. a hostile visitor: the port's limits ====
  async function hostile() {
    const p = await context.newPage();
    await p.goto(env.WEB_PRIV);
    const r = await p.evaluate(async (base) => {
      const open = () => new Promise((res) => {
        const ws = new WebSocket(base.replace('http', 'ws'), 'wizwar');
        ws.onopen = () => res({ ws, open: true });
        ws.onerror = () => res({ ws, open: false });
      });
      const closed = (ws) => new Promise((res) => {
        if (ws.readyState === WebSocket.CLOSED) res(true);
        ws.onclose = () => res(true);
        setTimeout(() => res(false), 5000);
      });
      const out = {};
      // Eight websockets from one address at once (the page itself holds one): the ninth is refused.
      const socks = [];
      for (let i = 0; i < 8; i++) socks.push(await open());
      out.opened = socks.filter((s) => s.open).length;
      out.ninthClosed = socks[7].open ? await closed(socks[7].ws) : true;
      for (const s of socks) s.ws.close();
      await Promise.all(socks.map((s) => closed(s.ws))); // no pause: the four below need two places of eight
      // A message over 256 bytes, one that is not JSON, one of binary: each closes its socket.
      for (const [name, msg] of [['big', JSON.stringify({ t: 'list', room: 'x'.repeat(300) })], ['junk', '{"t":"list",'],
        ['binary', new Uint8Array([1, 2, 3])], ['unknown', '{"t":"list","cmd":"shell"}']]) {
        const s = await open();
        s.ws.send(msg);
        out[name] = await closed(s.ws);
      }
      // Nothing but / and /app.js (a query is ignored): no other path, no directory, no traversal.
      out.paths = [];
      for (const path of ['/etc/passwd', '/../../etc/passwd', '/app.js/', '/index.html', '/metrics', '/.git/config'])
        out.paths.push((await fetch(base + path.slice(1))).status);
      return out;
    }, env.WEB_PRIV);
    if (r.opened === 8 && r.ninthClosed) ok('a ninth websocket from one address is refused (eight at once)');
    else notok('eight websockets from one address at once', JSON.stringify(r));
    for (const k of ['big', 'junk', 'binary', 'unknown'])
      if (r[k]) ok(`a ${k} message closes its socket`); else notok(`a ${k} message closes its socket`, JSON.stringify(r));
    if (r.paths.every((c) => c === 404)) ok(`the port serves nothing but the page: ${r.paths.join(' ')}`);
    else notok('the port serves nothing but the page', r.paths.join(' '));
    await p.close();
  }

  // ==== 5. `wizwar host --web`: the host plays in tmux; its page lists and shows its one room ====
  async function host() {
    const tmux = (...a) => execFileSync('tmux', ['-L', env.TMUX_SOCK, '-f', '/dev/null', ...a], { encoding: 'utf8' });
    const l = await context.newPage();
    await l.goto(env.WEB_HOST);
    await l.waitForSelector('#rooms a[href="#w=host"]', { timeout: 10000 });
    const entry = await l.textContent('#rooms tr:has(a[href="#w=host"])');
    if (/hoster vs guest.*shared view.*turn \d+/.test(entry)) ok(`the host's page lists its room: ${entry}`);
    else notok('the host\'s page lists its room with its players and view', entry);
    const p = await context.newPage();
    await p.goto(env.WEB_HOST + '#w=host');
    await waitScreen(p, /Spectator in room host: shared view/);
    await waitScreen(p, /hoster HP \d+\/\d+ +vs +guest HP/);
    ok('the host\'s room is watched from its page, in the shared view');
    // The host forfeits from its terminal ("r": and stays to see the end); the page says the end.
    tmux('send-keys', '-t', 'h', 'Q');
    for (let i = 0; i < 100 && !/Forfeit/.test(tmux('capture-pane', '-p', '-t', 'h')); i++)
      await new Promise((res) => setTimeout(res, 50)); // tmux has no event to wait on
    tmux('send-keys', '-t', 'h', 'r');
    await waitScreen(p, /The duel is over: everything is shown\./, 15000);
    const rlink = await overLink(p);
    ok(`the host's duel ended on its page, with a replay link (${rlink.slice(0, 24)}...)`);
    // The list (asked again every 3 s) holds that duel, and not the earlier log of the host's folder.
    await l.waitForSelector(`#duels a[href="${rlink}"]`, { timeout: 10000 });
    const duels = await l.$$eval('#duels tr', (trs) => trs.map((tr) => tr.textContent));
    if (duels.length === 1 && /hoster vs guest/.test(duels[0])) ok(`the host's page lists the duel it finished, only: ${duels[0]}`);
    else notok('the host\'s page lists only the duel it finished', JSON.stringify(duels));
    const r = await context.newPage();
    await r.goto(env.WEB_HOST + rlink);
    await waitScreen(r, /Replay: paused, 1x, turn 1, command 0\//);
    await r.keyboard.press('e');
    await waitScreen(r, /at the end/);
    ok('the host\'s finished duel replays from its link');
    await r.close();
    await p.close();
    await l.close();
  }

  // Everything at once but the port's limits, which use up the eight websockets one address may
  // hold on the private server: the private server's own cases come after them.
  await Promise.all([live(), replays(), refusals(), host(), hostile().then(priv)]);
} catch (e) {
  notok('the browser test ran through', String(e && e.stack || e));
} finally {
  await browser.close();
}
console.log(`1..${tap.n}`);
process.exit(tap.failed ? 1 : 0);
