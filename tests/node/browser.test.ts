// The widget and /docs in a real browser: headless Debian chromium driven by playwright-core
// against `npm start` (embedded defaults, demo data). The demo page must render a profile card, the
// "no profile" state and the error state; /docs must render its operations list with every request
// to another origin cut off. Screenshots go to tests/artifacts/ (ignored by git). Where chromium is
// missing (scripts/ci/chromium.sh could not install it) the suite skips with the reason printed.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type StartedApi } from './support/npm-start';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
const available = existsSync(CHROMIUM);
if (!available)
  console.warn(`[browser test] skipped: ${CHROMIUM} is not installed (scripts/ci/chromium.sh installs it as root with apt-get)`);

let api: StartedApi | undefined;
let context: BrowserContext | undefined;
let base = '';
const dirs: string[] = [];

describe.skipIf(!available)('browser: widget demo and offline /docs (headless chromium)', () => {
  /** Requests the pages tried to send anywhere but this server (all aborted). */
  const blocked: string[] = [];

  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'discovery-browser-'));
    const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
    dirs.push(dataDir, profile);
    await mkdir(ARTIFACTS, { recursive: true });
    api = await startEmbedded(dataDir, { LIVE: 'off' }, 150_000);
    base = api.base;

    // A fresh profile directory per run: no cache, cookies or service workers from an earlier run.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 900 },
    });
    // The network is cut off: only this server answers.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      blocked.push(url);
      return route.abort('internetdisconnected');
    });
  }, 200_000);

  afterAll(async () => {
    await context?.close();
    api?.stop();
    await new Promise((r) => setTimeout(r, 1_000));
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('the demo page renders profile cards, the "no profile" state and the error state', async () => {
    const page = await context!.newPage();
    await page.goto(`${base}/public/widget-demo`);
    const states = async () =>
      page.$$eval('discover-profile', (els) => els.map((e) => [e.getAttribute('domain'), e.getAttribute('data-state')]));
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('discover-profile')).every((e) =>
          ['profile', 'none', 'error'].includes(e.getAttribute('data-state') ?? ''),
        ),
      null,
      { timeout: 20_000 },
    );
    const seen = await states();
    expect(seen.map(([, s]) => s)).toEqual(['profile', 'profile', 'none', 'error']);

    const card = await page.$eval('discover-profile[data-state="profile"]', (el) => {
      const root = el.shadowRoot!;
      return {
        title: root.querySelector('h2')?.textContent ?? '',
        meta: root.querySelector('.meta')?.textContent ?? '',
        items: root.querySelectorAll('li').length,
        images: Array.from(root.querySelectorAll('img')).map((img) => img.getAttribute('src')),
      };
    });
    const domain = seen[0]![0]!;
    const api = (await (await fetch(`${base}/public/platform-profile?domain=${domain}`)).json()) as {
      title: string;
      totalFollowers: string;
      recentPublications: { imageUrl: string | null }[];
    };
    expect(card.title).toBe(api.title);
    expect(card.meta).toContain(`${api.totalFollowers} followers`);
    expect(card.items).toBe(Math.min(3, api.recentPublications.length));
    expect(card.images).toEqual(
      api.recentPublications
        .slice(0, 3)
        .filter((p) => p.imageUrl)
        .map((p) => p.imageUrl),
    );
    const none = await page.$eval('discover-profile[data-state="none"]', (el) => el.shadowRoot!.textContent);
    expect(none).toContain('No Discover profile for');
    const error = await page.$eval('discover-profile[data-state="error"]', (el) => el.shadowRoot!.textContent);
    expect(error).toContain('Could not check not a domain');
    // The page sets no cookie.
    expect(await context!.cookies()).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'widget-demo.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('/docs renders the operations list with the network cut off', async () => {
    blocked.length = 0;
    const page = await context!.newPage();
    await page.goto(`${base}/docs`);
    // The sidebar lists the document's tags, and the first tag's operations by their summaries.
    for (const text of ['List tracking lists', 'Get a tracking list', 'Public profile check', 'Geo']) {
      await page.getByText(text, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
    const operations = await page.getByText('HTTP METHOD:').count();
    expect(operations).toBeGreaterThan(3);
    // The public group opens on click and lists its operations.
    await page.getByText('Public profile check', { exact: true }).first().click();
    await page.getByText('Check many domains', { exact: true }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'docs-offline.png') });
    // Nothing was even attempted elsewhere: no CDN script, no web font, no telemetry.
    expect(blocked).toEqual([]);
    await page.close();
  }, 60_000);
});
