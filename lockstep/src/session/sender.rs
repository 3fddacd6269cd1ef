//! Sending: the queue of encoded datagrams, and the per-frame Inputs packet
//! (which inputs it carries, and whether it may be held back).

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use serde::{de::DeserializeOwned, Serialize};

use super::config::{SessionConfig, DEFAULT_MAX_HOLD_FRAMES};
use super::outcome::SessionStats;
use crate::transport::Channel;
use crate::wire::{Inputs, Message, Pong, MAX_RUN};

/// Rollback: ticks of room kept in the peer's prediction window when a
/// packet is held back (for jitter). More protects better against a
/// burst of losses but holds back less on a long trip, where the window
/// has little room to spare (`docs/benchmarks.md`, "Figures behind the
/// session's constants").
const HOLD_MARGIN_TICKS: i64 = 1;
/// Rollback: packets that leave at once, in consecutive frames, after the
/// local pad changes (more than one in case the first is lost).
const CHANGE_SENDS: u8 = 2;

/// While this side is stalled, the most frames a player's link goes
/// without a datagram of ours (100 ms): well within any silence a host
/// takes for a player gone, even a short `bench_after`.
pub(super) const STALLED_KEEP_ALIVE_FRAMES: u8 = 6;
/// Rollback: of the last 8 pings, how many lost (the ping or its pong) make
/// holding back keep room for one more lost packet (a round-trip loss of a
/// quarter or so).
const LOSSY_PING_LOSSES: u32 = 2;
/// Rollback: of the last 8 pings, how many lost stop holding back
/// altogether (a round-trip loss of a third or more): on such a link a
/// held packet followed by a lost one runs the peer's window out, and a
/// stalled frame costs a player more than a packet costs the link. Never
/// holding back would stall less still but double the packets on every
/// lossy link; a threshold of two cost re-simulation at low loss
/// (`docs/benchmarks.md`, "Figures behind the session's constants").
const NO_HOLD_PING_LOSSES: u32 = 3;

/// Encoded datagrams waiting for [`Session::poll_transmit`](super::Session::poll_transmit),
/// and what was queued so far.
#[derive(Debug, Default)]
pub(super) struct Outbox {
    queue: VecDeque<(Channel, Vec<u8>)>,
    reliable_packets: u64,
    reliable_bytes: u64,
    unreliable_packets: u64,
    unreliable_bytes: u64,
}

impl Outbox {
    /// Encodes `msg` and queues it on its channel.
    pub(super) fn send<I>(&mut self, msg: &Message<I>)
    where
        I: Serialize + DeserializeOwned + Clone + PartialEq,
    {
        match msg.encode() {
            Ok(bytes) => {
                let channel = msg.channel();
                match channel {
                    Channel::Reliable => {
                        self.reliable_packets += 1;
                        self.reliable_bytes += bytes.len() as u64;
                    }
                    Channel::Unreliable => {
                        self.unreliable_packets += 1;
                        self.unreliable_bytes += bytes.len() as u64;
                    }
                }
                self.queue.push_back((channel, bytes));
            }
            // Session::new checked that inputs encode; only a game whose
            // input serializes for some values and not others gets here.
            Err(e) => log::error!("cannot encode an outgoing message: {e}"),
        }
    }

    /// Forgets every datagram still waiting (they were for a session that
    /// is gone); the counts stay.
    pub(super) fn clear(&mut self) {
        self.queue.clear();
    }

    /// The next datagram to send.
    pub(super) fn pop(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.queue.pop_front()
    }

    /// Adds the packet and byte counts to `stats`.
    pub(super) fn count_into(&self, stats: &mut SessionStats) {
        stats.reliable_packets += self.reliable_packets;
        stats.reliable_bytes += self.reliable_bytes;
        stats.unreliable_packets += self.unreliable_packets;
        stats.unreliable_bytes += self.unreliable_bytes;
    }
}

/// What goes on this frame's Inputs packet besides the inputs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Extras {
    /// The acknowledgement: remote inputs held.
    pub(super) ack: u32,
    /// A ping, if one is due.
    pub(super) ping: Option<u16>,
    /// The pong owed, if any.
    pub(super) pong: Option<Pong>,
    /// The frame advantage, if it is to be reported.
    pub(super) advantage: Option<i8>,
}

/// The state of this side's input stream towards the peer.
#[derive(Debug)]
pub(super) struct Sender {
    /// Frames since the last Inputs packet could go out.
    frames_since_send: u8,
    /// Rollback: frames in a row the Inputs packet was held back.
    held_frames: u8,
    /// How many local inputs the last Inputs packet carried up to (the
    /// newest tick the peer will know when it arrives, plus one).
    sent_upto: u32,
    /// The same for the two packets before the last one (newest first):
    /// what the peer holds if the last one, or the last two, were lost.
    sent_upto_before: [u32; 2],
    /// Rollback: packets still to go out at once for the newest local pad
    /// that differs from the one before it.
    change_sends_left: u8,
    /// How many of our inputs the peer holds (highest ack seen).
    peer_ack: u32,
    /// The ack we last sent.
    sent_ack: Option<u32>,
    /// Frames since any datagram of the stream went out.
    quiet_frames: u8,
}

impl Sender {
    /// The stream at the start of a match: the first `delay` inputs are
    /// the default on both sides, so the peer holds them already.
    pub(super) fn new(delay: u8) -> Self {
        Sender::holding(u32::from(delay))
    }

    /// The stream towards a peer known to hold our first `held` inputs
    /// (a rejoiner's, after its catch-up).
    pub(super) fn holding(held: u32) -> Self {
        let d = held;
        Sender {
            frames_since_send: 0,
            held_frames: 0,
            sent_upto: d,
            sent_upto_before: [d; 2],
            change_sends_left: 0,
            peer_ack: d,
            sent_ack: None,
            quiet_frames: 0,
        }
    }

    /// The local pad just changed: the next packets leave at once.
    pub(super) fn pad_changed(&mut self) {
        self.change_sends_left = CHANGE_SENDS;
    }

    /// Our inputs the peer surely holds: those up to the packet before the
    /// last one.
    pub(super) fn surely_held(&self) -> u32 {
        self.sent_upto_before[0]
    }

    /// Our inputs the peer acknowledged.
    pub(super) fn acked(&self) -> u32 {
        self.peer_ack
    }

    /// The peer acknowledged `ack` of our inputs.
    pub(super) fn on_ack(&mut self, ack: u32) {
        self.peer_ack = self.peer_ack.max(ack);
    }

    /// Once per running frame: whether this frame's Inputs packet goes out
    /// (every `send_interval_frames`-th frame, unless held back: see
    /// [`SessionConfig::max_hold_frames`]). `urgent` is asked only when
    /// holding back is possible.
    pub(super) fn due(
        &mut self,
        cfg: &SessionConfig,
        window: u8,
        urgent: impl FnOnce(&Self) -> bool,
    ) -> bool {
        self.frames_since_send = self.frames_since_send.saturating_add(1);
        if self.frames_since_send < cfg.send_interval_frames {
            return false;
        }
        self.frames_since_send = 0;
        if window > 0
            && cfg.send_interval_frames == 1
            && self.held_frames < cfg.max_hold_frames
            && !urgent(self)
        {
            self.held_frames += 1;
            return false;
        }
        self.held_frames = 0;
        true
    }

    /// Rollback: whether this frame's Inputs packet must go out now rather
    /// than be held back. `lost_pings` counts the last 8 pings lost,
    /// `peer_tick` is the peer's estimated tick now, `travel` half a round
    /// trip in ticks.
    pub(super) fn inputs_urgent(
        &self,
        cfg: &SessionConfig,
        lost_pings: u32,
        peer_tick: i64,
        travel: i64,
        window: u8,
    ) -> bool {
        // A new pad that differs from the one before it: the peer's
        // repeat-last guess is wrong from there on, so it leaves at once
        // (and in the next packets, in case one is lost).
        if self.change_sends_left > 0 {
            return true;
        }
        // On a very lossy link nothing is held back: a held packet
        // followed by a lost one leaves the peer's window empty, and a
        // stalled frame costs the player more than a packet costs the link
        // (see NO_HOLD_PING_LOSSES).
        if lost_pings >= NO_HOLD_PING_LOSSES {
            return true;
        }
        // The peer's prediction window: held back now, the inputs leave in
        // the next frame at the earliest (the question is asked again
        // then); the peer must still be short of running out when they
        // arrive, even if the last packet sent was lost (on a somewhat
        // lossy link, the last two). Counting on the last one alone let a
        // long hold end in a packet that, lost, left the peer stalling
        // until the next hold ran out, and the side holding ran ahead.
        //
        // A hold of at most the default is short: the next packet follows
        // within that many frames and repairs a loss before the peer runs
        // out in most cases, so it counts on the last packet (with a tick
        // more room on a lossy link) and keeps the default's packet rate.
        // A longer hold counts only on the packet before the last (two
        // before on a lossy link).
        let lossy = lost_pings >= LOSSY_PING_LOSSES;
        let (arrived, margin) = if cfg.max_hold_frames <= DEFAULT_MAX_HOLD_FRAMES {
            let margin = HOLD_MARGIN_TICKS + i64::from(lossy);
            (self.sent_upto, margin)
        } else {
            let back = usize::from(lossy);
            let upto = self
                .sent_upto_before
                .get(back)
                .copied()
                .unwrap_or(self.sent_upto);
            (upto, HOLD_MARGIN_TICKS)
        };
        let peer_then = peer_tick + travel + 1;
        peer_then + margin >= i64::from(arrived) + i64::from(window)
    }

    /// The datagram this frame sends, if any: an Inputs packet with every
    /// input the peer has not acknowledged (at most [`MAX_RUN`]) when there
    /// is something to carry, else a lone Ping or Pong.
    pub(super) fn packet<I: Copy>(&mut self, local: &[I], extras: Extras) -> Option<Message<I>> {
        let msg = self.packet_of(local, extras);
        if msg.is_some() {
            self.quiet_frames = 0;
        }
        msg
    }

    /// One more frame of a stalled match: whether the peer has heard
    /// nothing of this stream for [`STALLED_KEEP_ALIVE_FRAMES`], so that
    /// an Inputs packet with nothing new goes out anyway (see
    /// [`keep_alive`](Self::keep_alive)).
    pub(super) fn quiet_while_stalled(&mut self) -> bool {
        self.quiet_frames = self.quiet_frames.saturating_add(1);
        self.quiet_frames >= STALLED_KEEP_ALIVE_FRAMES
    }

    /// An Inputs packet that carries only `ack` (and whatever of our
    /// inputs the peer has not acknowledged): sent while this side is
    /// stalled and has nothing new to say. A player stalled on someone
    /// else's inputs sends no new input of its own, and without this a
    /// host that benches after a short silence would take it for the one
    /// holding the match up.
    pub(super) fn keep_alive<I: Copy>(&mut self, local: &[I], ack: u32) -> Option<Message<I>> {
        // Forgetting the ack sent makes it news: the packet goes out.
        self.sent_ack = None;
        let extras = Extras {
            ack,
            ping: None,
            pong: None,
            advantage: None,
        };
        self.packet(local, extras)
    }

    fn packet_of<I: Copy>(&mut self, local: &[I], extras: Extras) -> Option<Message<I>> {
        let sent = local.len();
        let from = (self.peer_ack as usize).min(sent);
        let to = sent.min(from + MAX_RUN);
        let Extras {
            ack,
            ping,
            pong,
            advantage,
        } = extras;
        let needs_inputs = from < to || self.sent_ack != Some(ack) || advantage.is_some();
        if needs_inputs || (ping.is_some() && pong.is_some()) {
            self.sent_ack = Some(ack);
            self.sent_upto_before = [self.sent_upto, self.sent_upto_before[0]];
            self.sent_upto = to as u32;
            self.change_sends_left = self.change_sends_left.saturating_sub(1);
            Some(Message::Inputs(Inputs {
                ack,
                first_tick: from as u32,
                pads: local.get(from..to).map(<[_]>::to_vec).unwrap_or_default(),
                ping,
                pong,
                advantage,
            }))
        } else if let Some(id) = ping {
            Some(Message::Ping(id))
        } else {
            pong.map(Message::Pong)
        }
    }
}
