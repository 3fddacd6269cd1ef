//! Minimal HTTP and WebSocket clients for the suite, with deadlines on every
//! wait.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Where the service is and how to talk to it.
#[derive(Clone, Debug)]
pub struct Target {
    /// `host:port` to connect to.
    pub authority: String,
    /// Path prefix (no trailing slash), usually empty.
    pub prefix: String,
    /// How long any single wait may take.
    pub deadline: Duration,
    /// The local address to connect from, when not the system's choice
    /// (see [`Target::from_address`]).
    pub source: Option<IpAddr>,
}

/// An HTTP answer.
#[derive(Debug)]
pub struct HttpReply {
    /// Status code.
    pub status: u16,
    /// Body as text.
    pub body: String,
    /// `Access-Control-Allow-Origin`, if sent.
    pub allow_origin: Option<String>,
    /// Every header, names in lower case.
    pub headers: Vec<(String, String)>,
}

impl HttpReply {
    /// A header's value, if sent (the name in lower case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_str(&self.body)
            .map_err(|e| format!("body is not JSON ({e}): {:?}", self.body))
    }

    /// Checks the status and that the body is `{"error": "<non-empty>"}`.
    pub fn expect_error(&self, status: u16, what: &str) -> Result<(), String> {
        if self.status != status {
            return Err(format!(
                "{what}: expected HTTP {status}, got {} {:?}",
                self.status, self.body
            ));
        }
        let v = self.json().map_err(|e| format!("{what}: {e}"))?;
        match v.get("error").and_then(Value::as_str) {
            Some(s) if !s.is_empty() => Ok(()),
            _ => Err(format!(
                "{what}: expected {{\"error\": ...}}, got {}",
                self.body
            )),
        }
    }
}

impl Target {
    /// Parses `http://host:port[/prefix]`.
    pub fn parse(base_url: &str, deadline: Duration) -> Result<Target, String> {
        let rest = base_url
            .strip_prefix("http://")
            .ok_or_else(|| format!("base URL must start with http:// (got {base_url:?})"))?;
        let (authority, prefix) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
            None => (rest, ""),
        };
        if authority.is_empty() {
            return Err("base URL has no host".into());
        }
        let authority = if authority.contains(':') {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        Ok(Target {
            authority,
            prefix: prefix.to_owned(),
            deadline,
            source: None,
        })
    }

    /// The same service, reached from another local address (a loopback
    /// address such as `127.0.0.7`, to stand for another client of a host
    /// on loopback). Each request also carries that address in
    /// `CF-Connecting-IP`, which is where the Worker reads its client's
    /// address: Cloudflare's edge sets it in production, and `wrangler dev`
    /// keeps one the client sent. The embedded server ignores the header
    /// and sees the connection's own source address.
    #[must_use]
    pub fn from_address(&self, source: IpAddr) -> Target {
        Target {
            source: Some(source),
            ..self.clone()
        }
    }

    /// True when the service is on an IPv4 loopback address, so that the
    /// suite can reach it from other loopback addresses.
    #[must_use]
    pub fn is_loopback_v4(&self) -> bool {
        self.authority
            .rsplit_once(':')
            .and_then(|(host, _)| host.parse::<std::net::Ipv4Addr>().ok())
            .is_some_and(|ip| ip.is_loopback())
    }

    /// A TCP connection to the service, from [`Target::source`] if set.
    async fn connect(&self) -> Result<TcpStream, String> {
        let tcp = match self.source {
            None => TcpStream::connect(&self.authority).await,
            Some(source) => {
                let remote: SocketAddr = tokio::net::lookup_host(&self.authority)
                    .await
                    .map_err(|e| format!("resolve {}: {e}", self.authority))?
                    .find(|a| a.is_ipv4() == source.is_ipv4())
                    .ok_or_else(|| format!("{} has no address like {source}", self.authority))?;
                let socket = if source.is_ipv4() {
                    TcpSocket::new_v4()
                } else {
                    TcpSocket::new_v6()
                }
                .map_err(|e| format!("socket: {e}"))?;
                socket
                    .bind(SocketAddr::new(source, 0))
                    .map_err(|e| format!("bind {source}: {e}"))?;
                socket.connect(remote).await
            }
        }
        .map_err(|e| format!("connect {}: {e}", self.authority))?;
        let _ = tcp.set_nodelay(true);
        Ok(tcp)
    }

    /// One HTTP/1.1 request on a fresh connection.
    pub async fn http(
        &self,
        method: &str,
        path: &str,
        origin: Option<&str>,
    ) -> Result<HttpReply, String> {
        self.http_with(method, path, origin, &[]).await
    }

    /// One HTTP/1.1 request with extra headers, on a fresh connection.
    pub async fn http_with(
        &self,
        method: &str,
        path: &str,
        origin: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Result<HttpReply, String> {
        let fut = async {
            let tcp = self.connect().await?;
            let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
                .await
                .map_err(|e| format!("HTTP handshake: {e}"))?;
            tokio::spawn(conn);
            let mut req = Request::builder()
                .method(method)
                .uri(format!("{}{path}", self.prefix))
                .header("host", &self.authority)
                .header("content-length", "0");
            if let Some(o) = origin {
                req = req.header("origin", o);
            }
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            if let Some(source) = self.source {
                req = req.header("cf-connecting-ip", source.to_string());
            }
            let req = req
                .body(Empty::<Bytes>::new())
                .map_err(|e| format!("request: {e}"))?;
            let resp = sender
                .send_request(req)
                .await
                .map_err(|e| format!("{method} {path}: {e}"))?;
            let status = resp.status().as_u16();
            let allow_origin = resp
                .headers()
                .get("access-control-allow-origin")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let headers = resp
                .headers()
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            let body = resp
                .into_body()
                .collect()
                .await
                .map_err(|e| format!("{method} {path} body: {e}"))?
                .to_bytes();
            Ok(HttpReply {
                status,
                body: String::from_utf8_lossy(&body).into_owned(),
                allow_origin,
                headers,
            })
        };
        timeout(self.deadline, fut)
            .await
            .map_err(|_| format!("{method} {path}: no answer within {:?}", self.deadline))?
    }

    /// Opens a WebSocket; `Err(Refused)` carries the HTTP answer when the
    /// upgrade was refused.
    pub async fn ws(&self, path: &str, origin: Option<&str>) -> Result<Ws, WsOpenError> {
        let url = format!("ws://{}{}{path}", self.authority, self.prefix);
        let mut req = url
            .as_str()
            .into_client_request()
            .map_err(|e| WsOpenError::Other(format!("bad URL {url}: {e}")))?;
        if let Some(o) = origin {
            let v = HeaderValue::from_str(o)
                .map_err(|e| WsOpenError::Other(format!("bad origin: {e}")))?;
            req.headers_mut().insert("origin", v);
        }
        if let Some(source) = self.source {
            let v = HeaderValue::from_str(&source.to_string())
                .map_err(|e| WsOpenError::Other(format!("bad address: {e}")))?;
            req.headers_mut().insert("cf-connecting-ip", v);
        }
        let tcp = match timeout(self.deadline, self.connect()).await {
            Ok(Ok(tcp)) => tcp,
            Ok(Err(e)) => return Err(WsOpenError::Other(e)),
            Err(_) => {
                return Err(WsOpenError::Other(format!(
                    "{path}: no connection within {:?}",
                    self.deadline
                )))
            }
        };
        let fut =
            tokio_tungstenite::client_async_with_config(req, MaybeTlsStream::Plain(tcp), None);
        match timeout(self.deadline, fut).await {
            Err(_) => Err(WsOpenError::Other(format!(
                "{path}: no upgrade within {:?}",
                self.deadline
            ))),
            Ok(Ok((stream, _))) => Ok(Ws {
                stream,
                deadline: self.deadline,
                path: path.to_owned(),
            }),
            Ok(Err(WsError::Http(resp))) => {
                let status = resp.status().as_u16();
                let body = resp
                    .body()
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default();
                if !body.is_empty() {
                    return Err(WsOpenError::Refused(HttpReply {
                        status,
                        body,
                        allow_origin: None,
                        headers: Vec::new(),
                    }));
                }
                // tungstenite keeps only the body bytes that arrived with the
                // headers; proxies (wrangler dev, for one) send them apart.
                // Every refusal is idempotent, so ask again over plain HTTP
                // with the same upgrade headers and read the whole answer.
                let key = tokio_tungstenite::tungstenite::handshake::client::generate_key();
                let upgrade_headers = [
                    ("connection", "Upgrade"),
                    ("upgrade", "websocket"),
                    ("sec-websocket-version", "13"),
                    ("sec-websocket-key", key.as_str()),
                ];
                let again = self
                    .http_with("GET", path, origin, &upgrade_headers)
                    .await
                    .map_err(WsOpenError::Other)?;
                if again.status != status {
                    return Err(WsOpenError::Other(format!(
                        "{path}: refused with {status}, then {} when asked again",
                        again.status
                    )));
                }
                Err(WsOpenError::Refused(again))
            }
            Ok(Err(e)) => Err(WsOpenError::Other(format!("{path}: {e}"))),
        }
    }

    /// Opens a WebSocket that must succeed.
    pub async fn ws_ok(&self, path: &str, origin: Option<&str>) -> Result<Ws, String> {
        self.ws(path, origin).await.map_err(|e| match e {
            WsOpenError::Refused(r) => {
                format!("{path}: upgrade refused with {} {}", r.status, r.body)
            }
            WsOpenError::Other(s) => s,
        })
    }

    /// Opens a WebSocket that must be refused with `status` and a JSON error.
    pub async fn ws_refused(
        &self,
        path: &str,
        origin: Option<&str>,
        status: u16,
    ) -> Result<(), String> {
        match self.ws(path, origin).await {
            Ok(mut ws) => {
                ws.close().await;
                Err(format!(
                    "{path}: expected HTTP {status}, but the upgrade succeeded"
                ))
            }
            Err(WsOpenError::Refused(r)) => r.expect_error(status, path),
            Err(WsOpenError::Other(e)) => Err(e),
        }
    }
}

/// Why a WebSocket did not open.
#[derive(Debug)]
pub enum WsOpenError {
    /// The server answered the upgrade with an HTTP error.
    Refused(HttpReply),
    /// Anything else (connection, timeout).
    Other(String),
}

/// Something received on a WebSocket.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A text frame.
    Text(String),
    /// The server closed the socket (code, or `None` without a close frame).
    Closed(Option<u16>),
}

/// Something received on a WebSocket, binary frames included.
#[derive(Debug, PartialEq)]
pub enum AnyFrame {
    /// A text frame.
    Text(String),
    /// A binary frame.
    Binary(Vec<u8>),
    /// The server closed the socket (code, or `None` without a close frame).
    Closed(Option<u16>),
}

/// A connected WebSocket.
pub struct Ws {
    stream: WebSocketStream<MaybeTlsStream<TcpStream>>,
    deadline: Duration,
    path: String,
}

impl Ws {
    /// Sends a text frame.
    pub async fn send(&mut self, text: &str) -> Result<(), String> {
        timeout(self.deadline, self.stream.send(Message::text(text)))
            .await
            .map_err(|_| format!("{}: send timed out", self.path))?
            .map_err(|e| format!("{}: send failed: {e}", self.path))
    }

    /// Sends a binary frame.
    pub async fn send_binary(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        timeout(self.deadline, self.stream.send(Message::binary(bytes)))
            .await
            .map_err(|_| format!("{}: send timed out", self.path))?
            .map_err(|e| format!("{}: send failed: {e}", self.path))
    }

    /// The next text frame or the close, waiting at most `wait`.
    pub async fn next_within(&mut self, wait: Duration) -> Result<Frame, String> {
        let fut = async {
            loop {
                match self.stream.next().await {
                    None => return Frame::Closed(None),
                    Some(Ok(Message::Text(t))) => return Frame::Text(t.as_str().to_owned()),
                    Some(Ok(Message::Binary(_))) => return Frame::Text("<binary frame>".into()),
                    Some(Ok(Message::Close(f))) => {
                        return Frame::Closed(f.map(|f| u16::from(f.code)))
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(_)) => return Frame::Closed(None),
                }
            }
        };
        timeout(wait, fut)
            .await
            .map_err(|_| format!("{}: nothing received within {wait:?}", self.path))
    }

    /// The next frame of either kind, or the close (relay sockets carry
    /// binary frames).
    pub async fn next_any(&mut self) -> Result<AnyFrame, String> {
        let fut = async {
            loop {
                match self.stream.next().await {
                    None => return AnyFrame::Closed(None),
                    Some(Ok(Message::Text(t))) => return AnyFrame::Text(t.as_str().to_owned()),
                    Some(Ok(Message::Binary(b))) => return AnyFrame::Binary(b.to_vec()),
                    Some(Ok(Message::Close(f))) => {
                        return AnyFrame::Closed(f.map(|f| u16::from(f.code)))
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(_)) => return AnyFrame::Closed(None),
                }
            }
        };
        timeout(self.deadline, fut)
            .await
            .map_err(|_| format!("{}: nothing received within {:?}", self.path, self.deadline))
    }

    /// The next frame, which must be binary.
    pub async fn binary(&mut self) -> Result<Vec<u8>, String> {
        match self.next_any().await? {
            AnyFrame::Binary(b) => Ok(b),
            other => Err(format!(
                "{}: expected a binary frame, got {other:?}",
                self.path
            )),
        }
    }

    /// The next text frame or the close.
    pub async fn next(&mut self) -> Result<Frame, String> {
        self.next_within(self.deadline).await
    }

    /// The next frame, which must be text.
    pub async fn text(&mut self) -> Result<String, String> {
        match self.next().await? {
            Frame::Text(t) => Ok(t),
            Frame::Closed(c) => Err(format!(
                "{}: closed ({c:?}) while waiting for a message",
                self.path
            )),
        }
    }

    /// The next frame, which must be a JSON object.
    pub async fn json(&mut self) -> Result<Value, String> {
        let t = self.text().await?;
        serde_json::from_str(&t).map_err(|e| format!("{}: not JSON ({e}): {t}", self.path))
    }

    /// The next frame must be a JSON message of this `type`.
    pub async fn expect_type(&mut self, kind: &str) -> Result<Value, String> {
        let v = self.json().await?;
        if v.get("type").and_then(Value::as_str) == Some(kind) {
            Ok(v)
        } else {
            Err(format!(
                "{}: expected a {kind:?} message, got {v}",
                self.path
            ))
        }
    }

    /// The next frame must be `{"type":"error","reason":<non-empty>}`.
    pub async fn expect_error(&mut self, what: &str) -> Result<(), String> {
        let v = self.json().await.map_err(|e| format!("{what}: {e}"))?;
        let ok = v.get("type").and_then(Value::as_str) == Some("error")
            && v.get("reason")
                .and_then(Value::as_str)
                .is_some_and(|r| !r.is_empty());
        if ok {
            Ok(())
        } else {
            Err(format!("{what}: expected an error message, got {v}"))
        }
    }

    /// The next frame must be the server closing with `code`.
    pub async fn expect_close(&mut self, code: u16, what: &str) -> Result<(), String> {
        self.expect_close_within(code, self.deadline, what).await
    }

    /// Like [`Ws::expect_close`] with a custom wait.
    pub async fn expect_close_within(
        &mut self,
        code: u16,
        wait: Duration,
        what: &str,
    ) -> Result<(), String> {
        match self.next_within(wait).await? {
            Frame::Closed(Some(c)) if c == code => Ok(()),
            other => Err(format!("{what}: expected close {code}, got {other:?}")),
        }
    }

    /// Nothing arrives until the next frame we know is coming: sends nothing,
    /// reads the next frame and checks it is `expected_type`. Used to prove
    /// that an unwanted message did NOT arrive before it.
    pub async fn next_is(&mut self, expected_type: &str) -> Result<Value, String> {
        self.expect_type(expected_type).await
    }

    /// Closes from our side and waits for the server's answer.
    pub async fn close(&mut self) {
        let frame = CloseFrame {
            code: CloseCode::Normal,
            reason: "".into(),
        };
        let _ = timeout(self.deadline, self.stream.close(Some(frame))).await;
        let _ = timeout(self.deadline, async {
            while let Some(Ok(_)) = self.stream.next().await {}
        })
        .await;
    }
}
