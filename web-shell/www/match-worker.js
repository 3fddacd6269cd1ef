// The dedicated worker that runs the page's online match (its session,
// game and timers), whose timers the browser does not slow down while the
// tab is hidden. The page starts it with
// `new Worker('match-worker.js', { type: 'module' })`. Loading the module
// runs the game's start function, which finds no window here and keeps the
// game's slot for `matchWorkerMain()`; that takes every message from the
// page (`message(data)`) and runs the match's frames (`tick()`, which says
// whether a match runs).
import init, { matchWorkerMain } from './pkg/web_shell.js';

// Messages that arrive while the module loads are kept, in order.
const early = [];
self.onmessage = (e) => early.push(e.data);
await init();
const main = matchWorkerMain();
// Every 4 ms while a match runs (its 60 Hz frames are kept by the clock
// inside); every 20 ms while the worker waits for one, and at once when a
// message may have started one.
let timer;
const tick = () => {
  clearTimeout(timer);
  timer = setTimeout(tick, main.tick() ? 4 : 20);
};
self.onmessage = (e) => { main.message(e.data); tick(); };
for (const d of early) main.message(d);
tick();
