// Service worker of the Deep LDA trainer: it keeps the app shell and the
// WebAssembly program in a cache so that the page works offline after the
// first visit. Requests go to the network first (so a new build is picked
// up at once) and fall back to the cache. Only same-origin GET requests
// are handled. Every response it returns says
// Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp, which GitHub Pages cannot
// send: once the worker controls the page, the page is cross-origin
// isolated and runs the Go program on a shared memory (site/app.js). The
// build (./build.sh site) copies this file next to index.html and replaces
// BUILD_VERSION with a hash of the site.
'use strict';

const VERSION = 'BUILD_VERSION';
const CACHE = 'deeplda-' + VERSION;
const SHELL = [
  './',
  'index.html',
  'site/style.css',
  'site/app.js',
  'site/load.js',
  'site/engine.js',
  'site/wasm_exec.js',
  'site/app.wasm',
];

self.addEventListener('install', function (event) {
  event.waitUntil(
    caches.open(CACHE)
      .then(function (cache) { return cache.addAll(SHELL); })
      .then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener('activate', function (event) {
  event.waitUntil(
    caches.keys()
      .then(function (keys) {
        return Promise.all(keys
          .filter(function (k) { return k.startsWith('deeplda-') && k !== CACHE; })
          .map(function (k) { return caches.delete(k); }));
      })
      .then(function () { return self.clients.claim(); })
  );
});

// isolated returns resp with the two headers that make a page cross-origin
// isolated added. Opaque and error responses (status 0) cannot be rebuilt
// and pass through unchanged.
function isolated(resp) {
  if (!resp || resp.status === 0) {
    return resp;
  }
  const headers = new Headers(resp.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(resp.body, { status: resp.status, statusText: resp.statusText, headers: headers });
}

self.addEventListener('fetch', function (event) {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) {
    return;
  }
  // deeplda ui's native engine (its event stream) and runs folder pass by.
  const scope = new URL(self.registration.scope).pathname;
  if (url.pathname.startsWith(scope + 'engine/') || url.pathname.startsWith(scope + 'runs/')) {
    return;
  }
  event.respondWith(
    fetch(req)
      .then(function (resp) {
        if (resp.ok && resp.type === 'basic') {
          const copy = resp.clone();
          // One entry per file: the query only carries settings.
          const key = req.url.split('?')[0];
          caches.open(CACHE).then(function (cache) { cache.put(key, copy); });
        }
        return isolated(resp);
      })
      .catch(function () {
        // Offline: the cached copy, ignoring the query (the settings).
        return caches.match(req, { ignoreSearch: true }).then(function (hit) {
          return hit || (req.mode === 'navigate' ? caches.match('./') : Response.error());
        }).then(isolated);
      })
  );
});
