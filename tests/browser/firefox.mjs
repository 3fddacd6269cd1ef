// Stock Firefox ESR (Debian's firefox-esr) driven by playwright-core over
// WebDriver BiDi, for the determinism and cross-browser tests.
//
// Debian ships no geckodriver, and playwright-core's own Firefox is a
// patched build it would download; its BiDi path (channel 'moz-firefox')
// drives a stock Firefox instead. Two things make that work here:
//
// 1. playwright-core sends a few `emulation.*` commands when it creates a
//    browser context or page (media features, screen settings, ...) that
//    Firefox ESR does not know yet; it answers "unknown command" and the
//    context creation fails. `tolerateUnknownEmulation` wraps
//    playwright-core's exported WebSocketTransport (the transport of every
//    BiDi connection) at run time: an "unknown command" error answering an
//    `emulation.*` command becomes an empty success. Nothing else changes
//    (not other errors, not other commands, not Chromium, which talks CDP
//    over a pipe), and node_modules stays as installed. The commands it
//    ignored are listed by `ignoredEmulation()`; tests print them.
// 2. Firefox's WebRTC on loopback: the prefs below, a default route on `lo`
//    in the test's network namespace (scripts/ci/55-engines.sh adds it),
//    MOZ_DISABLE_NONLOCAL_CONNECTIONS=1 and a HOME of its own.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { firefox } = require(path.join(ROOT, 'node_modules/playwright-core'));
// The same module instance playwright-core's index loads (one bundle).
const { server: pwServer } = require(path.join(ROOT, 'node_modules/playwright-core/lib/coreBundle.js'));

export const FIREFOX = process.env.FIREFOX_BIN || '/usr/bin/firefox-esr';

/**
 * Preferences written into the profile's user.js (playwright-core adds them
 * to its own defaults, which already turn off much of the same).
 */
export const FIREFOX_PREFS = {
  // WebRTC between pages on 127.0.0.1: gather loopback host candidates and
  // show real addresses, not mDNS names no resolver here can answer.
  'media.peerconnection.ice.loopback': true,
  'media.peerconnection.ice.obfuscate_host_addresses': false,
  // Updates (the browser, add-ons, system add-ons, search engines).
  'app.update.auto': false,
  'app.update.enabled': false,
  'app.update.disabledForTesting': true,
  'extensions.update.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'browser.search.update': false,
  // Telemetry, data reporting, studies and experiments.
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  'browser.ping-centre.telemetry': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  // Safe browsing (its lists are downloaded).
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.provider.google.updateURL': '',
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  // Remote settings (blocklists, certificates, ...).
  'services.settings.server': 'data:,',
  'security.remote_settings.crlite_filters.enabled': false,
  'security.remote_settings.intermediates.enabled': false,
  // Captive portal and connectivity checks.
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  // Other background connections.
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.predictor.enabled': false,
  'media.gmp-manager.updateEnabled': false,
};

const ignored = new Set();

/** The `emulation.*` commands Firefox did not know and the wrapper ignored. */
export function ignoredEmulation() {
  return [...ignored].sort();
}

/** See the file's comment, point 1. Installed once per process. */
function tolerateUnknownEmulation() {
  const T = pwServer?.WebSocketTransport;
  if (typeof T?.prototype?.send !== 'function') {
    throw new Error('playwright-core no longer exports server.WebSocketTransport: update tests/browser/firefox.mjs');
  }
  if (T.prototype.tolerantOfUnknownEmulation) return;
  const send = T.prototype.send;
  T.prototype.send = function (message) {
    if (typeof message?.method === 'string' && message.method.startsWith('emulation.')) {
      (this.pendingEmulation ??= new Map()).set(message.id, message.method);
    }
    return send.call(this, message);
  };
  // The connection sets `transport.onmessage` after construction; this
  // accessor wraps whatever it sets.
  Object.defineProperty(T.prototype, 'onmessage', {
    configurable: true,
    get() { return this.wrappedOnMessage; },
    set(handler) {
      if (typeof handler !== 'function') {
        this.wrappedOnMessage = handler;
        return;
      }
      this.wrappedOnMessage = (message) => {
        const method = this.pendingEmulation?.get(message?.id);
        if (method !== undefined) {
          this.pendingEmulation.delete(message.id);
          if (message.type === 'error' && message.error === 'unknown command') {
            ignored.add(method);
            return handler({ type: 'success', id: message.id, result: {} });
          }
        }
        return handler(message);
      };
    },
  });
  T.prototype.tolerantOfUnknownEmulation = true;
}

/**
 * Launches Firefox ESR headless with the prefs above, a HOME of its own
 * (removed when the browser closes) and no non-local connections.
 */
export async function launchFirefox() {
  tolerateUnknownEmulation();
  const home = mkdtempSync(path.join(os.tmpdir(), 'firefox-home-'));
  const browser = await firefox.launch({
    channel: 'moz-firefox',
    executablePath: FIREFOX,
    headless: true,
    firefoxUserPrefs: FIREFOX_PREFS,
    env: { ...process.env, HOME: home, MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1' },
  });
  browser.on('disconnected', () => rmSync(home, { recursive: true, force: true }));
  return browser;
}
