//! What HTTP asks of every answer and every connection, whatever the handler: a 401 names its
//! challenge (RFC 9110 §15.5.2; the Bearer scheme, RFC 6750 §3), a 405 keeps the `Allow` that
//! the router puts on it (RFC 9110 §15.5.6), and header names are read whatever their case
//! (RFC 9110 §5.1), as hyper reads them.
//!
//! It exists so that the faults breaking these rules happen in one place each: `headers` wraps
//! the whole router (the router's own `Allow` is set on the way out of a route, after any
//! route's middleware), and [`Connections`] wraps the listener, the one place a header name's
//! case is still on the wire. It never changes an answer's status or body.

use crate::fault::{Fault, FaultSet};
use crate::store::App;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Puts the challenge on a 401 (its realm the area's), and keeps or (under its fault) drops
/// the `Allow` of a 405.
pub async fn headers(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let banking = request.uri().path().starts_with("/embedded-banking");
    let mut response = next.run(request).await;
    match response.status() {
        StatusCode::UNAUTHORIZED => {
            let (fault, challenge) = match banking {
                true => (
                    Fault::BankChallengeMissing,
                    "Bearer realm=\"embedded-banking\"",
                ),
                false => (Fault::FinChallengeMissing, "Bearer realm=\"finops\""),
            };
            if !app.faults.has(fault) {
                let value = HeaderValue::from_static(challenge);
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, value);
            }
        }
        StatusCode::METHOD_NOT_ALLOWED if app.faults.has(Fault::AllowMissing) => {
            response.headers_mut().remove(header::ALLOW);
        }
        _ => {}
    }
    response
}

/// The reference's listener: a TCP listener whose connections read header names as hyper
/// does, or (under [`Fault::HeaderNamesCaseSensitive`]) drop `x-finops-version` whenever its
/// name comes in another case, as a hand-written parser comparing names as text would.
pub struct Connections {
    pub listener: TcpListener,
    pub faults: FaultSet,
}

impl axum::serve::Listener for Connections {
    type Io = Connection;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Connection, std::net::SocketAddr) {
        let (stream, addr) = axum::serve::Listener::accept(&mut self.listener).await;
        let connection = Connection {
            stream,
            faults: self.faults,
        };
        (connection, addr)
    }

    fn local_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }
}

/// One accepted connection (see [`Connections`]).
pub struct Connection {
    stream: TcpStream,
    faults: FaultSet,
}

/// The name the faulty parser knows, and what it makes of the name in another case: a header
/// of the same length that nothing reads.
const VERSION: &[u8] = b"x-finops-version:";
const UNREAD: &[u8] = b"x-finops-ignored:";

/// Renames, in bytes just read, each `x-finops-version` header whose name is not in lower
/// case, when the fault is on (a line that starts a header: after a CRLF).
fn case_sensitive_names(bytes: &mut [u8], faults: &FaultSet) {
    let mut at = 0;
    while let Some(found) = bytes[at..]
        .windows(VERSION.len() + 2)
        .position(|w| w.starts_with(b"\r\n") && w[2..].eq_ignore_ascii_case(VERSION))
    {
        let start = at + found + 2;
        let name = &mut bytes[start..start + VERSION.len()];
        if name != VERSION && faults.has(Fault::HeaderNamesCaseSensitive) {
            name.copy_from_slice(UNREAD);
        }
        at = start;
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        if !this.faults.is_empty() {
            case_sensitive_names(&mut buf.filled_mut()[before..], &this.faults);
        }
        poll
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, bytes)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
