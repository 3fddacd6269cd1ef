//! The relays of a member room's pairs: each member asks its room for the
//! ticket of its end of one pair (`{"type":"relay-ticket","to":ID}`), the
//! relay pairs exactly those two sockets and passes frames verbatim, and
//! every other use of a ticket or request is refused. (The caps and the
//! TTL run on a pair's relay in [`crate::relay`].)

use serde_json::Value;

use crate::client::Ws;
use crate::relay::{path, payload};
use crate::{ensure, Ctx};

/// A member room's sockets, each welcomed, every `member-joined` read.
pub(crate) struct MemberRoom {
    /// Each member's id and socket, in joining order.
    members: Vec<(u64, Ws)>,
}

impl MemberRoom {
    /// Joins `code` once per role, in order, each from its own address,
    /// reading each welcome and what those already there hear of it.
    pub(crate) async fn join(c: &Ctx, code: &str, roles: &[&str]) -> Result<MemberRoom, String> {
        let mut members: Vec<(u64, Ws)> = Vec::new();
        for role in roles {
            let mut ws = c
                .lobby_target()
                .ws_ok(&format!("/rooms/{code}/ws?role={role}"), c.origin())
                .await?;
            let welcome = ws.expect_type("welcome").await?;
            let id = welcome
                .get("you")
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("{role}: a welcome without an id: {welcome}"))?;
            for (_, other) in &mut members {
                other.expect_type("member-joined").await?;
            }
            members.push((id, ws));
        }
        Ok(MemberRoom { members })
    }

    fn ws(&mut self, id: u64) -> Result<&mut Ws, String> {
        self.members
            .iter_mut()
            .find(|(m, _)| *m == id)
            .map(|(_, ws)| ws)
            .ok_or_else(|| format!("no member {id} in this check"))
    }

    /// Member `me` asks for its ticket to `to`'s relay; checks the answer
    /// (`ttl` 60, the ticket naming `me` then `to`) and returns the ticket.
    pub(crate) async fn ticket(&mut self, me: u64, to: u64) -> Result<String, String> {
        let ws = self.ws(me)?;
        ws.send(&format!(r#"{{"type":"relay-ticket","to":{to}}}"#))
            .await?;
        let v = ws.expect_type("relay-ticket").await?;
        ensure(v.get("ttl").and_then(Value::as_u64) == Some(60), || {
            format!("member {me}'s relay-ticket should say ttl 60: {v}")
        })?;
        let ticket = v
            .get("ticket")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("member {me}: relay-ticket without a ticket: {v}"))?;
        ensure(ticket.starts_with(&format!("{me}-{to}.")), || {
            format!("member {me}'s ticket to {to} should name {me}-{to}: {ticket}")
        })?;
        Ok(ticket.to_owned())
    }

    /// Member `me` sends `text` and must get an `error` back.
    async fn refused(&mut self, me: u64, text: &str, what: &str) -> Result<(), String> {
        let ws = self.ws(me)?;
        ws.send(text).await?;
        ws.expect_error(what).await
    }

    /// Every socket, in joining order.
    pub(crate) fn into_sockets(self) -> Vec<Ws> {
        self.members.into_iter().map(|(_, ws)| ws).collect()
    }

    async fn close(self) {
        for mut ws in self.into_sockets() {
            ws.close().await;
        }
    }
}

/// Both ends of a relay on their tickets, `paired` consumed.
async fn open(c: &Ctx, code: &str, a: &str, b: &str) -> Result<(Ws, Ws), String> {
    let mut x = c.target.ws_ok(&path(code, a), c.origin()).await?;
    let mut y = c.target.ws_ok(&path(code, b), c.origin()).await?;
    x.expect_type("paired").await?;
    y.expect_type("paired").await?;
    Ok((x, y))
}

/// Frames `n` from `a` to `b` and `n + 1` back, each arriving unchanged.
async fn both_ways(a: &mut Ws, b: &mut Ws, n: u8, who: &str) -> Result<(), String> {
    a.send_binary(payload(n)).await?;
    ensure(b.binary().await? == payload(n), || {
        format!("{who}: a frame changed on the way")
    })?;
    b.send_binary(payload(n + 1)).await?;
    ensure(a.binary().await? == payload(n + 1), || {
        format!("{who}: a frame changed on the way back")
    })
}

/// A room of three players and two spectators: two players' relay and the
/// host's with a spectator, open at once, each passing frames between its
/// own two ends only, byte for byte.
pub(crate) async fn member_relay_pairs(c: &Ctx) -> Result<Option<String>, String> {
    let code = crate::members::create(c, 3, 2).await?;
    let mut room = MemberRoom::join(c, &code, &["host", "player", "player", "spectator"]).await?;
    let (one, two) = (room.ticket(1, 2).await?, room.ticket(2, 1).await?);
    let (host, watcher) = (room.ticket(0, 8).await?, room.ticket(8, 0).await?);
    let (mut p1, mut p2) = open(c, &code, &one, &two).await?;
    let (mut h, mut s) = open(c, &code, &host, &watcher).await?;
    // An end already there is refused, on either relay.
    c.target
        .ws_refused(&path(&code, &two), c.origin(), 409)
        .await?;
    c.target
        .ws_refused(&path(&code, &host), c.origin(), 409)
        .await?;
    both_ways(&mut p1, &mut p2, 1, "players 1 and 2").await?;
    both_ways(&mut h, &mut s, 3, "the host and spectator 8").await?;
    // Each relay ends with its own pair: the players' closes, the host's
    // with the spectator still passes frames.
    p1.close().await;
    p2.expect_close(1000, "player 2 when player 1 left its relay")
        .await?;
    h.send_binary(payload(5)).await?;
    ensure(s.binary().await? == payload(5), || {
        "the host's relay with the spectator stopped with another pair's".into()
    })?;
    h.close().await;
    s.expect_close(1000, "the spectator when the host left its relay")
        .await?;
    // The room had no part in any of it: the next frame each member gets
    // is the answer to its ping.
    let mut sockets = room.into_sockets();
    for ws in &mut sockets {
        ws.send(r#"{"type":"ping"}"#).await?;
        ws.expect_type("pong").await?;
    }
    for mut ws in sockets {
        ws.close().await;
    }
    Ok(None)
}

/// A ticket for a pair that does not link, for nobody, for oneself or
/// without a peer is refused by the room; a pair's ticket changed to name
/// another pair or the other end, or taken to another room, by the relay.
pub(crate) async fn member_relay_refusals(c: &Ctx) -> Result<Option<String>, String> {
    let o = c.origin();
    let code = crate::members::create(c, 3, 2).await?;
    let mut room = MemberRoom::join(c, &code, &["host", "player", "player", "spectator"]).await?;
    for (me, text, what) in [
        (
            8,
            r#"{"type":"relay-ticket","to":1}"#,
            "a spectator's ticket to a player",
        ),
        (
            1,
            r#"{"type":"relay-ticket","to":8}"#,
            "a player's ticket to a spectator",
        ),
        (
            1,
            r#"{"type":"relay-ticket","to":9}"#,
            "a ticket to a free id",
        ),
        (
            1,
            r#"{"type":"relay-ticket","to":1}"#,
            "a ticket to oneself",
        ),
        (
            1,
            r#"{"type":"relay-ticket","to":99}"#,
            "a ticket to an id no room has",
        ),
        (1, r#"{"type":"relay-ticket"}"#, "a ticket without to"),
    ] {
        room.refused(me, text, what).await?;
    }
    let ticket = room.ticket(1, 2).await?;
    let (_, rest) = ticket
        .split_once('.')
        .ok_or_else(|| format!("a ticket without dots: {ticket}"))?;
    for side in ["2-1", "1-0", "0-2", "host", "guest"] {
        c.target
            .ws_refused(&path(&code, &format!("{side}.{rest}")), o, 403)
            .await?;
    }
    let other = c.create_room().await?;
    c.target.ws_refused(&path(&other, &ticket), o, 403).await?;
    // None of that used up player 1's end.
    let two = room.ticket(2, 1).await?;
    let (mut a, mut b) = open(c, &code, &ticket, &two).await?;
    a.close().await;
    b.expect_close(1000, "player 2 when player 1 left").await?;
    room.close().await;
    Ok(None)
}
