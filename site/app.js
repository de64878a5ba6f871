// Boot of the Deep LDA trainer: start the Go program (site/app.wasm, or
// site/app-threads.wasm on a shared memory when the page is cross-origin
// isolated) and register the service worker that keeps the page usable
// offline and, once it controls the page, makes it cross-origin isolated.
// Everything is loaded by relative URL, so the page works from any subpath.
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
  // devices the page opens, so that the app can destroy them mid-run (a
  // lost device).
  if (/[?&]debug=lose-device\b/.test(location.search) && typeof GPUAdapter !== 'undefined') {
    const request = GPUAdapter.prototype.requestDevice;
    globalThis.__deepldaDevices = [];
    GPUAdapter.prototype.requestDevice = async function () {
      const d = await request.apply(this, arguments);
      globalThis.__deepldaDevices.push(d);
      return d;
    };
  }

  // SHARED_MAX_PAGES is the maximum of the shared memory, in 64 KiB pages
  // (4 GiB): app-threads.wasm imports a memory with this maximum
  // (internal/sharedwasm, maxPages), and an imported shared memory must
  // match it.
  const SHARED_MAX_PAGES = 65536;

  // canShareMemory says whether the page may run the Go program on a shared
  // WebAssembly memory, which Web Workers can then use in place: only a
  // cross-origin isolated page has SharedArrayBuffer, and a browser may
  // still refuse shared memories.
  function canShareMemory() {
    if (!self.crossOriginIsolated || typeof SharedArrayBuffer === 'undefined') {
      return false;
    }
    try {
      new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
      return true;
    } catch (e) {
      return false;
    }
  }

  // instantiateShared compiles site/app-threads.wasm and instantiates it on
  // a new shared memory of the initial size that its custom section
  // "deeplda-memory" gives (a little-endian uint32 of pages). It throws on
  // any failure: offline with the file not cached, a compile error, a
  // memory the browser cannot create.
  async function instantiateShared(go) {
    const resp = fetch('site/app-threads.wasm');
    let module;
    if (WebAssembly.compileStreaming) {
      module = await WebAssembly.compileStreaming(resp);
    } else {
      const r = await resp;
      if (!r.ok) {
        throw new Error('site/app-threads.wasm: ' + r.status);
      }
      module = await WebAssembly.compile(await r.arrayBuffer());
    }
    const sections = WebAssembly.Module.customSections(module, 'deeplda-memory');
    if (sections.length !== 1 || sections[0].byteLength !== 4) {
      throw new Error('site/app-threads.wasm has no deeplda-memory section');
    }
    const initial = new DataView(sections[0]).getUint32(0, true);
    const mem = new WebAssembly.Memory({ initial: initial, maximum: SHARED_MAX_PAGES, shared: true });
    go.importObject.env = { mem: mem };
    const instance = await WebAssembly.instantiate(module, go.importObject);
    return { module: module, instance: instance };
  }

  // allowSharedViews has the two browser APIs that wasm_exec.js calls with
  // views of the Go program's memory, and that reject views of a
  // SharedArrayBuffer, take a non-shared copy instead: TextDecoder's decode
  // (every string Go passes to JavaScript, and its console output) and
  // crypto.getRandomValues (the runtime's random seed).
  function allowSharedViews() {
    const decode = TextDecoder.prototype.decode;
    TextDecoder.prototype.decode = function (view, options) {
      if (view && view.buffer instanceof SharedArrayBuffer) {
        view = new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice();
      }
      return decode.call(this, view, options);
    };
    const getRandomValues = crypto.getRandomValues;
    crypto.getRandomValues = function (view) {
      if (view && view.buffer instanceof SharedArrayBuffer) {
        const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        const copy = new Uint8Array(bytes.length);
        getRandomValues.call(crypto, copy);
        bytes.set(copy);
        return view;
      }
      return getRandomValues.call(crypto, view);
    };
  }

  async function start() {
    if (!('WebAssembly' in window) || typeof Go === 'undefined') {
      fail('This browser cannot run WebAssembly, which the trainer needs.');
      return;
    }
    const go = new Go();
    let result = null;
    let memory = 'plain';
    if (canShareMemory()) {
      try {
        result = await instantiateShared(go);
      } catch (e) {
        // Any failure of the shared build falls back to app.wasm, which
        // imports no memory.
        delete go.importObject.env;
      }
    }
    if (result) {
      memory = 'shared';
      allowSharedViews();
    } else {
      try {
        const resp = fetch('site/app.wasm');
        if (WebAssembly.instantiateStreaming) {
          result = await WebAssembly.instantiateStreaming(resp, go.importObject);
        } else {
          const bytes = await (await resp).arrayBuffer();
          result = await WebAssembly.instantiate(bytes, go.importObject);
        }
      } catch (e) {
        fail('Could not load the trainer (site/app.wasm): ' + e);
        return;
      }
    }
    // For the tests: which memory the Go program runs on.
    document.body.dataset.memory = memory;
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
