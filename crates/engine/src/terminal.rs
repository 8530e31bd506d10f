//! The terminal: what commands print to stdout and stderr.
//!
//! Every line goes through here so that a closed pipe (`covenant run | head`) is never an
//! error and never a panic: the output is dropped, the command carries on and exits as it would.
//!
//! A slow run may show a status line on stderr (the runner's progress). On a terminal it is
//! drawn in place, after the cursor, and erased before anything else is printed through this
//! module ([`note`], [`relay`]), then drawn again: the status never mixes with the other lines.
//! It must never reach a pipe's stdout: piped output stays byte for byte what it was.
//!
//! Colours and counted nouns are the reports' (`covenant_report::style`): the same words and
//! paint on the terminal as in every report.

use std::io::{IsTerminal, Write};
use std::sync::{Mutex, MutexGuard};

/// Writes to stdout, ignoring a closed pipe.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Writes a line to stderr, ignoring a closed pipe; a status line shown is erased first and
/// drawn again after it.
pub fn note(line: &str) {
    let mut status = status();
    let mut bytes = status.erase();
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    status.column = 0;
    bytes.extend(status.draw());
    let _ = std::io::stderr().lock().write_all(&bytes);
}

/// Shows `text` as the status line: drawn in place when stderr is a terminal, else printed as
/// one plain line (the caller decides how often).
pub fn show_status(text: &str) {
    let mut status = status();
    let mut stderr = std::io::stderr().lock();
    if !stderr.is_terminal() {
        let _ = writeln!(stderr, "{text}");
        return;
    }
    let width = terminal_width();
    if status.drawn > 0 && status.width == width && status.text.as_deref() == Some(text) {
        return;
    }
    let mut bytes = status.erase();
    status.width = width;
    status.text = Some(text.to_owned());
    bytes.extend(status.draw());
    let _ = stderr.write_all(&bytes).and_then(|()| stderr.flush());
}

/// Erases the status line for good.
pub fn clear_status() {
    let mut status = status();
    status.text = None;
    let bytes = status.erase();
    if !bytes.is_empty() {
        let _ = std::io::stderr().lock().write_all(&bytes);
    }
}

/// Writes `bytes` to stdout as they are, erasing the status line first and drawing it again
/// after: for output another part of the program prints to the same terminal (see [`Relay`]).
pub fn relay(bytes: &[u8]) {
    let mut status = status();
    let erase = status.erase();
    if !erase.is_empty() {
        let _ = std::io::stderr().lock().write_all(&erase);
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes).and_then(|()| stdout.flush());
    drop(stdout);
    status.advance(bytes);
    let draw = status.draw();
    if !draw.is_empty() {
        let _ = std::io::stderr().lock().write_all(&draw);
    }
}

/// The status line and what it needs to know of the terminal's cursor.
struct Status {
    text: Option<String>,
    /// Characters of the text on the screen now (0: none).
    drawn: usize,
    /// The cursor's column in its line, as what went through this module left it.
    column: usize,
    /// Columns of the terminal.
    width: usize,
    /// Inside an escape sequence of relayed output (colours), which moves no cursor.
    escape: Escape,
}

#[derive(Clone, Copy, PartialEq)]
enum Escape {
    None,
    Started,
    Csi,
}

/// The least room after the cursor in which a status line is drawn at all.
const MIN_ROOM: usize = 16;

static STATUS: Mutex<Status> = Mutex::new(Status::new());

fn status() -> MutexGuard<'static, Status> {
    STATUS.lock().unwrap_or_else(|e| e.into_inner())
}

impl Status {
    const fn new() -> Status {
        Status {
            text: None,
            drawn: 0,
            column: 0,
            width: 80,
            escape: Escape::None,
        }
    }

    /// The bytes that erase the status drawn: it stands after the cursor, which drawing left
    /// where it was, so erasing to the end of the line erases it and nothing else.
    fn erase(&mut self) -> Vec<u8> {
        if self.drawn == 0 {
            return Vec::new();
        }
        self.drawn = 0;
        b"\x1b[K".to_vec()
    }

    /// The bytes that draw the status after the cursor, cut to the room left in the line, and
    /// move the cursor back to where it was, so that what is printed next starts there.
    fn draw(&mut self) -> Vec<u8> {
        let room = self.width.saturating_sub(self.column + 1);
        let Some(text) = self.text.as_deref().filter(|_| room >= MIN_ROOM) else {
            return Vec::new();
        };
        let shown: String = text
            .chars()
            .filter(|c| !c.is_control())
            .take(room)
            .collect();
        self.drawn = shown.chars().count();
        if self.drawn == 0 {
            return Vec::new();
        }
        format!("{shown}\x1b[{}D", self.drawn).into_bytes()
    }

    /// Follows the cursor over bytes printed to the terminal: a new line or a carriage return
    /// goes back to column 0, a tab to the next multiple of 8, escape sequences move nothing,
    /// every other character one column (wrapping at the terminal's width).
    fn advance(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.escape = match (self.escape, b) {
                (Escape::None, 0x1b) => Escape::Started,
                (Escape::Started, b'[') => Escape::Csi,
                (Escape::Started, _) => Escape::None,
                (Escape::Csi, 0x40..=0x7e) => Escape::None,
                (Escape::Csi, _) => Escape::Csi,
                (Escape::None, b'\n' | b'\r') => {
                    self.column = 0;
                    Escape::None
                }
                (Escape::None, b'\t') => {
                    self.column = ((self.column / 8 + 1) * 8).min(self.width);
                    Escape::None
                }
                // The first byte of each character; UTF-8 continuation bytes and other
                // control bytes move nothing.
                (Escape::None, b) if b >= 0x20 && b != 0x7f && b & 0xc0 != 0x80 => {
                    self.column = if self.column >= self.width {
                        1
                    } else {
                        self.column + 1
                    };
                    Escape::None
                }
                (Escape::None, _) => Escape::None,
            };
        }
    }
}

/// Columns of the terminal on stderr: asked of the terminal, else `COLUMNS`, else 80.
fn terminal_width() -> usize {
    #[cfg(target_os = "linux")]
    {
        let mut size = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ writes one `winsize` into the struct it is given, which lives on
        // this stack frame; on a descriptor that is no terminal it fails and writes nothing.
        let asked = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) };
        if asked == 0 && size.ws_col > 0 {
            return usize::from(size.ws_col);
        }
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c > 0)
        .unwrap_or(80)
}

/// A pipe for output another part of the program prints by path (the runner's per-case lines,
/// `runner::execute`): a thread passes what it reads to [`relay`], so that those
/// lines and the status line share the terminal without mixing.
pub struct Relay {
    path: String,
    write_end: std::fs::File,
    reader: std::thread::JoinHandle<()>,
}

impl Relay {
    /// A pipe and its reader, or `None` where the platform cannot open a pipe by path.
    #[cfg(target_os = "linux")]
    pub fn start() -> Option<Relay> {
        use std::os::fd::FromRawFd;
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two new descriptors into the array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        // SAFETY: pipe2 just created both descriptors; nothing else owns them.
        let (read_end, write_end) = unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        };
        let path = format!("/dev/fd/{}", fds[1]);
        std::fs::OpenOptions::new().write(true).open(&path).ok()?;
        let reader = std::thread::Builder::new()
            .name("covenant-relay".into())
            .spawn(move || pump(read_end))
            .ok()?;
        Some(Relay {
            path,
            write_end,
            reader,
        })
    }

    #[cfg(not(target_os = "linux"))]
    pub fn start() -> Option<Relay> {
        None
    }

    /// The path that writes into the pipe.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Closes this end of the pipe and waits until everything written to it has been relayed;
    /// whoever opened [`Relay::path`] must have closed it.
    pub fn finish(self) {
        drop(self.write_end);
        let _ = self.reader.join();
    }
}

/// Passes what the pipe gives to [`relay`], until every writer has closed it.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn pump(mut pipe: std::fs::File) {
    use std::io::Read;
    let mut buffer = [0u8; 8192];
    loop {
        match pipe.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => relay(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(width: usize, text: &str) -> Status {
        Status {
            text: Some(text.to_owned()),
            width,
            ..Status::new()
        }
    }

    #[test]
    fn a_status_is_drawn_after_the_cursor_which_goes_back_where_it_was() {
        let mut s = status(80, "covenant: 3/~10 requests");
        assert_eq!(s.draw(), b"covenant: 3/~10 requests\x1b[24D");
        assert_eq!(s.erase(), b"\x1b[K", "erased to the end of the line");
        assert_eq!(s.erase(), b"", "erased once");
    }

    #[test]
    fn a_status_is_cut_to_the_room_left_in_the_line_and_not_drawn_without_room() {
        let mut s = status(40, &"x".repeat(100));
        s.advance(b"test a ... ");
        assert_eq!(s.column, 11);
        assert_eq!(s.draw(), format!("{}\x1b[28D", "x".repeat(28)).into_bytes());
        s.advance(&[b'.'; 20]);
        assert_eq!(s.draw(), b"", "8 columns left: too little room");
    }

    #[test]
    fn the_cursor_is_followed_over_lines_colours_tabs_and_multibyte_characters() {
        let mut s = status(80, "x");
        s.advance(b"test one ... ok\ntest two ... \x1b[32mok\x1b[0m");
        assert_eq!(s.column, 15);
        s.advance("\r\t\u{e9}\u{2014}".as_bytes());
        assert_eq!(s.column, 10);
        s.advance(b"\x1b");
        s.advance(b"[31m.");
        assert_eq!(
            s.column, 11,
            "an escape split across two writes moves nothing"
        );
    }

    #[test]
    fn without_a_status_nothing_is_drawn_or_erased() {
        let mut s = Status::new();
        assert!(s.draw().is_empty() && s.erase().is_empty());
    }
}
