//! A site's mutations made into invalid payloads: each applied to a valid instance, kept only if
//! the validator confirms it invalid, and labelled with the site's kind and rule and the
//! constraint it breaks. The one place an invalid body is made, for the boundary lists and the
//! random strategies alike, so that no payload the validator accepts is handed out as invalid.

use super::invalid;
use super::oracle::Oracle;
use super::tree::SchemaNode;
use super::{path, valid, Invalid, Label};
use proptest::prelude::*;
use serde_json::Value;
use std::sync::Arc;

/// The boundary mutations of a site that the validator confirms invalid.
pub(crate) fn breaches(
    shape: &SchemaNode,
    oracle: &Oracle,
    site: &invalid::Site,
    id: Option<&str>,
) -> Vec<Invalid> {
    let base = valid::example(shape, &site.path, false);
    site.boundary
        .iter()
        .filter_map(|mutation| finish(oracle, site, id, base.clone(), mutation.clone()))
        .collect()
}

/// Applies a mutation to a base instance; `None` when it does not apply or leaves it valid.
fn finish(
    oracle: &Oracle,
    site: &invalid::Site,
    id: Option<&str>,
    base: Value,
    mutation: invalid::Mutation,
) -> Option<Invalid> {
    let payload = path::apply(base, &path::pointer(&site.path), mutation.edit)?;
    if oracle.is_valid(&payload) {
        return None;
    }
    Some(Invalid {
        payload,
        label: Label {
            kind: site.kind,
            pointer: mutation.pointer,
            rule: site.rule.clone(),
            detail: mutation.detail,
            constraint: id.map(str::to_owned),
        },
    })
}

/// Random breaches of one site. It holds the validator, not the
/// [`Compiled`](super::compiled::Compiled) it is kept in.
pub(crate) fn site_strategy(
    shape: &SchemaNode,
    oracle: &Arc<Oracle>,
    site: invalid::Site,
    id: Option<String>,
) -> SBoxedStrategy<Invalid> {
    let base = valid::strategy(shape, &site.path);
    let random = site.random.clone();
    let oracle = Arc::clone(oracle);
    (base, random)
        .prop_filter_map(
            "mutation left the payload valid",
            move |(base, mutation)| finish(&oracle, &site, id.as_deref(), base, mutation),
        )
        .sboxed()
}
