//! Connection limits of the embedded server, applied as connections are
//! accepted: a cap on open connections overall and per client address (an
//! IPv6 address counts by its /64, which one subscriber usually holds
//! whole), and a deadline for a connection's first request headers.
//!
//! A connection over a cap is closed at once, unanswered. A connection that
//! has not sent a whole header block within the deadline gets a read error,
//! which ends it; after its first request this deadline no longer applies
//! (a lobby WebSocket may rightly stay quiet for minutes). A plain HTTP
//! connection idle between requests is closed by hyper's own header read
//! timeout instead (`Config::keep_alive_timeout`, see `Server::run`), which
//! ends with the HTTP part of a connection that becomes a WebSocket.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use signaling_core::{Level, LogRecord};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;

/// The limits; 0 (or a zero duration) turns each one off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnLimits {
    /// Open connections in all.
    pub max_connections: usize,
    /// Open connections from one address (IPv6: one /64).
    pub max_per_ip: usize,
    /// Time to send the first request's headers.
    pub header_timeout: Duration,
}

/// The key an address is counted under: itself for IPv4 (an IPv4-mapped
/// IPv6 address too), its /64 prefix for IPv6.
#[must_use]
pub fn ip_key(ip: IpAddr) -> IpAddr {
    signaling_core::address_key(ip)
}

#[derive(Default)]
struct Counts {
    total: usize,
    by_ip: HashMap<IpAddr, usize>,
}

/// A listener that applies [`ConnLimits`].
pub struct CappedListener {
    inner: TcpListener,
    limits: ConnLimits,
    counts: Arc<Mutex<Counts>>,
}

impl CappedListener {
    /// Wraps a bound listener.
    #[must_use]
    pub fn new(inner: TcpListener, limits: ConnLimits) -> CappedListener {
        CappedListener {
            inner,
            limits,
            counts: Arc::default(),
        }
    }

    /// Counts the connection in, or `None` when a cap is reached.
    fn admit(&self, ip: IpAddr) -> Option<Slot> {
        let key = ip_key(ip);
        let mut c = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let from_ip = c.by_ip.get(&key).copied().unwrap_or(0);
        let over_total = self.limits.max_connections != 0 && c.total >= self.limits.max_connections;
        let over_ip = self.limits.max_per_ip != 0 && from_ip >= self.limits.max_per_ip;
        if over_total || over_ip {
            let which = if over_total { "total" } else { "per_ip" };
            crate::hosting::log_line(
                LogRecord::new(Level::Warn, "conn.refused").with("cap", which),
            );
            return None;
        }
        c.total += 1;
        *c.by_ip.entry(key).or_insert(0) += 1;
        Some(Slot {
            key,
            counts: Arc::clone(&self.counts),
        })
    }
}

/// One counted connection; uncounted when dropped.
struct Slot {
    key: IpAddr,
    counts: Arc<Mutex<Counts>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut c = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.by_ip.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.by_ip.remove(&self.key);
            }
        }
    }
}

impl axum::serve::Listener for CappedListener {
    type Io = Conn;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Conn, SocketAddr) {
        loop {
            let (tcp, addr) = match self.inner.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    crate::hosting::log_line(
                        LogRecord::new(Level::Warn, "conn.accept_failed")
                            .with("io_error", crate::hosting::io_kind(&e)),
                    );
                    // Out of file descriptors and the like: give it a moment.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            // Signalling is many tiny messages; do not let Nagle's
            // algorithm hold them back waiting for ACKs.
            let _ = tcp.set_nodelay(true);
            let Some(slot) = self.admit(addr.ip()) else {
                drop(tcp);
                continue;
            };
            let header_deadline = (!self.limits.header_timeout.is_zero())
                .then(|| Box::pin(tokio::time::sleep(self.limits.header_timeout)));
            return (
                Conn {
                    tcp,
                    _slot: slot,
                    header_deadline,
                    tail: [0; 3],
                },
                addr,
            );
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// An accepted connection: the TCP stream, its place in the counts, and
/// the header deadline until the first header block has arrived.
pub struct Conn {
    tcp: TcpStream,
    _slot: Slot,
    header_deadline: Option<Pin<Box<Sleep>>>,
    /// The last three bytes read, to find `\r\n\r\n` across reads.
    tail: [u8; 3],
}

impl Conn {
    /// Looks for the end of the header block in newly read bytes.
    fn scan(&mut self, new: &[u8]) {
        let mut window: Vec<u8> = self.tail.to_vec();
        window.extend_from_slice(new);
        if window.windows(4).any(|w| w == b"\r\n\r\n") {
            self.header_deadline = None;
        }
        let keep = window.len().min(3);
        self.tail = [0; 3];
        self.tail[3 - keep..].copy_from_slice(&window[window.len() - keep..]);
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(deadline) = self.header_deadline.as_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                crate::hosting::log_line(LogRecord::new(Level::Warn, "conn.header_timeout"));
                return Poll::Ready(Err(io::ErrorKind::TimedOut.into()));
            }
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if self.header_deadline.is_some() {
            if let Poll::Ready(Ok(())) = polled {
                let new = buf.filled()[before..].to_vec();
                self.scan(&new);
            }
        }
        polled
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_counts_by_its_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(ip_key(a), ip_key(b));
        assert_ne!(ip_key(a), ip_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(ip_key(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }
}
