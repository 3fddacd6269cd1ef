//! What a guest draws follows the host: four guests over link (b) for 30 s,
//! and every 10 ms each guest's interpolated view is compared, ship by
//! ship, with where the host had that ship at the view's render time. The
//! bound is 0.5 m (ships move up to 0.66 m a tick; the view is quantised to
//! decimetres and blends linearly between snapshots two ticks apart), and
//! the render time trails the host by no more than the 250 ms ceiling plus
//! the link.
use crate::common;

use lockstep::Millis;

#[test]
fn every_ship_in_view_is_within_half_a_metre_of_the_host() {
    let mut m = common::Match::new(81, 5);
    for i in 0..4 {
        m.join(common::link_b(), 810 + i, None);
    }
    let mut compared = 0u32;
    let mut worst = 0f32;
    while m.now < Millis(30_000) {
        m.step();
        if !m.now.0.is_multiple_of(10) || m.now < Millis(2_000) {
            continue;
        }
        let log = m.log.borrow();
        for side in &m.sides {
            let (Some(b), Some(view)) = (side.guest.bracket(m.now), side.guest.view(m.now)) else {
                continue;
            };
            let render = b.from_tick as f32 + (b.to_tick - b.from_tick) as f32 * b.t;
            assert!(
                render + 12.0 >= log.tick as f32,
                "render tick {render} far behind the host's {}",
                log.tick
            );
            let (t0, t1) = (render.floor() as u64, render.ceil() as u64);
            let f = render - t0 as f32;
            for ship in view.ships.iter().filter(|s| s.hp > 0) {
                let (Some(a), Some(c)) = (
                    log.motions.get(&(ship.id, t0)),
                    log.motions.get(&(ship.id, t1)),
                ) else {
                    continue;
                };
                // A ship that respawned between the two ticks jumped.
                if (c.x - a.x).hypot(c.y - a.y) > 2.0 {
                    continue;
                }
                let host = [a.x + (c.x - a.x) * f, a.y + (c.y - a.y) * f];
                let [x, y] = ship.pos();
                let err = (x - host[0]).hypot(y - host[1]);
                worst = worst.max(err);
                assert!(
                    err <= 0.5,
                    "ship {} drawn {err} m from the host at render tick {render}",
                    ship.id
                );
                compared += 1;
            }
        }
    }
    eprintln!("{compared} ship positions compared, worst {worst:.3} m");
    assert!(compared > 40_000, "{compared}");
}
