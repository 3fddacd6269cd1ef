// The Worker's entry module: hands every event to the Rust code in
// ../build/index.js (written by build.sh with the wasm-bindgen CLI).
//
// The Rust side exports a `fetch(request, env, ctx)` function and one class per
// Durable Object (RoomObject, LobbyObject, AddressRoomsObject, RelayObject,
// BudgetObject). This file gives the Workers
// runtime what it looks for: a default-exported entrypoint class and
// Durable Object classes deriving from `DurableObject`.
//
// Recovery after a Rust panic: the wasm module is built with panic = "abort",
// and with the abort handler that build.sh asks wasm-bindgen for, a panic
// makes wasm-bindgen start a fresh wasm instance on the next call. Objects made by the old instance are then stale,
// so each Durable Object below remembers which instance made its Rust half
// and makes a new one when that instance has been replaced. Its sockets and
// storage are kept by the runtime, and the Rust code rebuilds its state from
// them, exactly as after hibernation.
import { WorkerEntrypoint, DurableObject } from "cloudflare:workers";
import * as rust from "../build/index.js";

// Calling into wasm first lets wasm-bindgen swap in a fresh instance if one is
// due; the returned counter then names the instance now in use.
function currentInstance() {
  return rust.__worker_init_state().instanceId;
}

function hostDurableObject(RustClass) {
  return class extends DurableObject {
    #inner;
    #instance;

    constructor(ctx, env) {
      super(ctx, env);
      this.#make();
    }

    #make() {
      this.#inner = new RustClass(this.ctx, this.env);
      this.#instance = currentInstance();
    }

    #rust() {
      if (currentInstance() !== this.#instance) this.#make();
      return this.#inner;
    }

    fetch(request) {
      return this.#rust().fetch(request);
    }

    alarm() {
      return this.#rust().alarm();
    }

    webSocketMessage(ws, message) {
      return this.#rust().webSocketMessage(ws, message);
    }

    webSocketClose(ws, code, reason, wasClean) {
      return this.#rust().webSocketClose(ws, code, reason, wasClean);
    }

    webSocketError(ws, error) {
      return this.#rust().webSocketError(ws, error);
    }
  };
}

export class RoomObject extends hostDurableObject(rust.RoomObject) {}
export class LobbyObject extends hostDurableObject(rust.LobbyObject) {}
export class AddressRoomsObject extends hostDurableObject(rust.AddressRoomsObject) {}
export class RelayObject extends hostDurableObject(rust.RelayObject) {}
export class BudgetObject extends hostDurableObject(rust.BudgetObject) {}

export default class Signaling extends WorkerEntrypoint {
  fetch(request) {
    return rust.fetch(request, this.env, this.ctx);
  }
}
