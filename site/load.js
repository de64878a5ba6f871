// Loading of the Deep LDA trainer's WebAssembly, shared by the page
// (site/app.js) and the engine's Web Worker (site/engine.js): the page
// compiles site/app.wasm, or site/app-threads.wasm on a shared memory when
// it is cross-origin isolated, and hands the compiled module to the
// worker, which instantiates it again on a memory of its own.
(function () {
  'use strict';

  // SHARED_MAX_PAGES is the maximum of the shared memory, in 64 KiB pages
  // (4 GiB): app-threads.wasm imports a memory with this maximum
  // (tools/sharedwasm, maxPages), and an imported shared memory must
  // match it.
  const SHARED_MAX_PAGES = 65536;

  // canShareMemory says whether this context may run the Go program on a
  // shared WebAssembly memory, which Web Workers can then use in place:
  // only a cross-origin isolated context has SharedArrayBuffer, and a
  // browser may still refuse shared memories.
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

  // compile compiles the WebAssembly file at url.
  async function compile(url) {
    const resp = fetch(url);
    if (WebAssembly.compileStreaming) {
      return WebAssembly.compileStreaming(resp);
    }
    const r = await resp;
    if (!r.ok) {
      throw new Error(url + ': ' + r.status);
    }
    return WebAssembly.compile(await r.arrayBuffer());
  }

  // instantiate instantiates a compiled module for go: on a new shared
  // memory of the initial size that its custom section "deeplda-memory"
  // gives (a little-endian uint32 of pages) when shared, else as it is. It
  // throws on any failure.
  async function instantiate(go, module, shared) {
    if (shared) {
      const sections = WebAssembly.Module.customSections(module, 'deeplda-memory');
      if (sections.length !== 1 || sections[0].byteLength !== 4) {
        throw new Error('site/app-threads.wasm has no deeplda-memory section');
      }
      const initial = new DataView(sections[0]).getUint32(0, true);
      const mem = new WebAssembly.Memory({ initial: initial, maximum: SHARED_MAX_PAGES, shared: true });
      go.importObject.env = { mem: mem };
      allowSharedViews();
    }
    const instance = await WebAssembly.instantiate(module, go.importObject);
    return { module: module, instance: instance };
  }

  let allowed = false;

  // allowSharedViews has the two browser APIs that wasm_exec.js calls with
  // views of the Go program's memory, and that reject views of a
  // SharedArrayBuffer, take a non-shared copy instead: TextDecoder's decode
  // (every string Go passes to JavaScript, and its console output) and
  // crypto.getRandomValues (the runtime's random seed).
  function allowSharedViews() {
    if (allowed) {
      return;
    }
    allowed = true;
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

  self.deepldaLoad = { canShareMemory: canShareMemory, compile: compile, instantiate: instantiate };
})();
