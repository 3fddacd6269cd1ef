//! One WebSocket's life on the embedded server, the same for lobby, room
//! and relay sockets: a writer task drains the socket's queue, the reader
//! hands each frame to the socket's machine, and a client that never
//! answers the server's close is cut after a grace period.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;

/// What a socket's queue holds: frames to send, and the close that ends it.
pub(crate) trait Outbound: Send + 'static {
    /// The frame to send, or the close (code and reason) that ends the
    /// socket.
    fn into_frame(self) -> Result<Message, (u16, &'static str)>;
}

/// A frame the client sent.
pub(crate) enum Inbound<'a> {
    Text(&'a str),
    Binary(&'a Bytes),
}

/// The upgrade with reads capped at `cap` bytes: a longer message is
/// refused as soon as its frame header announces it, unread and unbuffered
/// (see [`serve`]). The WebSocket layer reads in chunks of 128 KiB by
/// default, kept for the socket's whole life; a chunk of the cap is enough.
pub(crate) fn capped(upgrade: WebSocketUpgrade, cap: usize) -> WebSocketUpgrade {
    upgrade
        .max_message_size(cap)
        .max_frame_size(cap)
        .read_buffer_size(cap)
}

/// Serves one upgraded socket until it ends: sends what arrives on `rx`
/// (dropping the sender closes the socket, a close ends it), passes every
/// frame the client sends to `on_frame`, and calls `on_too_big` once if the
/// client sends a message over the read cap (the WebSocket layer refused
/// it; nothing more can be read). Returns when the socket is over: closed
/// by either side, failed, or `close_grace` after the server's close went
/// unanswered. The caller then tells the machine that the socket is gone.
pub(crate) async fn serve<O: Outbound>(
    ws: WebSocket,
    mut rx: mpsc::Receiver<O>,
    close_grace: Duration,
    mut on_frame: impl FnMut(Inbound<'_>),
    on_too_big: impl FnOnce(),
) {
    let (mut sink, mut stream) = ws.split();
    // Tells the reader that the writer is done (it sent our close frame, or
    // the socket was dropped), so a client that never answers a close cannot
    // keep the connection open for ever.
    let (done_tx, mut done_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        while let Some(out) = rx.recv().await {
            match out.into_frame() {
                Ok(msg) => {
                    if sink.send(msg).await.is_err() {
                        break;
                    }
                }
                Err((code, reason)) => {
                    let frame = CloseFrame {
                        code,
                        reason: Utf8Bytes::from_static(reason),
                    };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    let _ = done_tx.send(());
                    return;
                }
            }
        }
        // The server dropped this socket without a reason (too slow).
        let _ = sink.close().await;
        let _ = done_tx.send(());
    });
    // Ends with true when the client sent a message over the read cap.
    let reader = async {
        while let Some(msg) = stream.next().await {
            match msg {
                Ok(Message::Text(text)) => on_frame(Inbound::Text(text.as_str())),
                Ok(Message::Binary(bytes)) => on_frame(Inbound::Binary(&bytes)),
                Ok(Message::Ping(_) | Message::Pong(_)) => {}
                Ok(Message::Close(_)) => return false,
                Err(e) if is_too_big(&e) => return true,
                Err(_) => return false,
            }
        }
        false
    };
    let grace = async {
        // Err: the writer ended without saying so; the same grace applies.
        let _ = (&mut done_rx).await;
        tokio::time::sleep(close_grace).await;
    };
    let too_big = tokio::select! {
        too_big = reader => too_big,
        () = grace => false,
    };
    if too_big {
        // To the machine it is a message over its cap, which it closes
        // with 1009 (telling whoever needs telling); let the writer send
        // that close.
        on_too_big();
        let _ = tokio::time::timeout(close_grace, done_rx).await;
    }
}

/// True for the WebSocket layer's refusal of a message or frame over the
/// configured maximum size.
fn is_too_big(e: &axum::Error) -> bool {
    use std::error::Error as _;
    use tokio_tungstenite::tungstenite::Error as WsError;
    matches!(
        e.source().and_then(|s| s.downcast_ref::<WsError>()),
        Some(WsError::Capacity(_))
    )
}
