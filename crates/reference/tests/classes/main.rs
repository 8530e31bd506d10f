//! The reference on the classes of request values the suite sends (GEN-VALUE-CLASSES and its
//! neighbours): the clean server keeps the contract on each, and each fault of a class is seen
//! by a client holding only the profile, and not seen on the clean server. Requests go over
//! HTTP to a server on an ephemeral port, as a stranger's would (the engine's own tests,
//! tests/it/reference, prove the rest of the reference the same way).

mod clean;
mod faults;
mod wire;
