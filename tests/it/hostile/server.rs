//! A misbehaving HTTP/1.1 server for the hostile-target tests: raw bytes on a tokio
//! `TcpListener`, so that it can break the protocol where a real framework would not let it.
//! It records every request it sees (method, path, headers, arrival time) and answers each with
//! whatever the test's router says, one request per connection.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub at: Instant,
}

impl Received {
    /// A read of covenant's preflight (it names itself in its user-agent).
    pub fn is_preflight(&self) -> bool {
        self.header("user-agent")
            .is_some_and(|agent| agent.contains("(preflight)"))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum HostileReply {
    /// A well-formed response with a true Content-Length.
    Full {
        status: u16,
        content_type: Option<&'static str>,
        extra: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// These bytes, verbatim, then the connection closes.
    Raw(Vec<u8>),
    /// Headers promising 1000 bytes, 100 of them, then a TCP reset.
    ResetMidBody,
    /// Headers promising 1000 bytes, then one byte every 200 ms, forever.
    Drip,
    /// A body without length, 64 KiB at a time until the client hangs up.
    Endless,
    /// Read the request and never answer.
    Hang,
}

impl HostileReply {
    /// A JSON answer; a 401 challenges, as HTTP requires (RFC 9110 §15.5.2).
    pub fn json(status: u16, body: &str) -> HostileReply {
        let reply = HostileReply::Full {
            status,
            content_type: Some("application/json"),
            extra: Vec::new(),
            body: body.as_bytes().to_vec(),
        };
        match status {
            401 => reply.with_header("www-authenticate", "Bearer"),
            _ => reply,
        }
    }
    pub fn not_found() -> HostileReply {
        HostileReply::json(404, r#"{"error":{"message":"not found"}}"#)
    }
    pub fn typed(status: u16, content_type: &'static str, body: &[u8]) -> HostileReply {
        HostileReply::Full {
            status,
            content_type: Some(content_type),
            extra: Vec::new(),
            body: body.to_vec(),
        }
    }
    pub fn with_header(mut self, name: &str, value: &str) -> HostileReply {
        if let HostileReply::Full { extra, .. } = &mut self {
            extra.push((name.to_owned(), value.to_owned()));
        }
        self
    }
}

pub type Router = Arc<dyn Fn(&Received, usize) -> HostileReply + Send + Sync>;

/// A running hostile server.
pub struct Hostile {
    pub port: u16,
    seen: Arc<Mutex<Vec<Received>>>,
}

impl Hostile {
    /// Starts a server; `route` gets each request and how many times a request with the same
    /// method and path arrived before it.
    pub async fn start(
        route: impl Fn(&Received, usize) -> HostileReply + Send + Sync + 'static,
    ) -> Hostile {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let route: Router = Arc::new(route);
        let log = seen.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, route.clone(), log.clone()));
            }
        });
        Hostile { port, seen }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request seen so far.
    pub fn seen(&self) -> Vec<Received> {
        self.seen.lock().expect("log lock").clone()
    }

    /// Requests seen, the reachability probe (`GET /`) and the preflight's reads left out.
    pub fn seen_by_cases(&self) -> Vec<Received> {
        self.seen()
            .into_iter()
            .filter(|s| s.path != "/" && !s.is_preflight())
            .collect()
    }
}

async fn serve(mut stream: TcpStream, route: Router, log: Arc<Mutex<Vec<Received>>>) {
    let Some(seen) = read_request(&mut stream).await else {
        return;
    };
    let repeat = {
        let mut log = log.lock().expect("log lock");
        let n = log
            .iter()
            .filter(|s| s.method == seen.method && s.path == seen.path)
            .count();
        log.push(seen.clone());
        n
    };
    let reply = route(&seen, repeat);
    let _ = answer(&mut stream, reply).await;
}

async fn read_request(stream: &mut TcpStream) -> Option<Received> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf[0] == 0x16 {
            // A TLS ClientHello: answer as a plain HTTP server would.
            let _ = stream
                .write_all(
                    b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
                )
                .await;
            return None;
        }
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut have = buf.len() - head_end;
    while have < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        have += n;
    }
    Some(Received {
        method,
        path,
        headers,
        at: Instant::now(),
    })
}

async fn answer(stream: &mut TcpStream, reply: HostileReply) -> std::io::Result<()> {
    match reply {
        HostileReply::Full {
            status,
            content_type,
            extra,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nconnection: close\r\ncontent-length: {}\r\n",
                body.len()
            );
            if let Some(ct) = content_type {
                head.push_str(&format!("content-type: {ct}\r\n"));
            }
            for (n, v) in extra {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str("\r\n");
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(&body).await?;
        }
        HostileReply::Raw(bytes) => stream.write_all(&bytes).await?,
        HostileReply::ResetMidBody => {
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n")
                .await?;
            stream.write_all(&[b' '; 100]).await?;
            stream.flush().await?;
            tokio::time::sleep(Duration::from_millis(50)).await;
            stream.set_zero_linger()?;
            return Ok(());
        }
        HostileReply::Drip => {
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n")
                .await?;
            loop {
                stream.write_all(b" ").await?;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
        HostileReply::Endless => {
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n")
                .await?;
            let block = vec![b' '; 64 * 1024];
            loop {
                stream.write_all(&block).await?;
            }
        }
        HostileReply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
    }
    stream.flush().await?;
    let _ = stream.shutdown().await;
    Ok(())
}
