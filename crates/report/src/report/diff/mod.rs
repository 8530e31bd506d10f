//! The behaviour diff: where two targets, run with one seed and one plan, answered differently,
//! case by case (status, body, set of fields, field types, page sizes, error codes) and gap by gap
//! (what each chose where the spec is silent).
//!
//! Both may keep the contract: the diff judges nothing, it shows where a replacement (or a new
//! version) behaves otherwise. It reads the shapes each case recorded, never a value of a body,
//! so generated ids, timestamps and texts are never differences. One module serves `covenant run
//! --profile A --profile B` and `covenant compare` of two saved reports alike.

//!
//! [`facts`] holds the diff as data (what the JSON of a diff holds) and groups its facts;
//! [`compute`] works it out from two records; the report's views word it.

mod compute;
mod facts;

pub use compute::behaviour_diff;
pub(super) use compute::{notes, side};
pub use facts::{
    Alike, Aspect, BehaviourDiff, Difference, GapDifference, NotCompared, OperationDifferences,
    Side,
};
