//! The match relay's checks: tickets from a room, pairing, verbatim
//! forwarding, the size and rate caps, refusals, origin and TTL; the caps
//! and the TTL both for a two-seat room's relay and for a member room
//! pair's (whose own pairing and refusals are in [`crate::member_relay`]).
//!
//! Every payload the checks send holds the words `check-logs.py` looks for
//! (`sdp`, `v=0`, `xxxxxxxx`, `candidate:`), so a host that logged a relayed
//! frame fails the log check of stages 40 and 45.

use serde_json::Value;

use crate::client::{AnyFrame, Ws};
use crate::{ensure, Ctx};

/// A payload with every byte value and the words the log check hunts for.
pub(crate) fn payload(tag: u8) -> Vec<u8> {
    let mut bytes: Vec<u8> = vec![tag];
    bytes.extend(0..=255u8);
    bytes.extend_from_slice(b"sdp v=0 candidate: xxxxxxxx");
    bytes
}

/// A room with both sides connected, and each side's relay ticket, asked
/// for on its room socket as a page does.
pub(crate) struct Tickets {
    pub(crate) code: String,
    pub(crate) host: String,
    pub(crate) guest: String,
    pub(crate) rooms: (Ws, Ws),
}

/// Which kind of relay a check runs on.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// A two-seat room's.
    TwoSeat,
    /// The relay of a member room's host (member 0) and its player
    /// (member 1): `host` and `guest` of [`Tickets`] are their tickets.
    Pair,
}

async fn tickets_of(c: &Ctx, kind: Kind) -> Result<Tickets, String> {
    match kind {
        Kind::TwoSeat => tickets(c).await,
        Kind::Pair => {
            let code = crate::members::create(c, 2, 0).await?;
            let mut room =
                crate::member_relay::MemberRoom::join(c, &code, &["host", "player"]).await?;
            let host = room.ticket(0, 1).await?;
            let guest = room.ticket(1, 0).await?;
            let mut sockets = room.into_sockets();
            let player = sockets.pop().ok_or("no player socket")?;
            let host_ws = sockets.pop().ok_or("no host socket")?;
            Ok(Tickets {
                code,
                host,
                guest,
                rooms: (host_ws, player),
            })
        }
    }
}

pub(crate) async fn tickets(c: &Ctx) -> Result<Tickets, String> {
    let code = c.create_room().await?;
    let (mut host, mut guest) = {
        let mut host = c.room_ws(&code, "host").await?;
        let guest = c.room_ws(&code, "guest").await?;
        host.expect_type("peer-joined").await?;
        (host, guest)
    };
    let ticket = |v: Value| -> Result<String, String> {
        ensure(v.get("ttl").and_then(Value::as_u64) == Some(60), || {
            format!("relay-ticket should say ttl 60: {v}")
        })?;
        v.get("ticket")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("relay-ticket without a ticket: {v}"))
    };
    host.send(r#"{"type":"relay-ticket"}"#).await?;
    let host_ticket = ticket(host.expect_type("relay-ticket").await?)?;
    guest.send(r#"{"type":"relay-ticket"}"#).await?;
    let guest_ticket = ticket(guest.expect_type("relay-ticket").await?)?;
    ensure(host_ticket.starts_with("host."), || {
        format!("the host's ticket names the host: {host_ticket}")
    })?;
    ensure(guest_ticket.starts_with("guest."), || {
        format!("the guest's ticket names the guest: {guest_ticket}")
    })?;
    Ok(Tickets {
        code,
        host: host_ticket,
        guest: guest_ticket,
        rooms: (host, guest),
    })
}

pub(crate) fn path(code: &str, ticket: &str) -> String {
    format!("/relay/{code}/ws?ticket={ticket}")
}

/// Both sides on a two-seat room's relay, `paired` consumed.
async fn paired(c: &Ctx) -> Result<(Ws, Ws, Tickets), String> {
    paired_on(c, Kind::TwoSeat).await
}

/// Both sides on a relay of `kind`, `paired` consumed.
async fn paired_on(c: &Ctx, kind: Kind) -> Result<(Ws, Ws, Tickets), String> {
    let t = tickets_of(c, kind).await?;
    let mut host = c.target.ws_ok(&path(&t.code, &t.host), c.origin()).await?;
    let mut guest = c.target.ws_ok(&path(&t.code, &t.guest), c.origin()).await?;
    for (ws, who) in [(&mut host, "host"), (&mut guest, "guest")] {
        let v = ws.json().await?;
        ensure(v == serde_json::json!({"type": "paired"}), || {
            format!("{who} expected paired, got {v}")
        })?;
    }
    Ok((host, guest, t))
}

async fn close_rooms(t: &mut Tickets) {
    t.rooms.0.close().await;
    t.rooms.1.close().await;
}

pub(crate) async fn relay_pairing_verbatim(c: &Ctx) -> Result<Option<String>, String> {
    let (mut host, mut guest, mut t) = paired(c).await?;
    // A third socket for a side already there is refused.
    c.target
        .ws_refused(&path(&t.code, &t.host), c.origin(), 409)
        .await?;
    // Frames pass both ways byte for byte, in order, empty ones too.
    let (a, b) = (payload(1), payload(2));
    host.send_binary(a.clone()).await?;
    host.send_binary(Vec::new()).await?;
    guest.send_binary(b.clone()).await?;
    ensure(guest.binary().await? == a, || {
        "host → guest frame changed".into()
    })?;
    ensure(guest.binary().await?.is_empty(), || {
        "empty frame changed".into()
    })?;
    ensure(host.binary().await? == b, || {
        "guest → host frame changed".into()
    })?;
    // The match ends: one side leaves and the relay closes the other.
    host.close().await;
    guest
        .expect_close(1000, "the guest when the host left")
        .await?;
    close_rooms(&mut t).await;
    Ok(None)
}

pub(crate) async fn relay_refusals(c: &Ctx) -> Result<Option<String>, String> {
    let o = c.origin();
    let mut t = tickets(c).await?;
    // Not a room code.
    c.target
        .ws_refused(&path("00000O", &t.host), o, 404)
        .await?;
    // No ticket, a malformed one, a forged signature, a ticket with its
    // side changed, and a ticket of another room.
    c.target
        .ws_refused(&format!("/relay/{}/ws", t.code), o, 403)
        .await?;
    c.target.ws_refused(&path(&t.code, "host"), o, 403).await?;
    let mut forged = t.host.clone();
    let last = if forged.ends_with('0') { "1" } else { "0" };
    forged.replace_range(forged.len() - 1.., last);
    c.target.ws_refused(&path(&t.code, &forged), o, 403).await?;
    let swapped = t.host.replacen("host", "guest", 1);
    c.target
        .ws_refused(&path(&t.code, &swapped), o, 403)
        .await?;
    let other = c.create_room().await?;
    c.target.ws_refused(&path(&other, &t.host), o, 403).await?;
    // A good ticket without an upgrade.
    c.target
        .http("GET", &path(&t.code, &t.host), o)
        .await?
        .expect_error(426, "relay GET without an upgrade")?;
    // From a forbidden origin, even with a good ticket.
    if let Some(bad) = c.config.forbidden_origin.as_deref() {
        c.target
            .ws_refused(&path(&t.code, &t.host), Some(bad), 403)
            .await?;
    }
    // None of that used up the sides: both still pair.
    let mut host = c.target.ws_ok(&path(&t.code, &t.host), o).await?;
    let mut guest = c.target.ws_ok(&path(&t.code, &t.guest), o).await?;
    host.expect_type("paired").await?;
    guest.expect_type("paired").await?;
    host.close().await;
    guest.close().await;
    close_rooms(&mut t).await;
    Ok(None)
}

pub(crate) async fn relay_size_cap(c: &Ctx, kind: Kind) -> Result<Option<String>, String> {
    // A datagram of 16 KiB with its tag byte is the largest frame.
    let (mut host, mut guest, mut t) = paired_on(c, kind).await?;
    let largest = vec![b'x'; 16 * 1024 + 1];
    host.send_binary(largest.clone()).await?;
    ensure(guest.binary().await? == largest, || {
        "the largest frame changed".into()
    })?;
    host.send_binary(vec![b'x'; 16 * 1024 + 2]).await?;
    host.expect_close(1009, "a frame one byte over the cap")
        .await?;
    guest
        .expect_close(1000, "the other side of a closed sender")
        .await?;
    close_rooms(&mut t).await;

    // 100 KiB: refused the same way, however large.
    let (mut host, mut guest, mut t) = paired_on(c, kind).await?;
    guest.send_binary(vec![b'x'; 100 * 1024]).await?;
    guest.expect_close(1009, "a 100 KiB frame").await?;
    host.expect_close(1000, "the other side of a 100 KiB sender")
        .await?;
    close_rooms(&mut t).await;
    Ok(None)
}

pub(crate) async fn relay_rate_cap(c: &Ctx, kind: Kind) -> Result<Option<String>, String> {
    let limit = c.config.relay_bytes_per_second;
    if limit == 0 {
        return Ok(Some("no relay rate configured".into()));
    }
    let (mut host, mut guest, mut t) = paired_on(c, kind).await?;
    // Frames of 16 KiB back to back: one more than the second's allowance
    // holds. They all go within a few milliseconds on a local host.
    let frame = vec![b'x'; 16 * 1024];
    let frames = (limit as usize).div_ceil(frame.len()) + 1;
    for _ in 0..frames {
        if host.send_binary(frame.clone()).await.is_err() {
            break;
        }
    }
    // The guest gets at most the allowance, then the relay's close.
    let mut received = 0usize;
    loop {
        match guest.next_any().await? {
            AnyFrame::Binary(b) => received += b.len(),
            AnyFrame::Closed(Some(1000)) => break,
            other => return Err(format!("guest: expected frames then 1000, got {other:?}")),
        }
    }
    ensure(received <= limit as usize, || {
        format!("{received} bytes passed in a second, over the {limit} allowed")
    })?;
    loop {
        match host.next_any().await? {
            AnyFrame::Closed(Some(1008)) => break,
            AnyFrame::Closed(other) => {
                return Err(format!("flooder closed with {other:?}, not 1008"))
            }
            _ => {}
        }
    }
    close_rooms(&mut t).await;
    Ok(None)
}

pub(crate) async fn relay_text_refused(c: &Ctx) -> Result<Option<String>, String> {
    let (mut host, mut guest, mut t) = paired(c).await?;
    host.send(r#"{"type":"offer","sdp":"v=0"}"#).await?;
    host.expect_close(1003, "a text frame on the relay").await?;
    guest
        .expect_close(1000, "the other side of a text sender")
        .await?;
    close_rooms(&mut t).await;
    Ok(None)
}

pub(crate) async fn relay_ttl(c: &Ctx, kind: Kind) -> Result<Option<String>, String> {
    let ttl = std::time::Duration::from_secs(c.config.relay_ttl_seconds);
    if ttl > c.config.max_ttl_wait {
        return Ok(Some(format!("relay TTL {ttl:?} is too long to wait for")));
    }
    let (mut host, mut guest, mut t) = paired_on(c, kind).await?;
    let wait = ttl + c.config.deadline;
    host.expect_close_within(1000, wait, "host at the relay's TTL")
        .await?;
    guest
        .expect_close_within(1000, wait, "guest at the relay's TTL")
        .await?;
    close_rooms(&mut t).await;
    Ok(None)
}
