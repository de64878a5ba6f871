// wasm_exec_threads.js runs a Go program for js/wasm whose memory
// tools/sharedwasm made shared, under Node.js, as site/app.js runs
// app-threads.wasm in a cross-origin isolated page: on a shared memory
// of the size the program asks for, with the globals the CPU backend
// looks for before it starts the SIMD module's threads
// (crossOriginIsolated, navigator.hardwareConcurrency, and Worker on
// Node.js's worker_threads), so that it computes on THREADS threads:
//
//	node wasm_exec_threads.js GOROOT_WASM_DIR THREADS PROGRAM.wasm [ARGS...]
//
// GOROOT_WASM_DIR is $(go env GOROOT)/lib/wasm, which holds wasm_exec.js.
"use strict";

const [dir, threads, program, ...args] = process.argv.slice(2);
if (!program || !(Number(threads) >= 1)) {
	console.error("usage: node wasm_exec_threads.js GOROOT_WASM_DIR THREADS PROGRAM.wasm [ARGS...]");
	process.exit(2);
}

globalThis.require = require;
globalThis.fs = require("fs");
globalThis.path = require("path");
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;
globalThis.performance ??= require("perf_hooks").performance;
globalThis.crypto ??= require("crypto");
require(path.join(dir, "wasm_exec.js"));

// The page's globals. The CPU backend starts one thread fewer than the
// cores it sees (one stays the browser's), so it sees THREADS+1. Its
// workers' script (a Blob URL) is replaced by the same few lines for
// worker_threads: instantiate the module on the shared memory, serve the
// control block.
const { Worker: NodeWorker } = require("worker_threads");
globalThis.crossOriginIsolated = true;
globalThis.navigator = { hardwareConcurrency: Number(threads) + 1 };
globalThis.Worker = class {
	constructor() {
		this.worker = new NodeWorker(`
			const { parentPort } = require("worker_threads");
			parentPort.once("message", (d) => {
				const inst = new WebAssembly.Instance(d.module, { env: { mem: d.mem } });
				inst.exports.worker(d.ctl);
			});`, { eval: true });
		this.worker.unref();
	}
	postMessage(msg) { this.worker.postMessage(msg); }
};

const bin = fs.readFileSync(program);
const mod = new WebAssembly.Module(bin);
const [sec] = WebAssembly.Module.customSections(mod, "deeplda-memory");
if (!sec) {
	console.error(program + " has no deeplda-memory section: not written by tools/sharedwasm");
	process.exit(2);
}
const go = new Go();
go.argv = [program, ...args];
go.env = Object.assign({ TMPDIR: require("os").tmpdir() }, process.env);
go.exit = process.exit;
go.importObject.env = { mem: new WebAssembly.Memory({ initial: new DataView(sec).getUint32(0, true), maximum: 65536, shared: true }) };
WebAssembly.instantiate(mod, go.importObject).then((inst) => {
	process.on("exit", (code) => {
		if (code === 0 && !go.exited) {
			go._pendingEvent = { id: 0 };
			go._resume();
		}
	});
	return go.run(inst);
}).catch((err) => {
	console.error(err);
	process.exit(1);
});
