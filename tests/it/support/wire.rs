//! A stand-in at the wire: a bare TCP server in front of another target that answers every
//! request with the same meaning in a wire shape of its own choosing (gzip asked or not,
//! chunked, HTTP/1.0, `Connection: close`). The HTTP libraries of the other stand-ins choose
//! their framing themselves; this one writes each answer's bytes as the shape says, so that a
//! test sees covenant read every framing a target may use.

use std::io::Write;
use std::path::{Path, PathBuf};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// When an answer's body is gzip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gzip {
    Never,
    /// Only when the request's `Accept-Encoding` names gzip.
    WhenAsked,
    /// Whatever the request asked.
    Always,
}

/// How every answer goes over the wire.
#[derive(Debug, Clone, Copy)]
pub struct WireShape {
    pub gzip: Gzip,
    /// The body in small chunks (`Transfer-Encoding: chunked`), no length given.
    pub chunked: bool,
    /// An HTTP/1.0 answer, its body read until the connection closes.
    pub http10: bool,
    /// `Connection: close` on every answer, and the connection closed after it.
    pub close: bool,
}

impl WireShape {
    pub const PLAIN: WireShape = WireShape {
        gzip: Gzip::Never,
        chunked: false,
        http10: false,
        close: false,
    };
}

/// Puts a front answering in `shape` before the target of the profile at `profile`; the path of
/// the front's profile, `dir/NAME.toml` (the same profile with the front's base URL).
pub fn in_front(
    rt: &tokio::runtime::Runtime,
    profile: &Path,
    dir: &Path,
    name: &str,
    shape: WireShape,
) -> PathBuf {
    let text = std::fs::read_to_string(profile).expect("the profile behind");
    let behind = text
        .lines()
        .find_map(|line| line.strip_prefix("base_url = "))
        .map(|quoted| quoted.trim().trim_matches('"').to_owned())
        .expect("a base_url in the profile behind");
    let listener = rt
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind the front");
    let front = format!("http://{}", listener.local_addr().expect("an address"));
    let client = super::http()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let to = behind.clone();
    rt.spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (client, to) = (client.clone(), to.clone());
            tokio::spawn(async move { connection(stream, &client, &to, shape).await });
        }
    });
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text.replace(&behind, &front)).expect("write the profile");
    path
}

/// A request as read off the wire.
struct WireRequest {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl WireRequest {
    fn header(&self, name: &str) -> Option<&str> {
        let found = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name));
        found.map(|(_, v)| v.as_str())
    }
}

/// Serves one connection: requests one after another while the shape keeps it open.
async fn connection(stream: TcpStream, client: &reqwest::Client, behind: &str, shape: WireShape) {
    let _ = stream.set_nodelay(true);
    let mut stream = BufReader::new(stream);
    while let Some(asked) = read_request(&mut stream).await {
        let answer = ask_behind(client, behind, &asked).await;
        let bytes = framed(&asked, answer, shape);
        if stream.get_mut().write_all(&bytes).await.is_err() {
            return;
        }
        if shape.http10 || shape.close {
            let _ = stream.get_mut().shutdown().await;
            return;
        }
    }
}

async fn read_request(stream: &mut BufReader<TcpStream>) -> Option<WireRequest> {
    let mut line = String::new();
    stream.read_line(&mut line).await.ok().filter(|n| *n > 0)?;
    let mut words = line.split_whitespace();
    let method = words.next()?.to_owned();
    let target = words.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        stream.read_line(&mut line).await.ok().filter(|n| *n > 0)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let mut asked = WireRequest {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    let length: usize = asked
        .header("content-length")
        .map_or(Some(0), |n| n.parse().ok())?;
    asked.body = vec![0; length];
    stream.read_exact(&mut asked.body).await.ok()?;
    Some(asked)
}

/// The answer behind: its status, headers and body.
async fn ask_behind(
    client: &reqwest::Client,
    behind: &str,
    asked: &WireRequest,
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let method = reqwest::Method::from_bytes(asked.method.as_bytes()).expect("a method");
    let mut sent = client
        .request(method, format!("{behind}{}", asked.target))
        .body(asked.body.clone());
    for (name, value) in &asked.headers {
        let hop = ["host", "content-length", "connection", "accept-encoding"];
        if !hop.iter().any(|h| name.eq_ignore_ascii_case(h)) {
            sent = sent.header(name, value);
        }
    }
    let answer = sent.send().await.expect("the target behind answers");
    let status = answer.status().as_u16();
    let headers = answer
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let body = answer.bytes().await.unwrap_or_default().to_vec();
    (status, headers, body)
}

/// The answer's bytes in `shape`.
fn framed(
    asked: &WireRequest,
    (status, headers, body): (u16, Vec<(String, String)>, Vec<u8>),
    shape: WireShape,
) -> Vec<u8> {
    let no_body = asked.method == "HEAD" || status == 204 || status == 304;
    let gzip_asked = asked
        .header("accept-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("gzip"));
    let gzip = !no_body
        && match shape.gzip {
            Gzip::Never => false,
            Gzip::WhenAsked => gzip_asked,
            Gzip::Always => true,
        };
    let body = if gzip { gzipped(&body) } else { body };
    let version = if shape.http10 { "HTTP/1.0" } else { "HTTP/1.1" };
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Other");
    let mut out = format!("{version} {status} {reason}\r\n");
    let framing = [
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
    ];
    for (name, value) in &headers {
        if !framing.iter().any(|f| name.eq_ignore_ascii_case(f)) {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    if gzip {
        out.push_str("content-encoding: gzip\r\nvary: accept-encoding\r\n");
    }
    if shape.http10 || shape.close {
        out.push_str("connection: close\r\n");
    }
    let mut bytes = Vec::new();
    if no_body {
        out.push_str("\r\n");
        bytes.extend_from_slice(out.as_bytes());
    } else if shape.chunked && !shape.http10 {
        out.push_str("transfer-encoding: chunked\r\n\r\n");
        bytes.extend_from_slice(out.as_bytes());
        for chunk in body.chunks(7) {
            bytes.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            bytes.extend_from_slice(chunk);
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(b"0\r\n\r\n");
    } else if shape.http10 {
        // No length: the body ends where the connection does.
        out.push_str("\r\n");
        bytes.extend_from_slice(out.as_bytes());
        bytes.extend_from_slice(&body);
    } else {
        out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
        bytes.extend_from_slice(out.as_bytes());
        bytes.extend_from_slice(&body);
    }
    bytes
}

fn gzipped(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("in memory");
    encoder.finish().expect("in memory")
}
