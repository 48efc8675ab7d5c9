// SPDX-License-Identifier: MIT
// follow.test.mjs: web pages follow their duel to the node that took it over (headless chromium, playwright-core).
// Started by test_follow.sh before the cluster, so that chromium starts meanwhile; the script then starts
// redis-server, the nodes and each room's first bot, and says their ports and links in one line of JSON on
// stdin; it starts the second bots when this script says "start" on stdout, and kills the rooms' node at
// "kill" (each answered on stdin: "started", "killed"); see there.
import http from 'node:http';
import readline from 'node:readline';
import { chromium } from 'playwright-core';
import { ok, notok, tap, waitText } from './tap.mjs';

const env = process.env;

// A websocket upgrade by hand, with the Origin a browser would send: its HTTP status (101: let in).
function upgrade(port, origin) {
  return new Promise((res) => {
    const headers = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'wizwar' };
    if (origin) headers.Origin = origin;
    const req = http.request({ host: '127.0.0.1', port, path: '/', headers });
    req.on('upgrade', (r, sock) => { sock.destroy(); res(r.statusCode); });
    req.on('response', (r) => { r.resume(); res(r.statusCode); });
    req.on('error', () => res(0)); // closed without an answer: refused
    req.setTimeout(5000, () => { req.destroy(); res(-1); });
    req.end();
  });
}

// Every screen a page got, from whichever node: the text of its rows and the socket's address.
function record(page) {
  const screens = [];
  page.on('websocket', (ws) => {
    const from = ws.url();
    ws.on('framereceived', (f) => {
      try {
        const m = JSON.parse(f.payload);
        // The side panel's text, its rows joined (a long line wraps onto the next row), beside the map.
        if (m.t === 'screen') screens.push({ from, text: m.text.map((r) => Array.from(r).slice(26).join('')).join(' ').replace(/\s+/g, ' ') });
      } catch (e) { /* not JSON: the page would fail on it too */ }
    });
  });
  return screens;
}

// Each screen within the view its room promised: the status line names that view, each frame's kind
// said ("You see ...") is the promised one, and everything is shown only once the duel is over.
function leaks(screens, room) {
  const bad = [];
  for (const [i, s] of screens.entries()) {
    const over = /The duel is over: everything is shown\./.test(s.text);
    if (!room.line.test(s.text)) bad.push(`screen ${i} from ${s.from}: not the promised view's line:\n${s.text}`);
    for (const m of s.text.matchAll(/You see ([a-z0-9 ']+?)(?: \(the duel is over\))?\./g))
      if (m[1] !== room.kind && !(over && m[1] === 'everything'))
        bad.push(`screen ${i} from ${s.from}: "${m[0]}"${over ? '' : ' before the end'}`);
  }
  return bad;
}

const rl = readline.createInterface({ input: process.stdin });
const lines = rl[Symbol.asyncIterator]();
const browser = await chromium.launch({ executablePath: env.CHROMIUM, args: ['--no-sandbox'] });
const context = await browser.newContext({ viewport: { width: 900, height: 620 } });
try {
  const cfg = JSON.parse((await lines.next()).value);
  for (const k of Object.keys(cfg)) env[k] = String(cfg[k]);
  const n1 = `127.0.0.1:${env.N1_WEB}`, n3 = `127.0.0.1:${env.N3_WEB}`;
  const tell = async (what, answer) => {
    console.log(what);
    const said = await lines.next();
    if (said.value !== answer) throw new Error(`the script said ${JSON.stringify(said.value)}, not ${answer}`);
  };
  // (A node that has just taken a room over names its players once they are back: "player 1" till then.)
  const rooms = [
    { name: 'shared', link: env.LINK_A, line: /Spectator in room \S+: shared view: only what both players know/, kind: 'what both players know' },
    { name: 'delayed', link: env.LINK_B, line: /Spectator in room \S+: (Dee|player 1)'s view, 2 turns behind/, kind: "player 1's view" },
  ];
  // Both rooms' pages on n1, from the links n1 logged (the nodes are private), while each room waits for
  // its second player; then the duels start, and each page watches its first rounds.
  await Promise.all(rooms.map(async (r) => {
    r.page = await context.newPage();
    r.page.on('pageerror', (e) => notok(`${r.name}: no script error on the page`, e));
    r.screens = record(r.page);
    await r.page.goto(`http://${n1}/${r.link}`);
    await waitText(r.page, 'grid', /No view yet\./, 15000);
  }));
  await tell('start', 'started');
  await Promise.all(rooms.map(async (r) => {
    await waitText(r.page, 'grid', /Live\./, 15000);
    await waitText(r.page, 'grid', /Round [1-9]/, 15000);
  }));
  ok(`both rooms' pages watch their duels on n1 (${rooms.map((r) => r.screens.length).join(' and ')} screens)`);

  // n1 is killed with -9 (by the script); each page finds its room on the node that took it over, n2 or
  // n3, asking n2 first (which, when it is not that node, says where the room is, or that it is moving).
  await tell('kill', 'killed');
  const killed = Date.now();
  const others = `(${env.N2_WEB}|${env.N3_WEB})`;
  // A newcomer: the shared room's link opened on n2 while the room moves (the script answers once n2
  // has seen n1 miss a beat). Its first ask is told "moving"; it must say so, and find the room.
  const newcomer = (async () => {
    await tell('moving', 'moving');
    const p = await context.newPage();
    p.on('pageerror', (e) => notok('newcomer: no script error on the page', e));
    await p.goto(`http://127.0.0.1:${env.N2_WEB}/${env.LINK_A}`);
    await waitText(p, 'status', /The room is moving to another node: looking for it\.\.\./, 5000);
    await waitText(p, 'status', new RegExp(`Live; watching from 127\\.0\\.0\\.1:${others}\\.`), 20000);
    ok(`newcomer: a page opened on n2 while the room moved said so, then "${await p.textContent('#status')}"`);
    return p;
  })();
  await Promise.all(rooms.map(async (r) => {
    r.before = r.screens.length;
    await waitText(r.page, 'status', /looking for the duel on the other nodes/, 5000);
    await waitText(r.page, 'status', new RegExp(`Live; watching again from 127\\.0\\.0\\.1:${others}\\.`), 20000);
    const st = await r.page.textContent('#status');
    r.now = st.match(/from (\S+)\.$/)[1];
    ok(`${r.name}: the page says "${st}" ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill`);
    // The other live node, asked for the room, says where it is (a page opened there goes there).
    const other = [`127.0.0.1:${env.N2_WEB}`, `127.0.0.1:${env.N3_WEB}`].find((a) => a !== r.now);
    const [room, key] = r.link.slice(3).split('.');
    const ans = await r.page.evaluate(([addr, room, key]) => new Promise((res) => {
      const ws = new WebSocket('ws://' + addr + '/', 'wizwar');
      ws.onopen = () => ws.send(JSON.stringify({ t: 'watch', room, key }));
      ws.onmessage = (e) => { res(JSON.parse(e.data)); ws.close(); };
      ws.onerror = () => res({ t: 'a socket error' });
      setTimeout(() => res({ t: 'silence' }), 5000);
    }), [other, room, key]);
    const ended = /The duel is over/.test(await r.page.textContent('#grid'));
    if (ans.t === 'moved' && ans.to === r.now) ok(`${r.name}: ${other}, asked for the room, says it is on ${ans.to}`);
    else if (ended && ans.t === 'error') ok(`${r.name}: ${other} asked for the room once its duel was over: "${ans.text}"`);
    else notok(`${r.name}: ${other}, asked for the room, says where it is`, JSON.stringify(ans));
  }));
  // Each page watches the duel go on from there for a few screens (or to its end); then the second
  // players leave (the script stops them: a BYE, a forfeit), so that the end comes at once. A duel of
  // normal bots at 51x51 lasts 23 to 400 turns: waiting for its own end made the test's length a draw,
  // and 1 run in 7 outlasted its bound.
  const from = (r) => r.screens.slice(r.before).filter((s) => s.from.includes(r.now)).length;
  const over = async (r) => /The duel is over/.test(await r.page.textContent('#grid'));
  for (const t0 = Date.now(); Date.now() - t0 < 20000;) {
    const done = await Promise.all(rooms.map(async (r) => from(r) >= 6 || over(r)));
    if (done.every((d) => d)) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const late = await newcomer;
  await tell('leave', 'left');
  await waitText(late, 'grid', /The duel is over: everything is shown\./, 20000);
  ok('newcomer: the page opened while the room moved shows the duel\'s end');
  await late.close();
  await Promise.all(rooms.map(async (r) => {
    await waitText(r.page, 'grid', /The duel is over: everything is shown\./, 20000);
    const after = from(r);
    if (after >= 2) ok(`${r.name}: the page showed the duel going on from ${r.now} to its end (${after} screens from there)`);
    else notok(`${r.name}: the page followed the duel from ${r.now}`, `${after} screens from there`);
    const rl = await r.page.evaluate(() => document.getElementById('over').dataset.replay);
    if (rl.startsWith(`http://${r.now}/#r=`)) ok(`${r.name}: its replay link is ${r.now}'s, where the duel ended (${rl.slice(0, 40)}...)`);
    else notok(`${r.name}: its replay link is ${r.now}'s`, rl);
    const bad = leaks(r.screens, r);
    if (bad.length === 0) ok(`${r.name}: every one of the ${r.screens.length} screens, from n1 and from n3, is within the promised view (${r.screens.length - r.before} after the kill)`);
    else notok(`${r.name}: every screen within the promised view`, bad.slice(0, 5).join('\n'));
  }));

  // Origin: n3 lets in n1's page (a node of the cluster, dead now), its own, and a client that is not a
  // browser (no Origin); not another site's page, nor an opaque origin.
  const codes = {};
  for (const [what, origin] of [['n1 (dead)', `http://${n1}`], ['its own', `http://${n3}`], ['none', ''],
    ['another site', 'http://evil.example'], ['another port', 'http://127.0.0.1:1'], ['null', 'null']])
    codes[what] = await upgrade(Number(env.N3_WEB), origin);
  const let_in = ['n1 (dead)', 'its own', 'none'], kept_out = ['another site', 'another port', 'null'];
  if (let_in.every((k) => codes[k] === 101) && kept_out.every((k) => codes[k] !== 101))
    ok(`n3's websocket by Origin: ${JSON.stringify(codes)}`);
  else notok('n3 lets in the cluster\'s pages and no other site\'s', JSON.stringify(codes));

  // A private room's link made by n1 opened on the node that took the room over (above); a wrong one
  // is refused there.
  const q = await context.newPage();
  await q.goto(`http://${rooms[0].now}/#w=${env.ROOM_A}.${'0'.repeat(32)}`);
  await waitText(q, 'status', /private/);
  ok(`a wrong link of the room is refused on ${rooms[0].now}: "${await q.textContent('#status')}"`);
  await q.close();

  // Not found: a third duel (on n2, or n3), watched from its link; its node is stopped, the duel's log
  // deleted from Redis and the node killed (by the script): no node can take it over, and the page says
  // so once every live node it knows said "no such room", not after a count of answers.
  console.log('third');
  const g = JSON.parse((await lines.next()).value);
  const gp = await context.newPage();
  gp.on('pageerror', (e) => notok('third: no script error on the page', e));
  await gp.goto(`http://127.0.0.1:${g.G_WEB}/${g.LINK_G}`);
  await waitText(gp, 'grid', /Round [1-9]/, 20000);
  await tell('vanish', 'vanished');
  const gone = Date.now();
  await waitText(gp, 'status', /looking for the duel on the other nodes/, 5000);
  await waitText(gp, 'status', /The duel could not be found on any node: it may be over\./, 20000);
  const took = (Date.now() - gone) / 1000;
  if (took <= 12) ok(`third: a duel no node could take over is said not found ${took.toFixed(1)} s after its node's death`);
  else notok('third: a duel no node could take over is said not found within 12 s', `${took.toFixed(1)} s`);
  await gp.close();
} catch (e) {
  notok('the follow test ran through', e && e.stack || e);
} finally {
  await browser.close();
  rl.close();
}
console.log(`1..${tap.n}`);
process.exit(tap.failed ? 1 : 0);
