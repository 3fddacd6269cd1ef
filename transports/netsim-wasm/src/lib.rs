//! The [`netsim`] simulated link as a WebAssembly module with plain
//! `extern "C"` exports and no imports, so a host with no Rust in it (Node,
//! in `scripts/ntba/two-peers.mjs`) can move datagrams between two wasm
//! peers through exactly the link model the native tests use: seeded
//! latency, jitter, loss, duplication and reordering on the unreliable
//! channel, and an in-order reliable channel whose lost attempts cost a
//! retransmission delay, all in virtual time.
//!
//! One link per module instance, between endpoint 0 and endpoint 1.
//! Datagrams cross the boundary through one 64 KiB buffer
//! ([`link_buffer`]): the host writes a datagram there before
//! [`link_send`] and reads one from there after [`link_recv`].
//!
//! # Calling contract
//!
//! 1. [`link_new`] with the conditions and a seed (again to start over).
//! 2. For each datagram a peer emits: copy it into the buffer, then
//!    [`link_send`]`(from, channel, len)`.
//! 3. To deliver: [`link_next_time`]`(to)` says when the next datagram (or
//!    close notice) reaches endpoint `to`; [`link_advance`] moves the shared
//!    clock there (never back); then [`link_recv`]`(to)` until it returns
//!    -1, handing each datagram to the peer with the time advanced to.
//!
//! Channels are numbered as in the `peer_*` exports of `ntba-wasm-check`:
//! 0 reliable, 1 unreliable. A `u64` is an `i64` at the wasm boundary, the
//! same bits.
#![warn(missing_docs)]

use std::cell::RefCell;

use lockstep::{Channel, LinkState, Millis, Transport, TransportError};
use netsim::{LinkConfig, PathStats, SimEndpoint};

/// Size of the datagram buffer shared with the host.
pub const BUFFER: usize = 64 * 1024;

thread_local! {
    static LINK: RefCell<Option<[SimEndpoint; 2]>> = const { RefCell::new(None) };
    static BUF: RefCell<Vec<u8>> = RefCell::new(vec![0; BUFFER]);
}

// `#[no_mangle]` is the only "unsafe" thing here: it promises the symbol
// name is unique in the module, which holds for these few `link_` names.

fn channel(c: u32) -> Option<Channel> {
    match c {
        0 => Some(Channel::Reliable),
        1 => Some(Channel::Unreliable),
        _ => None,
    }
}

fn endpoint_index(e: u32) -> Option<usize> {
    match e {
        0 => Some(0),
        1 => Some(1),
        _ => None,
    }
}

fn with_endpoint<T>(e: u32, default: T, f: impl FnOnce(&mut SimEndpoint) -> T) -> T {
    let Some(i) = endpoint_index(e) else {
        return default;
    };
    LINK.with(|l| {
        l.borrow_mut()
            .as_mut()
            .map_or(default, |eps| f(&mut eps[i]))
    })
}

/// Creates the link (replacing any earlier one) with these conditions, the
/// same both ways: one-way `latency_ms` ± `jitter_ms`, `loss` % of
/// transmissions lost (unreliable datagrams, and each attempt at a reliable
/// one, which then arrives `retransmit_ms` later), `duplicate` % of
/// unreliable datagrams delivered twice, `reorder` % held back a further
/// `reorder_ms` so later ones overtake them. `seed` picks every random
/// decision. Returns 1, or 0 when the conditions are refused
/// ([`LinkConfig::validate`]: a percentage above 100, or jitter above the
/// latency); no link exists then.
#[allow(unsafe_code, clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn link_new(
    latency_ms: u32,
    jitter_ms: u32,
    loss: u32,
    duplicate: u32,
    reorder: u32,
    reorder_ms: u32,
    retransmit_ms: u32,
    seed: u64,
) -> u32 {
    let pct = |v: u32| u8::try_from(v).unwrap_or(u8::MAX);
    let cfg = LinkConfig {
        latency: Millis(u64::from(latency_ms)),
        jitter: Millis(u64::from(jitter_ms)),
        loss_percent: pct(loss),
        duplicate_percent: pct(duplicate),
        reorder_percent: pct(reorder),
        reorder_delay: Millis(u64::from(reorder_ms)),
        reliable_retransmit_delay: Millis(u64::from(retransmit_ms)),
    };
    if cfg.validate().is_err() {
        LINK.with(|l| *l.borrow_mut() = None);
        return 0;
    }
    let (a, b) = netsim::pair(cfg, seed);
    LINK.with(|l| *l.borrow_mut() = Some([a, b]));
    1
}

/// The address of the 64 KiB datagram buffer in this module's memory.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_buffer() -> *mut u8 {
    BUF.with(|b| b.borrow_mut().as_mut_ptr())
}

/// Sends the `len` bytes the host wrote into the buffer from endpoint
/// `from` (0 or 1) on `channel` (0 reliable, 1 unreliable), at the link's
/// current time. Returns 0 when the link took it (even if it will be lost
/// on the way), -1 for a bad argument or no link, -2 when the datagram is
/// larger than [`netsim::MAX_DATAGRAM`], -3 when the sender's end is not
/// open.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_send(from: u32, channel_id: u32, len: u32) -> i32 {
    let Some(ch) = channel(channel_id) else {
        return -1;
    };
    let Ok(len) = usize::try_from(len) else {
        return -1;
    };
    if len > BUFFER {
        return -1;
    }
    let bytes: Vec<u8> = BUF.with(|b| b.borrow()[..len].to_vec());
    with_endpoint(from, -1, |e| match e.send(ch, &bytes) {
        Ok(()) => 0,
        Err(TransportError::TooLarge { .. }) => -2,
        Err(_) => -3,
    })
}

/// Moves the link's shared clock to `now` ms (an earlier time is ignored:
/// the clock never runs back).
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_advance(now: u64) {
    with_endpoint(0, (), |e| e.advance_to(Millis(now)));
}

/// The link's current time in ms.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_now() -> u64 {
    with_endpoint(0, 0, |e| e.now().0)
}

/// When the next datagram or close notice reaches endpoint `to`, in ms, or
/// -1 when nothing is on its way.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_next_time(to: u32) -> i64 {
    with_endpoint(to, None, |e| e.poll_timeout())
        .and_then(|t| i64::try_from(t.0).ok())
        .unwrap_or(-1)
}

/// Moves the next datagram due at endpoint `to` into the buffer and
/// returns `channel << 16 | length`, or -1 when none is due at the current
/// time. Datagrams longer than 65,535 bytes cannot be sent, so the length
/// always fits.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_recv(to: u32) -> i32 {
    let Some((ch, bytes)) = with_endpoint(to, None, |e| e.recv()) else {
        return -1;
    };
    // link_send caps datagrams at netsim::MAX_DATAGRAM (16 KiB), below
    // both the buffer and the 16 bits of the length.
    let len = bytes.len().min(BUFFER).min(0xffff);
    BUF.with(|b| b.borrow_mut()[..len].copy_from_slice(&bytes[..len]));
    let ch: i32 = match ch {
        Channel::Reliable => 0,
        Channel::Unreliable => 1,
    };
    // len <= 0xffff, so the cast is exact.
    (ch << 16) | len as i32
}

/// The state of endpoint `e`: 0 open, 1 closed, 2 failed, 3 connecting
/// (never, for a simulated link), -1 no link.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_state(e: u32) -> i32 {
    with_endpoint(e, -1, |e| match e.state() {
        LinkState::Open => 0,
        LinkState::Closed => 1,
        LinkState::Failed => 2,
        LinkState::Connecting => 3,
    })
}

/// A counter of the traffic from endpoint `from` to the other:
/// 0 datagrams sent, 1 delivered (duplicates counted again), 2 unreliable
/// ones lost, 3 duplicated, 4 reordered (held back), 5 reliable
/// retransmissions, 6 reliable datagrams sent, 7 reliable ones delivered.
/// Unknown counters and endpoints give 0.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn link_stat(from: u32, which: u32) -> u64 {
    let stats: Option<PathStats> = with_endpoint(from, None, |e| Some(e.outgoing_stats()));
    let Some(s) = stats else {
        return 0;
    };
    match which {
        0 => s.sent.total().packets,
        1 => s.delivered.total().packets,
        2 => s.lost,
        3 => s.duplicated,
        4 => s.reordered,
        5 => s.retransmissions,
        6 => s.sent.reliable.packets,
        7 => s.delivered.reliable.packets,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(bytes: &[u8]) {
        BUF.with(|b| b.borrow_mut()[..bytes.len()].copy_from_slice(bytes));
    }

    fn take(r: i32) -> (i32, Vec<u8>) {
        let len = (r & 0xffff) as usize;
        (r >> 16, BUF.with(|b| b.borrow()[..len].to_vec()))
    }

    /// Delivers everything due at endpoint `to` until `until`, in time order.
    fn drain(to: u32, until: u64) -> Vec<(u64, i32, Vec<u8>)> {
        let mut out = Vec::new();
        loop {
            let t = link_next_time(to);
            if t < 0 || t as u64 > until {
                break;
            }
            link_advance(t as u64);
            loop {
                let r = link_recv(to);
                if r < 0 {
                    break;
                }
                let (ch, bytes) = take(r);
                out.push((t as u64, ch, bytes));
            }
        }
        out
    }

    #[test]
    fn refuses_bad_conditions() {
        assert_eq!(
            link_new(10, 20, 0, 0, 0, 20, 200, 1),
            0,
            "jitter above latency"
        );
        assert_eq!(link_new(10, 0, 101, 0, 0, 20, 200, 1), 0, "loss above 100");
        assert_eq!(link_send(0, 0, 1), -1, "no link after a refusal");
        assert_eq!(link_recv(1), -1);
        assert_eq!(link_state(0), -1);
    }

    #[test]
    fn carries_a_datagram_after_the_latency() {
        assert_eq!(link_new(40, 0, 0, 0, 0, 20, 200, 1), 1);
        put(b"hello");
        assert_eq!(link_send(0, 0, 5), 0);
        assert_eq!(link_next_time(1), 40);
        assert_eq!(link_next_time(0), -1);
        assert_eq!(drain(1, 1000), vec![(40, 0, b"hello".to_vec())]);
        assert_eq!(link_stat(0, 0), 1);
        assert_eq!(link_stat(0, 7), 1);
        assert_eq!(link_state(0), 0);
    }

    #[test]
    fn refuses_bad_arguments() {
        assert_eq!(link_new(0, 0, 0, 0, 0, 20, 200, 1), 1);
        assert_eq!(link_send(2, 0, 1), -1, "no endpoint 2");
        assert_eq!(link_send(0, 2, 1), -1, "no channel 2");
        assert_eq!(link_send(0, 1, BUFFER as u32 + 1), -1, "beyond the buffer");
        assert_eq!(
            link_send(0, 1, netsim::MAX_DATAGRAM as u32 + 1),
            -2,
            "too large"
        );
        assert_eq!(link_recv(7), -1);
        assert_eq!(link_next_time(7), -1);
        assert_eq!(link_stat(7, 0), 0);
        assert_eq!(link_stat(0, 99), 0);
    }

    #[test]
    fn duplicates_reorders_and_keeps_the_reliable_order() {
        // 30 ms ± 10, 20% loss, 30% duplicated, 30% held back 25 ms.
        assert_eq!(link_new(30, 10, 20, 30, 30, 25, 200, 9), 1);
        for i in 0..200u8 {
            put(&[i]);
            assert_eq!(link_send(0, 1, 1), 0);
            put(&[i, i]);
            assert_eq!(link_send(0, 0, 2), 0);
            link_advance(u64::from(i) * 10);
        }
        let got = drain(1, u64::MAX);
        let unreliable: Vec<u8> = got.iter().filter(|d| d.1 == 1).map(|d| d.2[0]).collect();
        let reliable: Vec<u8> = got.iter().filter(|d| d.1 == 0).map(|d| d.2[0]).collect();
        // The reliable channel: everything, once, in order.
        assert_eq!(reliable, (0..200).collect::<Vec<u8>>());
        // The unreliable one: some lost, some twice, some out of order.
        assert!(link_stat(0, 2) > 0 && link_stat(0, 3) > 0 && link_stat(0, 4) > 0);
        assert!(link_stat(0, 5) > 0, "lost reliable attempts were resent");
        let mut seen = [0u8; 200];
        for &b in &unreliable {
            seen[b as usize] += 1;
        }
        assert!(
            seen.contains(&0) && seen.contains(&2),
            "lost and duplicated"
        );
        assert!(unreliable.windows(2).any(|w| w[1] < w[0]), "some overtaken");
        // Times never run back.
        assert!(got.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
