// Boot of the Deep LDA trainer: the page runs the Go program (site/app.wasm,
// or site/app-threads.wasm on a shared memory when the page is cross-origin
// isolated) as the view, which starts the same program as the engine in a
// Web Worker (site/engine.js, through deepldaEngine below); and it
// registers the service worker that keeps the page usable offline and,
// once it controls the page, makes it cross-origin isolated. Everything is
// loaded by relative URL, so the page works from any subpath.
(function () {
  'use strict';

  // fail shows a start-up failure and sets the automation state.
  function fail(msg) {
    const n = document.getElementById('notice');
    n.textContent = msg;
    n.classList.add('error');
    n.hidden = false;
    document.body.dataset.state = 'error';
  }

  // For the tests: with debug=lose-device in the URL, keep the WebGPU
  // devices the page opens (the benchmark's), so that the app can destroy
  // them; the engine's worker does the same with its own.
  const debug = new URLSearchParams(location.search).get('debug') || '';
  if (debug === 'lose-device' && typeof GPUAdapter !== 'undefined') {
    const request = GPUAdapter.prototype.requestDevice;
    globalThis.__deepldaDevices = [];
    GPUAdapter.prototype.requestDevice = async function () {
      const d = await request.apply(this, arguments);
      globalThis.__deepldaDevices.push(d);
      return d;
    };
  }

  // deeplda ui's token (see package server): taken from the URL it
  // printed, then out of the address bar, and kept in this origin's
  // session storage, which no page of another port can read (a cookie
  // would go to every port of the host). The page sends it with each
  // request to the native engine and the runs folder (fetchURL too).
  globalThis.deepldaToken = (function () {
    const key = 'deeplda-ui-token';
    const url = new URL(location.href);
    const t = url.searchParams.get('token');
    try {
      if (!t) {
        return sessionStorage.getItem(key) || '';
      }
      sessionStorage.setItem(key, t);
    } catch (e) {
      // No storage: the token lasts as long as the page.
    }
    url.searchParams.delete('token');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    return t;
  })();

  let loaded = null; // { module, shared }

  // deepldaEngine starts the engine's worker on the module the page runs
  // (with remote, it links to deeplda ui's native engine instead: see
  // nativeEngine) and returns its link: send(json, files) posts a command
  // with its files (File objects); onEvent(json, checkpoint, figures) gets
  // each event, with the checkpoint's ArrayBuffer when one came (else
  // null) and its figures (SVG strings by key), and onFatal(message) a
  // failure of the worker itself.
  globalThis.deepldaEngine = function (onEvent, onFatal, remote) {
    if (remote) {
      return nativeEngine(onEvent, onFatal);
    }
    const worker = new Worker('site/engine.js');
    worker.onmessage = function (e) {
      const m = e.data;
      if (m.fatal) {
        onFatal(m.fatal);
        return;
      }
      onEvent(m.json, m.checkpoint || null, m.figures || {});
    };
    worker.onerror = function (e) {
      onFatal('The engine failed: ' + (e.message || e) + '. Reload the page to start again.');
    };
    worker.postMessage({ module: loaded.module, shared: loaded.shared, base: document.baseURI, debug: debug });
    return {
      send: function (json, files) {
        worker.postMessage({ json: json, files: files || [] });
      },
    };
  };

  // nativeEngine links to the engine of deeplda ui, which served the page:
  // its events come as server-sent events (the event's JSON with its
  // figures and its checkpoint, base64, beside it), commands are POSTed,
  // with their files as a multipart form.
  function nativeEngine(onEvent, onFatal) {
    const token = globalThis.deepldaToken;
    const stream = 'engine/events?token=' + encodeURIComponent(token);
    const events = new EventSource(stream);
    events.onmessage = function (e) {
      const m = JSON.parse(e.data);
      let ckpt = null;
      if (m.checkpoint) {
        const bin = atob(m.checkpoint);
        const b = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
        ckpt = b.buffer;
      }
      onEvent(m.json, ckpt, m.figures || {});
    };
    let lost = false;
    events.onerror = function () {
      if (events.readyState === EventSource.CLOSED) {
        // Refused (no token, too many pages): EventSource does not try
        // again, nor say why; the server's answer does.
        const ctl = new AbortController();
        fetch(stream, { signal: ctl.signal }).then(function (r) {
          if (r.ok) {
            ctl.abort();
            onFatal('The connection to the native engine closed. Reload the page to connect again.');
            return;
          }
          return r.text().then(function (t) {
            onFatal('The native engine refused this page: ' + t.trim());
          });
        }, function (e) {
          onFatal('The native engine cannot be reached (' + e + '): is deeplda ui still running?');
        });
        return;
      }
      // EventSource connects again by itself; say so once.
      if (!lost && events.readyState !== EventSource.OPEN) {
        lost = true;
        console.warn('deeplda ui: the connection to the native engine dropped; reconnecting');
      }
    };
    events.onopen = function () {
      lost = false;
    };
    return {
      send: function (json, files) {
        let body = json;
        const headers = { 'X-Deeplda-Token': token };
        if (files && files.length) {
          body = new FormData();
          body.append('json', json);
          for (const f of files) body.append('files', f, f.name);
        } else {
          headers['Content-Type'] = 'application/json';
        }
        fetch('engine/command', { method: 'POST', body: body, headers: headers }).then(function (r) {
          if (r.status === 409) {
            // Refused for this page alone (another session trains): the
            // body is the refusal event of its session.
            return r.text().then(function (t) {
              onEvent(t, null, {});
            });
          }
          if (!r.ok) {
            return r.text().then(function (t) {
              onFatal('The native engine refused a command: ' + t);
            });
          }
        }, function (e) {
          onFatal('The native engine cannot be reached (' + e + '): is deeplda ui still running?');
        });
      },
    };
  }

  async function start() {
    if (!('WebAssembly' in window) || typeof Go === 'undefined' || typeof Worker === 'undefined') {
      fail('This browser cannot run WebAssembly in a Web Worker, which the trainer needs.');
      return;
    }
    const load = self.deepldaLoad;
    const go = new Go();
    let result = null;
    let shared = false;
    if (load.canShareMemory()) {
      try {
        result = await load.instantiate(go, await load.compile('site/app-threads.wasm'), true);
        shared = true;
      } catch (e) {
        // Any failure of the shared build falls back to app.wasm, which
        // imports no memory.
        delete go.importObject.env;
      }
    }
    if (!result) {
      try {
        result = await load.instantiate(go, await load.compile('site/app.wasm'), false);
      } catch (e) {
        fail('Could not load the trainer (site/app.wasm): ' + e);
        return;
      }
    }
    loaded = { module: result.module, shared: shared };
    // For the tests: which memory the Go program runs on.
    document.body.dataset.memory = shared ? 'shared' : 'plain';
    // The WebGPU binding (cogentcore/webgpu) reads the module's memory
    // through globalThis.wasm.
    globalThis.wasm = result;
    try {
      await go.run(result.instance);
    } catch (e) {
      fail('The trainer crashed: ' + e + '. Reload the page to start again.');
      return;
    }
    // go.run resolves only when the Go program exits, which it never should.
    fail('The trainer stopped unexpectedly. Reload the page to start again.');
  }

  start();

  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    window.addEventListener('load', function () {
      navigator.serviceWorker.register('sw.js').catch(function () {
        // No service worker (e.g. served from the repository root without
        // sw.js): the page still works online.
      });
    });
  }
})();
