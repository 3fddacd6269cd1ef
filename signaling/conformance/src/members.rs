//! Checks of member rooms (`POST /rooms?players=N`): a full room of eight
//! players and sixteen spectators whose every player pair exchanges an
//! addressed offer and answer, the places and their refusals, the join and
//! leave notices, and the refusals of a member room's frames.

use serde_json::{json, Value};

use crate::client::Ws;
use crate::{ensure, Ctx};

/// Creates a member room; returns its code after checking the answer.
pub(crate) async fn create(c: &Ctx, players: u8, spectators: u8) -> Result<String, String> {
    let path = format!("/rooms?players={players}&spectators={spectators}");
    let r = c.target.http("POST", &path, c.origin()).await?;
    ensure(r.status == 200, || {
        format!("POST {path}: expected 200, got {} {}", r.status, r.body)
    })?;
    let v = r.json()?;
    ensure(
        v.get("players").and_then(Value::as_u64) == Some(u64::from(players))
            && v.get("spectators").and_then(Value::as_u64) == Some(u64::from(spectators))
            && v.get("ttl").and_then(Value::as_u64) == Some(c.config.room_ttl_seconds),
        || format!("POST {path}: unexpected answer {v}"),
    )?;
    v.get("code")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("POST {path}: no code in {v}"))
}

/// One member's socket and the id the room gave it.
struct Member {
    id: u64,
    ws: Ws,
}

/// Joins `code` as `role`, checks the welcome (the expected id, everyone
/// present listed by id) and that each member already there hears
/// `member-joined` with the newcomer's id and role.
async fn join(
    c: &Ctx,
    code: &str,
    role: &str,
    expect_id: u64,
    present: &mut [Member],
) -> Result<Member, String> {
    // Each socket from its own local address, so that per-address caps
    // and rate limits see many clients, as in the lobby checks.
    let mut ws = c
        .lobby_target()
        .ws_ok(&format!("/rooms/{code}/ws?role={role}"), c.origin())
        .await?;
    let welcome = ws.expect_type("welcome").await?;
    let mut ids: Vec<u64> = present.iter().map(|m| m.id).collect();
    ids.push(expect_id);
    ids.sort_unstable();
    let listed: Vec<u64> = welcome
        .get("members")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| m.get("id").and_then(Value::as_u64))
                .collect()
        })
        .unwrap_or_default();
    ensure(
        welcome.get("you").and_then(Value::as_u64) == Some(expect_id)
            && welcome.get("role").and_then(Value::as_str) == Some(role)
            && listed == ids,
        || format!("{role} expected id {expect_id} and members {ids:?}, got {welcome}"),
    )?;
    for m in present.iter_mut() {
        let v = m.ws.expect_type("member-joined").await?;
        ensure(
            v.pointer("/member/id").and_then(Value::as_u64) == Some(expect_id)
                && v.pointer("/member/role").and_then(Value::as_str) == Some(role),
            || {
                format!(
                    "member {} expected {expect_id} joining as {role}, got {v}",
                    m.id
                )
            },
        )?;
    }
    Ok(Member { id: expect_id, ws })
}

/// Sends `data` from `from` to member `to` and checks `to` receives it
/// with `from`'s id and the data exactly as written.
async fn exchange(
    members: &mut [Member],
    from: usize,
    to: usize,
    data: &str,
) -> Result<(), String> {
    let to_id = members[to].id;
    let from_id = members[from].id;
    members[from]
        .ws
        .send(&format!(
            r#"{{"type":"signal","to":{to_id},"data":{data}}}"#
        ))
        .await?;
    let got = members[to].ws.text().await?;
    let want = format!(r#"{{"type":"signal","from":{from_id},"data":{data}}}"#);
    ensure(got == want, || {
        format!("member {to_id} from {from_id}:\n expected {want}\n got      {got}")
    })
}

/// Sends every `(from, to, data)` first, then checks each addressee
/// received exactly the frames addressed to it (in any order across
/// senders: they come over different connections), each with its
/// sender's id and the data exactly as written.
async fn exchange_all(
    members: &mut [Member],
    sends: &[(usize, usize, String)],
) -> Result<(), String> {
    let mut expected: Vec<Vec<String>> = vec![Vec::new(); members.len()];
    for (from, to, data) in sends {
        let (from_id, to_id) = (members[*from].id, members[*to].id);
        members[*from]
            .ws
            .send(&format!(
                r#"{{"type":"signal","to":{to_id},"data":{data}}}"#
            ))
            .await?;
        expected[*to].push(format!(
            r#"{{"type":"signal","from":{from_id},"data":{data}}}"#
        ));
    }
    for (m, want) in members.iter_mut().zip(expected) {
        let mut got = Vec::with_capacity(want.len());
        for _ in 0..want.len() {
            got.push(m.ws.text().await?);
        }
        let (mut got_sorted, mut want_sorted) = (got.clone(), want.clone());
        got_sorted.sort();
        want_sorted.sort();
        ensure(got_sorted == want_sorted, || {
            format!("member {}:\n expected {want:?}\n got      {got:?}", m.id)
        })?;
    }
    Ok(())
}

/// Every member pings; the next frame each reads must be the pong, so
/// nothing else was sent to it before.
async fn nothing_pending(members: &mut [Member]) -> Result<(), String> {
    for m in members.iter_mut() {
        m.ws.send(r#"{"type":"ping"}"#).await?;
    }
    for m in members.iter_mut() {
        let v = m.ws.json().await?;
        ensure(v == json!({"type": "pong"}), || {
            format!("member {} received what was not addressed to it: {v}", m.id)
        })?;
    }
    Ok(())
}

/// Each of `roles` is refused with 409: its places in room `code` are all
/// taken.
async fn refused_as_full(c: &Ctx, code: &str, roles: &[&str]) -> Result<(), String> {
    for role in roles {
        c.target
            .ws_refused(&format!("/rooms/{code}/ws?role={role}"), c.origin(), 409)
            .await?;
    }
    Ok(())
}

/// Eight players and sixteen spectators; the ninth player and the
/// seventeenth spectator refused; every player pair exchanges an offer and
/// an answer addressed by id, which only its addressee receives.
pub async fn member_room_mesh(c: &Ctx) -> Result<Option<String>, String> {
    let code = create(c, 8, 16).await?;
    let mut members: Vec<Member> = Vec::new();
    let host = join(c, &code, "host", 0, &mut members).await?;
    members.push(host);
    for id in 1..8 {
        let m = join(c, &code, "player", id, &mut members).await?;
        members.push(m);
    }
    for id in 8..24 {
        let m = join(c, &code, "spectator", id, &mut members).await?;
        members.push(m);
    }
    refused_as_full(c, &code, &["player", "spectator", "host"]).await?;
    // Every pair of players: the lower id offers, the higher answers.
    // Spacing, escapes and key order must arrive as written. All offers
    // are sent before any is read (and then all answers), so the check
    // takes two round trips rather than one per message: the room lives
    // only a few seconds in CI.
    let offers: Vec<(usize, usize, String)> = (0..8)
        .flat_map(|a| (a + 1..8).map(move |b| (a, b)))
        .map(|(a, b)| {
            let data = format!(r#"{{ "type" : "offer", "sdp":"v=0\r\no={a}-{b} \u2713" }}"#);
            (a, b, data)
        })
        .collect();
    exchange_all(&mut members, &offers).await?;
    let answers: Vec<(usize, usize, String)> = offers
        .iter()
        .map(|(a, b, _)| {
            let data = format!(r#"{{"sdp":"v=0 {b}-{a}","type":"answer","extra":[1, 2.50]}}"#);
            (*b, *a, data)
        })
        .collect();
    exchange_all(&mut members, &answers).await?;
    // A spectator and a player link too, both ways.
    exchange(&mut members, 20, 3, r#"{"type":"offer","sdp":"watch"}"#).await?;
    exchange(&mut members, 3, 20, r#"{"type":"answer","sdp":"ok"}"#).await?;
    nothing_pending(&mut members).await?;
    for m in members.iter_mut() {
        m.ws.close().await;
    }
    Ok(None)
}

/// Leaving is announced and frees the place; frames a member room does not
/// take are refused; the host's `done` ends the room for everyone.
pub async fn member_room_leave_and_refusals(c: &Ctx) -> Result<Option<String>, String> {
    let o = c.origin();
    for bad in [
        "players=1",
        "players=9",
        "players=x",
        "players=4&spectators=17",
        "spectators=2",
    ] {
        let r = c.target.http("POST", &format!("/rooms?{bad}"), o).await?;
        r.expect_error(400, &format!("POST /rooms?{bad}"))?;
    }
    let code = create(c, 3, 1).await?;
    // A two-seat room's guest has no place in a member room.
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=guest"), o, 400)
        .await?;
    let mut members: Vec<Member> = Vec::new();
    let m = join(c, &code, "player", 1, &mut members).await?;
    members.push(m);
    let m = join(c, &code, "host", 0, &mut members).await?;
    members.push(m);
    let m = join(c, &code, "player", 2, &mut members).await?;
    members.push(m);
    let m = join(c, &code, "spectator", 8, &mut members).await?;
    members.push(m);
    refused_as_full(c, &code, &["player", "spectator"]).await?;
    // members: [player 1, host 0, player 2, spectator 8]
    for (bad, what) in [
        (
            r#"{"type":"signal","to":9,"data":{}}"#,
            "a signal to a free id",
        ),
        (
            r#"{"type":"signal","to":2,"data":{}}"#,
            "a signal to itself",
        ),
        (
            r#"{"type":"signal","to":77,"data":{}}"#,
            "a signal to an id no room has",
        ),
        (
            r#"{"type":"signal","to":"0","data":{}}"#,
            "a signal to a string",
        ),
        (r#"{"type":"signal","to":0}"#, "a signal without data"),
        (r#"{"type":"offer","sdp":"x"}"#, "an unaddressed offer"),
        (r#"{"type":"relay-ticket"}"#, "a relay ticket"),
        (r#"{"type":"peer-joined"}"#, "a room's own frame"),
        ("not json", "not JSON"),
    ] {
        members[2].ws.send(bad).await?;
        members[2].ws.expect_error(what).await?;
    }
    members[2].ws.send_binary(vec![1, 2, 3]).await?;
    members[2].ws.expect_error("a binary frame").await?;
    // None of that reached anyone.
    nothing_pending(&mut members).await?;

    // Player 1 leaves: the others hear it, and the next player takes id 1.
    let mut gone = members.remove(0);
    gone.ws.close().await;
    for m in members.iter_mut() {
        let v = m.ws.expect_type("member-left").await?;
        ensure(v.get("id").and_then(Value::as_u64) == Some(1), || {
            format!("member {} expected member 1 to leave, got {v}", m.id)
        })?;
    }
    // A signal to the id that left is refused.
    members[0]
        .ws
        .send(r#"{"type":"signal","to":1,"data":{}}"#)
        .await?;
    members[0]
        .ws
        .expect_error("a signal to a member that left")
        .await?;
    let m = join(c, &code, "player", 1, &mut members).await?;
    members.push(m);
    // members: [host 0, player 2, spectator 8, player 1]

    // A spectator's done is its own leaving.
    members[2].ws.send(r#"{"type":"done"}"#).await?;
    members[2]
        .ws
        .expect_close(1000, "a spectator after done")
        .await?;
    let spectator = members.remove(2);
    drop(spectator);
    for m in members.iter_mut() {
        let v = m.ws.expect_type("member-left").await?;
        ensure(v.get("id").and_then(Value::as_u64) == Some(8), || {
            format!("member {} expected member 8 to leave, got {v}", m.id)
        })?;
    }
    // The host's done ends the room: everyone closed with 1000, then 404.
    members[0].ws.send(r#"{"type":"done"}"#).await?;
    for m in members.iter_mut() {
        m.ws.expect_close(1000, &format!("member {} after the host's done", m.id))
            .await?;
    }
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=player"), o, 404)
        .await?;
    Ok(None)
}

/// The rooms' rate per member: a player that signals the host more than
/// the minute's allowance in one burst is closed with 1008 (well before
/// its lifetime count of 400), the host receives exactly the allowance and
/// hears the player leave. Signals, not pings: a host may answer pings
/// without counting them (the Worker's auto-response).
pub async fn room_rate_cap(c: &Ctx) -> Result<Option<String>, String> {
    let rate = c.config.room_messages_per_minute;
    if rate == 0 {
        return Ok(Some("no room rate given".into()));
    }
    if rate >= signaling_protocol::limits::ROOM_MEMBER_MAX_MESSAGES {
        return Ok(Some("the rate is above a member's lifetime count".into()));
    }
    let code = create(c, 2, 0).await?;
    let mut members: Vec<Member> = Vec::new();
    let host = join(c, &code, "host", 0, &mut members).await?;
    members.push(host);
    let mut player = join(c, &code, "player", 1, &mut members).await?;
    for n in 0..=rate {
        player
            .ws
            .send(&json!({"type":"signal","to":0,"data":n}).to_string())
            .await?;
    }
    player
        .ws
        .expect_close(
            1008,
            &format!("signal {} of a minute allowing {rate}", rate + 1),
        )
        .await?;
    let host = &mut members[0].ws;
    for n in 0..rate {
        let v = host.expect_type("signal").await?;
        ensure(
            v.get("data").and_then(Value::as_u64) == Some(u64::from(n)),
            || format!("signal {n} arrived as {v}"),
        )?;
    }
    let v = host.expect_type("member-left").await?;
    ensure(v.get("id").and_then(Value::as_u64) == Some(1), || {
        format!("expected player 1 to leave, got {v}")
    })?;
    host.close().await;
    Ok(None)
}
