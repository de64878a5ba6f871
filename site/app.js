// Boot of the Deep LDA trainer: start the Go program (site/app.wasm) and
// register the service worker that keeps the page usable offline.
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

  async function start() {
    if (!('WebAssembly' in window) || typeof Go === 'undefined') {
      fail('This browser cannot run WebAssembly, which the trainer needs.');
      return;
    }
    const go = new Go();
    let result;
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
