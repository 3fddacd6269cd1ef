// A scripted arena pilot for the browser tests: it plays one page's ship
// from what that page draws, with the keyboard only, as a player would.

/**
 * Steers `page`'s ship until stop(): toward the nearest other living ship,
 * thrusting while far from it, firing when roughly aimed, and now and then
 * breaking off for a while. `view(page)` reads what the page draws
 * (`{ seat, ships: [{ id, x, y, a, hp }] }`); `pace(page)` waits between
 * decisions and returns false to stop early.
 */
export function steerShip(page, { seed, view, pace, breakOffChance = 0.02, breakOffFor = 10 }) {
  let running = true;
  let x = seed;
  const rand = () => { x = (x * 1103515245 + 12345) % 2147483648; return x / 2147483648; };
  const breakTurn = seed % 2 ? 'ArrowLeft' : 'ArrowRight';
  const held = new Set();
  let breakOff = 0;
  const done = (async () => {
    while (running) {
      const p = await view(page).catch(() => null);
      const me = p?.ships.find((s) => s.id === p.seat);
      const others = (p?.ships ?? []).filter((s) => s.id !== p.seat && s.hp > 0);
      const want = new Set();
      if (me && others.length > 0) {
        const dist = (s) => Math.hypot(s.x - me.x, s.y - me.y);
        const other = others.reduce((a, b) => (dist(a) < dist(b) ? a : b));
        if (breakOff > 0) {
          breakOff -= 1;
          want.add('ArrowUp');
          want.add(breakTurn);
        } else {
          let diff = Math.atan2(other.y - me.y, other.x - me.x) - me.a;
          while (diff > Math.PI) diff -= 2 * Math.PI;
          while (diff < -Math.PI) diff += 2 * Math.PI;
          if (diff > 0.15) want.add('ArrowRight');
          if (diff < -0.15) want.add('ArrowLeft');
          if (dist(other) > 12) want.add('ArrowUp');
          if (Math.abs(diff) < 0.35) want.add('Space');
          if (rand() < breakOffChance) breakOff = breakOffFor;
        }
      }
      for (const k of [...held]) if (!want.has(k)) { await page.keyboard.up(k).catch(() => {}); held.delete(k); }
      for (const k of want) if (!held.has(k)) { await page.keyboard.down(k).catch(() => {}); held.add(k); }
      if (!(await pace(page))) break;
    }
    for (const k of held) await page.keyboard.up(k).catch(() => {});
  })();
  return { stop: async () => { running = false; await done; } };
}
