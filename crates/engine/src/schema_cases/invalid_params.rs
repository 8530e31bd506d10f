//! Generated parameter cases: invalid path, query and header values of every operation, drawn
//! from the parameter schemas of `schemas/operations.json`, each labelled with the inventoried
//! constraint it breaks (`crate::generate::Inventory`); each must be refused (with the status
//! the table states where it states one), never a 5xx.
//!
//! Each value is put alone in the operation's harmless request ([`crate::case::harmless`]: the
//! profile's fixtures for a read, ids that name nothing for a write), so a value wrongly taken
//! changes nothing the suite needs. A header every operation of an area carries is broken once,
//! on the operation the inventory names for it (the first list that takes it): the same
//! header breached under every operation would repeat one question many times.

use crate::case::{case_fn, harmless, Case, CaseCx, Given, Outcome, Outgoing, WINDOW};
use crate::client::Request;
use crate::generate::{param_breaches, Inventory, Label, ParamAt};
use crate::schema::{Method, OperationId, Param, ParamLocation};

/// One invalid value of one parameter, and what the table says it breaks.
struct Breach {
    param: &'static Param,
    name: String,
    value: String,
    label: Label,
}

/// A case per operation with a parameter the inventory breaks there.
pub fn cases() -> Vec<Case> {
    OperationId::ALL
        .into_iter()
        .filter_map(|op| {
            let params = broken_here(op);
            let mut rules: Vec<&'static str> = Vec::new();
            for rule in params.iter().filter_map(|p| p.reject_rule.as_deref()) {
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
            if rules.is_empty() {
                return None;
            }
            let requests: usize = params.iter().map(|p| param_breaches(op, p).len()).sum();
            let mut case = Case::new(
                &format!("generated.params.{op}"),
                op,
                &rules,
                case_fn(move |cx| Box::pin(invalid_params(cx, op))),
            )
            .suite("generated")
            .requests(requests)
            .chain(requests.div_ceil(WINDOW));
            if op.operation().method != Method::Get {
                case = case.writes().naming_nothing();
            }
            if params.iter().any(|p| p.name_from_profile.is_some()) {
                case = case.org_header();
            }
            Some(case)
        })
        .collect()
}

/// The parameters of `operation` whose constraints the inventory breaks on it.
fn broken_here(operation: OperationId) -> Vec<&'static Param> {
    let inventory = Inventory::embedded();
    let breaks = |at: &ParamAt| {
        inventory.constraints().iter().any(|c| {
            c.operation == operation && c.unbreakable.is_none() && c.param.as_ref() == Some(at)
        })
    };
    operation
        .operation()
        .parameters
        .iter()
        .filter(|p| p.reject_rule.is_some())
        .filter(|p| {
            breaks(&ParamAt {
                location: p.location,
                name: crate::generate::param_name(p),
            })
        })
        .collect()
}

async fn invalid_params(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let mut breaches = Vec::new();
    for param in broken_here(operation) {
        let from_profile = param.name_from_profile.as_deref();
        let name = param
            .name
            .as_deref()
            .or_else(|| cx.run.fixture(from_profile?));
        let Some(name) = name.map(str::to_owned) else {
            continue;
        };
        for (value, label) in param_breaches(operation, param) {
            // An empty path value is another path, not this operation with a bad value.
            if param.location == ParamLocation::Path && value.is_empty() {
                continue;
            }
            breaches.push(Breach {
                param,
                name: name.clone(),
                value,
                label,
            });
        }
    }
    let base = harmless(cx, operation, Given::Profile, Given::Profile);
    let requests: Vec<(usize, Outgoing)> = breaches
        .iter()
        .enumerate()
        .map(|(n, b)| {
            let request = with_value(&base, operation, b);
            (n, Outgoing { operation, request })
        })
        .collect();
    cx.send_each(requests.into_iter(), |cx, n, _, response| {
        let breach = &breaches[n];
        let rule = breach.param.reject_rule.as_deref().unwrap_or_default();
        if let Some(id) = &breach.label.constraint {
            cx.run.exercise.broken(operation, id, response.is_success());
        }
        // The label says `value = "..." (why)`: the parameter's name in place of `value`.
        let detail = &breach.label.detail;
        let what = format!(
            "{}{}",
            breach.name,
            detail.strip_prefix("value").unwrap_or(detail)
        );
        match breach.param.reject_status {
            Some(status) => {
                cx.expect().status(response, status, rule, &what);
            }
            None => {
                cx.tally.expected("4xx");
                cx.refused_under(rule);
                cx.ensure(!response.is_success(), rule, || {
                    format!("{what} was accepted with {}", response.status)
                });
            }
        }
        true
    })
    .await
}

/// The harmless request with the breach's parameter set to its value, and nothing else changed.
fn with_value(base: &Outgoing, operation: OperationId, breach: &Breach) -> Request {
    let request = base.request.clone();
    match breach.param.location {
        ParamLocation::Header => request.with_header(&breach.name, breach.value.as_str()),
        ParamLocation::Query => {
            let (path, query) = split_query(&request.path);
            let kept = query
                .split('&')
                .filter(|pair| !pair.is_empty())
                .filter(|pair| pair.split('=').next() != Some(breach.name.as_str()));
            let encoded: String =
                url::form_urlencoded::byte_serialize(breach.value.as_bytes()).collect();
            let mut pairs: Vec<String> = kept.map(str::to_owned).collect();
            pairs.push(format!("{}={encoded}", breach.name));
            Request {
                path: format!("{path}?{}", pairs.join("&")),
                ..request
            }
        }
        ParamLocation::Path => {
            let (path, query) = split_query(&request.path);
            let template = &operation.operation().path;
            let slot = format!("{{{}}}", breach.name);
            let segments: Vec<String> = template
                .split('/')
                .zip(path.split('/'))
                .map(|(want, got)| match want == slot {
                    true => encode_segment(&breach.value),
                    false => got.to_owned(),
                })
                .collect();
            let mut path = segments.join("/");
            if !query.is_empty() {
                path = format!("{path}?{query}");
            }
            Request { path, ..request }
        }
    }
}

/// A path and its query string (empty when it has none).
fn split_query(path: &str) -> (&str, &str) {
    path.split_once('?').unwrap_or((path, ""))
}

/// A path segment holding `value` as the server reads it: every byte but the unreserved ones of
/// RFC 3986 percent-encoded.
fn encode_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_keeps_unreserved_bytes_and_encodes_the_rest() {
        assert_eq!(encode_segment("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(encode_segment("a b/c"), "a%20b%2Fc");
        assert_eq!(encode_segment("é"), "%C3%A9");
    }

    #[test]
    fn every_operation_with_a_path_id_breaks_it_and_each_area_header_is_broken_once() {
        let ids: Vec<String> = cases().into_iter().map(|c| c.id).collect();
        for op in OperationId::ALL {
            if op.path_parameters() > 0 {
                assert!(ids.contains(&format!("generated.params.{op}")), "{op}");
            }
        }
        let version = |op: OperationId| {
            broken_here(op)
                .iter()
                .any(|p| p.name.as_deref() == Some("x-finops-version"))
        };
        let carriers: Vec<OperationId> = OperationId::ALL
            .into_iter()
            .filter(|op| version(*op))
            .collect();
        assert_eq!(carriers, vec![OperationId::ListEvents]);
    }
}
