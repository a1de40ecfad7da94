// The learner's browser on the hub (run by docker/test/test-hub.sh while the servers are up):
// Debian's headless Chromium, driven by playwright-core, types the learner's name and password
// into the hub's login form, lands in their JupyterLab behind the proxy, opens a Go notebook,
// waits for the Go kernel's websocket, runs its cell with Shift+Enter and reads the output; then tries another learner's lab and
// must get the hub's 403 page. Screenshots go to $SHOTS.
//
//   HUB_URL=... LEARNER=alice OTHER=bob PASSWORD=... NOTEBOOK=hub-browser.ipynb SHOTS=dir node browser.mjs
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// playwright-core is a dev dependency of the hub's own package (docker/hub/package.json, installed by
// `make hub-setup` beside configurable-http-proxy), so it is loaded from there, not from docker/test/.
const { chromium } = createRequire(new URL('../../hub/package.json', import.meta.url))('playwright-core');

const { HUB_URL: url, LEARNER: me, OTHER: other, PASSWORD: pw, NOTEBOOK: nb, SHOTS: shots } = process.env;
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const ok = (msg) => console.log(`   ok: ${msg}`);
fs.mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const jsErrors = [];
  page.on('pageerror', (e) => jsErrors.push(String(e)));

  await page.goto(`${url}/hub/login`);
  await page.fill('#username_input', me);
  await page.fill('#password_input', pw);
  await Promise.all([page.waitForURL(new RegExp(`/user/${me}/`), { timeout: 300_000 }), page.click('#login_submit')]);
  ok(`${me} logged in through the hub's login form and landed on ${new URL(page.url()).pathname}`);

  // The notebook's kernel is connected once its websocket (through the proxy) carries a message.
  const kernelUp = new Promise((resolve) => page.on('websocket', (ws) => {
    if (ws.url().includes('/api/kernels/')) ws.once('framereceived', () => resolve(ws.url()));
  }));
  await page.goto(`${url}/user/${me}/lab/tree/${nb}`);
  const cell = page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell').first();
  await cell.waitFor({ timeout: 300_000 });
  await page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook').getByText('coursekit.Version').first().waitFor({ timeout: 120_000 });
  // As a learner would: wait until the kernel is there (the status bar names it), then run the cell.
  const wsUrl = await Promise.race([kernelUp, new Promise((_, reject) => setTimeout(() => reject(new Error('no kernel websocket within 300 s')), 300_000))]);
  await page.locator('.jp-StatusBar-TextItem', { hasText: /^Go \(gonb\) \|/ }).first().waitFor({ timeout: 60_000 });
  await cell.locator('.cm-content').click();
  await page.keyboard.press('Shift+Enter');
  const out = cell.locator('.jp-OutputArea-output');
  await out.filter({ hasText: 'coursekit' }).first().waitFor({ timeout: 600_000 });
  const text = (await out.allInnerTexts()).join(' ').trim();
  if (!text.includes(`coursekit`) || !text.includes('在浏览器里运行')) throw new Error(`the cell printed ${JSON.stringify(text)}`);
  await page.screenshot({ path: path.join(shots, `${me}-lab.png`) });
  ok(`${me}'s JupyterLab behind the proxy ran the Go cell (Shift+Enter) on the Go (gonb) kernel over ${new URL(wsUrl).pathname.replace(/kernels\/[^/]+/, 'kernels/…')}: ${JSON.stringify(text)} (${shots}/${me}-lab.png)`);
  if (jsErrors.length) throw new Error(`page errors: ${jsErrors.join('; ')}`);

  const res = await page.goto(`${url}/user/${other}/lab`);
  const body = await page.locator('body').innerText();
  await page.screenshot({ path: path.join(shots, `${me}-to-${other}.png`) });
  if (res.status() !== 403 || !new URL(page.url()).pathname.startsWith('/hub/')) {
    throw new Error(`${me} opening /user/${other}/lab ended at ${page.url()} with ${res.status()}, want the hub's 403`);
  }
  ok(`${me}'s browser at /user/${other}/lab gets the hub's 403 page (${body.split('\n').filter(Boolean).slice(0, 2).join(' / ')})`);
} catch (e) {
  console.error(`browser: FAIL: ${e.message}`);
  for (const p of browser.contexts().flatMap((c) => c.pages())) {
    await p.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => {});
  }
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
