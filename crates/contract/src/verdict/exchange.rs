//! One request as sent (secrets redacted) and the response it got, as reports keep them.

use serde::{Deserialize, Serialize};

/// A request as sent, secrets redacted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestRecord {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The same request as a curl command line, secrets redacted.
    pub curl: String,
}

/// A response as received (body truncated for reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseRecord {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Whether `body` was cut short for the record.
    #[serde(default)]
    pub truncated: bool,
}

/// One request and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub request: RequestRecord,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseRecord>,
    /// A transport error instead of a response (refused, reset, timeout, oversized body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: f64,
    /// Retries made before this outcome: a GET after a 5xx or a transport error, any request
    /// after a rate-limit answer.
    #[serde(default)]
    pub retries: u32,
}
