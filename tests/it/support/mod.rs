//! What the integration tests share, as ripgrep's one test target shares its command builder:
//! the real binary as a new user runs it, scratch directories, the runtime that serves stand-ins,
//! and the stand-in servers themselves (`standin`), which play implementations with other choices.

mod binary;
mod scratch;
mod serving;
pub mod standin;
pub mod wire;

pub use binary::{covenant, says, CONVENTIONS};
pub use scratch::scratch;
pub use serving::{http, runtime};
