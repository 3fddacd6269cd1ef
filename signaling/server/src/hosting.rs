//! Hosting the core's machines: shared state, carrying out actions, alarms
//! and per-socket writer channels.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use signaling_core::{
    Action, Event, Level, Lobby, LogRecord, Millis, RateLimiter, Room, RoomCode, SocketId,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::Config;

/// Frames queued per socket before it counts as too slow and is dropped.
pub(crate) const OUTBOX_LEN: usize = 1024;

/// What a socket's writer task is told to do.
#[derive(Debug)]
pub(crate) enum Out {
    Text(String),
    Close(u16, &'static str),
}

impl crate::socket::Outbound for Out {
    fn into_frame(self) -> Result<axum::extract::ws::Message, (u16, &'static str)> {
        match self {
            Out::Text(text) => Ok(axum::extract::ws::Message::Text(text.into())),
            Out::Close(code, reason) => Err((code, reason)),
        }
    }
}

pub(crate) type Outbox = mpsc::Sender<Out>;

/// A machine plus the writers of its sockets.
pub(crate) struct Hosted<M> {
    pub machine: M,
    pub outs: HashMap<SocketId, Outbox>,
    /// Rooms: the address (IPv6: its /64) that created it, for the per-IP
    /// cap on live rooms. Kept in memory only, never logged.
    pub owner: Option<std::net::IpAddr>,
}

/// Which machine an alarm or socket belongs to.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    /// A lobby, by its number in the directory.
    Lobby(usize),
    Room(RoomCode),
}

pub(crate) struct State {
    /// The lobbies of the directory ([`Config::lobbies`] of them).
    pub lobbies: Vec<Hosted<Lobby>>,
    pub rooms: HashMap<RoomCode, Hosted<Room>>,
    pub rate: RateLimiter<IpAddr>,
    /// WebSocket upgrades let through today ([`Config::daily_upgrades`]).
    pub budget: signaling_core::DailyBudget,
    /// Each client address's upgrades today
    /// ([`Config::daily_upgrades_per_ip`]), by its address key.
    pub address_budgets: signaling_core::AddressBudgets<IpAddr>,
}

/// Why an upgrade was not charged to the day's budgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BudgetSpent {
    /// The client's address used up its own day's allowance (429).
    Address,
    /// The service used up the day's allowance for everyone (503).
    Service,
}

/// State shared by every request and socket task.
pub(crate) struct Shared {
    pub config: Config,
    /// The `Content-Security-Policy` of the static files, when serving a
    /// folder: the page's policy with the inline scripts of its HTML
    /// files (read once, at start) allowed by hash.
    pub page_policy: Option<String>,
    start: Instant,
    state: Mutex<State>,
}

impl Shared {
    /// The shared state of a server with `config`; `tag_key` (random
    /// bytes) is the secret the lobby draws players' tags from.
    pub fn new(config: Config, tag_key: [u8; 32]) -> Shared {
        let page_policy = config.static_dir.as_deref().map(|dir| {
            signaling_core::headers::page_policy(&crate::page::inline_script_hashes(dir))
        });
        Shared {
            page_policy,
            start: Instant::now(),
            state: Mutex::new(State {
                lobbies: (0..config.lobbies.max(1))
                    .map(|n| Hosted {
                        machine: Lobby::new(config.lobby)
                            .with_tag_key(tag_key)
                            .with_number(u32::try_from(n).unwrap_or(u32::MAX)),
                        outs: HashMap::new(),
                        owner: None,
                    })
                    .collect(),
                rooms: HashMap::new(),
                rate: RateLimiter::new(config.rate_limit_per_minute),
                budget: signaling_core::DailyBudget::default(),
                address_budgets: signaling_core::AddressBudgets::default(),
            }),
            config,
        }
    }

    /// Counts one WebSocket upgrade from `ip` against the day's budgets
    /// (the address's own, then the service's), or says which is spent;
    /// nothing is counted then. Call it only for an upgrade the machine
    /// has said it would admit (`check_admission`), with the state locked
    /// until it is admitted, so that a refused upgrade costs nothing. The
    /// day is the wall clock's (UTC), unlike the rest of the server's
    /// time, which counts from its start.
    pub(crate) fn charge_upgrade_in(&self, st: &mut State, ip: IpAddr) -> Result<(), BudgetSpent> {
        let (service, per_ip) = (
            self.config.daily_upgrades,
            self.config.daily_upgrades_per_ip,
        );
        if service == 0 && per_ip == 0 {
            return Ok(());
        }
        let unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let key = signaling_core::address_key(ip);
        if !st.address_budgets.has_room(&key, unix_ms, per_ip) {
            return Err(BudgetSpent::Address);
        }
        if !st.budget.take(unix_ms, service) {
            return Err(BudgetSpent::Service);
        }
        st.address_budgets.take(key, unix_ms, per_ip);
        Ok(())
    }

    /// Milliseconds since the server started.
    pub fn now(&self) -> Millis {
        Millis(u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means a panic while holding it, which is a bug in
        // this crate; keep serving with the state as it is rather than
        // taking the whole server down.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn log(&self, record: LogRecord) {
        if record.level >= self.config.log_level {
            log_line(record);
        }
    }

    /// Delivers one event to a machine and carries out what it asks.
    pub fn deliver(self: &Arc<Self>, target: Target, event: Event<'_>) {
        let mut st = self.lock();
        self.deliver_locked(&mut st, target, event);
    }

    /// [`Shared::deliver`] with the state already locked.
    pub fn deliver_locked(self: &Arc<Self>, st: &mut State, target: Target, event: Event<'_>) {
        let now = self.now();
        match target {
            Target::Lobby(n) => {
                let Some(hosted) = st.lobbies.get_mut(n) else {
                    return;
                };
                let actions = hosted.machine.handle(event, now);
                self.apply(st, target, actions);
            }
            Target::Room(ref code) => {
                let Some(hosted) = st.rooms.get_mut(code) else {
                    return;
                };
                let actions = hosted.machine.handle(event, now);
                self.apply(st, target, actions);
            }
        }
    }

    /// A socket ended (closed by the client, failed, or never upgraded):
    /// tell its machine and drop its writer.
    pub fn socket_gone(self: &Arc<Self>, target: Target, socket: SocketId) {
        let mut st = self.lock();
        self.deliver_locked(&mut st, target.clone(), Event::Closed { socket });
        match target {
            Target::Lobby(n) => {
                if let Some(h) = st.lobbies.get_mut(n) {
                    h.outs.remove(&socket);
                }
            }
            Target::Room(code) => {
                if let Some(h) = st.rooms.get_mut(&code) {
                    h.outs.remove(&socket);
                }
            }
        }
    }

    /// Carries out a machine's actions while the state is locked. Sockets
    /// whose outbox is full are dropped and reported to the machine as
    /// closed.
    pub fn apply<A>(self: &Arc<Self>, st: &mut State, target: Target, actions: Vec<Action<A>>) {
        let mut slow = Vec::new();
        let mut finished = false;
        let outs = match target {
            Target::Lobby(n) => match st.lobbies.get_mut(n) {
                Some(h) => &mut h.outs,
                None => return,
            },
            Target::Room(ref code) => match st.rooms.get_mut(code) {
                Some(h) => &mut h.outs,
                None => return,
            },
        };
        for action in actions {
            match action {
                Action::Send { socket, text } => {
                    if let Some(out) = outs.get(&socket) {
                        if out.try_send(Out::Text(text)).is_err() {
                            slow.push(socket);
                        }
                    }
                }
                Action::Close {
                    socket,
                    code,
                    reason,
                } => {
                    if let Some(out) = outs.remove(&socket) {
                        // If the outbox is full the writer is stuck; dropping
                        // the sender below ends it all the same.
                        let _ = out.try_send(Out::Close(code, reason));
                    }
                }
                Action::Persist { .. } => {}
                Action::SetAlarm(at) => self.arm(target.clone(), at),
                Action::Log(record) => self.log(record),
                Action::Finished => finished = true,
            }
        }
        slow.sort_unstable();
        slow.dedup();
        for s in &slow {
            // Dropping the sender makes the writer close the socket.
            outs.remove(s);
        }
        if finished {
            if let Target::Room(code) = &target {
                st.rooms.remove(code);
            }
            return;
        }
        if !slow.is_empty() {
            self.log(LogRecord::new(Level::Warn, "socket.slow").with("count", slow.len()));
            for socket in slow {
                self.deliver_locked(st, target.clone(), Event::Closed { socket });
            }
        }
    }

    /// Schedules `Event::Alarm` for `target` at `at`. Stale alarms are
    /// harmless: the machines ignore alarms with nothing due.
    fn arm(self: &Arc<Self>, target: Target, at: Millis) {
        let shared = Arc::clone(self);
        let when = self.start + Duration::from_millis(at.0);
        tokio::spawn(async move {
            tokio::time::sleep_until(when).await;
            shared.deliver(target, Event::Alarm);
        });
    }
}

/// Writes one log record as a JSON line on standard error.
pub(crate) fn log_line(record: LogRecord) {
    eprintln!("{}", record.to_json_line());
}

/// A fixed word for an I/O error kind (never the error text, which may hold
/// addresses).
pub(crate) fn io_kind(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind::*;
    match e.kind() {
        AddrInUse => "addr_in_use",
        AddrNotAvailable => "addr_not_available",
        PermissionDenied => "permission_denied",
        ConnectionReset => "connection_reset",
        NotFound => "not_found",
        _ => "other",
    }
}
