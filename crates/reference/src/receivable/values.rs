//! A JSON value read as the integer, date or uuid it stands for, in the forms the spec states:
//! what the validator and the handlers of both areas share.

use crate::fault::{Fault, FaultSet};
use serde_json::Value;
use time::Date;
use uuid::Uuid;

/// An integer, including a float with no fraction (JSON Schema's notion of integer: 1.0, -0,
/// 1e2), held exactly as an i64; a float past 2^53 is refused, as it may not be the integer
/// sent. Under its fault, only what serde_json holds as an integer.
pub fn as_integer(faults: &FaultSet, value: &Value) -> Option<i64> {
    if let Some(n) = value.as_i64() {
        return Some(n);
    }
    if value.is_f64() && faults.has(Fault::IntegerFormsRefused) {
        return None;
    }
    value
        .as_f64()
        .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
        .map(|f| f as i64)
}

/// A non-negative integer past i64 as a binder into a signed 64-bit word reads it: modulo 2^64,
/// then as two's complement (2^63 is -2^63, 2^64 is 0); `None` for any other value.
pub fn wrapped(value: &Value) -> Option<i64> {
    const WORD: f64 = 18_446_744_073_709_551_616.0;
    match value.as_u64() {
        Some(n) => (n > i64::MAX as u64).then_some(n as i64),
        None => value
            .as_f64()
            .filter(|x| x.fract() == 0.0 && *x >= WORD / 2.0)
            .map(|x| (x % WORD) as u64 as i64),
    }
}

pub(super) fn uuid_array(value: &Value) -> Option<Vec<Uuid>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().and_then(parse_uuid))
        .collect()
}

/// A `YYYY-MM-DD` calendar date.
pub fn parse_date(s: &str) -> Option<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    if s.len() != 10 {
        return None;
    }
    Date::parse(s, &format).ok()
}

/// A uuid in its hyphenated 36-character form (the JSON Schema `uuid` format); the braced,
/// urn and simple forms `Uuid::parse_str` also takes are refused.
pub fn parse_uuid(s: &str) -> Option<Uuid> {
    if s.len() != 36 {
        return None;
    }
    Uuid::try_parse(s).ok()
}
