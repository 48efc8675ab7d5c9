// SPDX-License-Identifier: MIT
// tap.mjs: what the browser tests (web.test.mjs, follow.test.mjs) share: TAP lines and waiting on a page's text.

const t0 = Date.now();
export const secs = () => ((Date.now() - t0) / 1000).toFixed(1) + ' s';
export const tap = { n: 0, failed: 0 };
export function ok(what) { console.log(`ok ${++tap.n} - ${what} (${secs()})`); }
export function notok(what, why) {
  tap.failed++;
  console.log(`not ok ${++tap.n} - ${what}\n# ${String(why).replace(/\n/g, '\n# ')}`);
}

// Until element #id's text matches: checked on each change of it (a MutationObserver in the page),
// not on every animation frame (waitForFunction's 'raf'): nine pages polling at 60 Hz cost a loaded
// machine more than the test itself. The error says what the element showed instead.
export async function waitText(page, id, re, ms = 10000) {
  await page.evaluate(([id, src, ms]) => new Promise((res, rej) => {
    const el = document.getElementById(id), r = new RegExp(src);
    if (r.test(el.textContent)) { res(); return; }
    const o = new MutationObserver(() => {
      if (r.test(el.textContent)) { clearTimeout(t); o.disconnect(); res(); }
    });
    const t = setTimeout(() => { o.disconnect(); rej(new Error(`#${id} did not show /${src}/ in ${ms} ms: ${el.textContent.slice(0, 300)}`)); }, ms);
    o.observe(el, { childList: true, subtree: true, characterData: true });
  }), [id, re.source, ms]);
}
