//! The embedded banking area (`/embedded-banking/v1/...`) and the reference's own OAuth 2.0
//! client-credentials token endpoint (the spec does not show how tokens are obtained).
//!
//! Errors use the banking problem body; 403 is the variant without `errorCode`. Like the
//! finance handlers, these parse bodies and queries themselves and never panic on input.
//! What the banking handlers share has files of its own: the gate (bearer token, then the
//! organization header) and the caller it answers (`caller`), the banking error body and the
//! answers for no route and for a wrong method (`problem`).

mod caller;
mod oauth;
mod problem;
mod transactions;
mod velocity;

pub use caller::ORG_HEADER;
pub use oauth::token;
pub use problem::{method_not_allowed, route_not_found};
pub use transactions::list_transactions;
pub use velocity::create_velocity_control;

use caller::{gate, Caller};
use problem::error;
