// The Deep LDA trainer's engine, in a dedicated Web Worker: it runs the
// same Go program as the page (the module the page compiled, sent in the
// first message, on a memory of its own), which then trains, evaluates and
// draws there and talks to the page in the run protocol's JSON (package
// protocol): commands come in as messages, events go out as messages.
'use strict';

importScripts('wasm_exec.js', 'load.js');

self.onmessage = async function (e) {
  const init = e.data;
  // Commands that come before the Go program listens wait for it.
  let pending = [];
  self.onmessage = function (m) { pending.push(m.data); };
  // The Go program reads the page's address (to fetch the site's files by
  // their paths) and its memory from here, and listens through listen.
  self.deepldaInit = {
    base: init.base,
    memory: init.shared ? 'shared' : 'plain',
    listen: function (fn) {
      const waiting = pending;
      pending = null;
      self.onmessage = function (m) { fn(m.data); };
      for (const m of waiting) {
        fn(m);
      }
    },
  };
  // For the tests: with debug=lose-device, keep the WebGPU devices the
  // engine opens, so that it can destroy them mid-run (a lost device).
  if (init.debug === 'lose-device' && typeof GPUAdapter !== 'undefined') {
    const request = GPUAdapter.prototype.requestDevice;
    self.__deepldaDevices = [];
    GPUAdapter.prototype.requestDevice = async function () {
      const d = await request.apply(this, arguments);
      self.__deepldaDevices.push(d);
      return d;
    };
  }
  const go = new Go();
  let result;
  try {
    result = await self.deepldaLoad.instantiate(go, init.module, init.shared);
  } catch (err) {
    self.postMessage({ fatal: 'Could not start the engine: ' + err });
    return;
  }
  // The WebGPU binding (cogentcore/webgpu) reads the module's memory
  // through globalThis.wasm.
  self.wasm = result;
  try {
    await go.run(result.instance);
  } catch (err) {
    self.postMessage({ fatal: 'The engine crashed: ' + err + '. Reload the page to start again.' });
    return;
  }
  self.postMessage({ fatal: 'The engine stopped unexpectedly. Reload the page to start again.' });
};
