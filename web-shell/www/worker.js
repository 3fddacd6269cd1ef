// A dedicated worker running the page's own module, for a game that runs
// part of its match off the page (the arena's host simulation). The page
// starts it with `new Worker('worker.js', { type: 'module' })`; the module
// must export `workerMain()`, whose result takes every message from the
// page (`message(data)`) and runs its timers (`tick()`). Loading the module
// runs its start function too, which finds no window here and returns.
import init, { workerMain } from './pkg/web_shell.js';

// Messages that arrive while the module loads are kept, in order.
const early = [];
self.onmessage = (e) => early.push(e.data);
await init();
const main = workerMain();
self.onmessage = (e) => main.message(e.data);
for (const d of early) main.message(d);
setInterval(() => main.tick(), 5);
