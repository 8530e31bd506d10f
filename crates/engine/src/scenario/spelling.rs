//! Values valid in more than one spelling: the embedded banking organization header takes "a
//! non-empty valid UUID", valid in upper case as in lower case; a mailbox domain of the stated
//! form is valid whatever its segments, one character long included (`a.example.com`).
//!
//! Each variant is judged beside a baseline of the same run that differs from it only in the
//! spelling under test (`Control::judge`): a target that refuses both refuses for another
//! reason, and only a refusal of the variant alone fails.

use super::Bodies;
use crate::case::{case_fn, Abort, Case, CaseCx, Control, Given, Outcome, Outgoing, Variant};
use crate::generate::{rng_for, Draws, Engine, GenOptions};
use crate::schema::{OperationId, Registry};
use serde_json::{json, Value};

const HEADER_CASE: &str = "BANK-ORG-HEADER-UUID-CASE";
const DOMAIN: &str = "MBX-DOMAIN-ACCEPTED";
/// Domains drawn from the schema's pattern, beside the hand-written ones.
const DRAWN_DOMAINS: usize = 3;
/// Drawn domains longer than this are left out: the spec states no length, but DNS does.
const DRAWN_MAX_LEN: usize = 40;

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "transactions.org-header-upper-case",
            OperationId::ListTransactions,
            &[HEADER_CASE],
            case_fn(|cx| Box::pin(header_upper_case(cx))),
        )
        .own_organization()
        .requests(2),
        Case::new(
            "mailbox.valid-domains",
            OperationId::CreateMailboxDomain,
            &[DOMAIN],
            case_fn(|cx| Box::pin(valid_domains(cx))),
        )
        .writes()
        .requests(3 + DRAWN_DOMAINS),
    ]
}

/// The transactions of the profile's account read with the organization header in lower case
/// (the baseline) and in upper case (the variant).
async fn header_upper_case(cx: &mut CaseCx) -> Outcome {
    let op = OperationId::ListTransactions;
    let org = cx.run.banking().and_then(|b| b.organization_id.clone());
    let org = org.ok_or(Abort::Recorded)?;
    let read = |spelling: &str| cx.call(op).organization(Given::value(spelling)).request();
    let (lower, upper) = (org.to_lowercase(), org.to_uppercase());
    let baseline = Control::new(
        format!("the transactions read with the organization header {lower}"),
        Outgoing {
            operation: op,
            request: read(&lower),
        },
    );
    let variant = Variant::new(
        format!("the transactions read with the organization header {upper}"),
        HEADER_CASE,
        read(&upper),
    );
    baseline.judge(cx, vec![variant]).await
}

/// Domains drawn from the schema's pattern (the generator's seeded stream), each put in front of
/// a label unique to the run, so that they differ from the baseline only in their first labels.
fn drawn_domains(cx: &CaseCx) -> Vec<String> {
    let engine = Engine::new(Registry::embedded(), GenOptions::default());
    let Ok(strategy) = engine.valid("mailbox-domain-create") else {
        return Vec::new();
    };
    let rng = rng_for(cx.run.generation.seed, "mailbox.valid-domains");
    Draws::new(strategy, rng, 4 * DRAWN_DOMAINS)
        .filter_map(|(body, _)| {
            body.get("domain")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .filter(|d| d.len() <= DRAWN_MAX_LEN)
        .take(DRAWN_DOMAINS)
        .collect()
}

/// A domain of the run (`cov-<tag>-<suffix>.example.com`) as the baseline, and variants with
/// one-character segments and drawn ones in front of another domain of the run.
async fn valid_domains(cx: &mut CaseCx) -> Outcome {
    let op = OperationId::CreateMailboxDomain;
    let bodies = Bodies::new(&cx.run);
    let mut prefixes: Vec<(String, String)> = vec![
        ("a".to_owned(), "a one-character first segment".to_owned()),
        (
            "x.y.z".to_owned(),
            "three one-character segments".to_owned(),
        ),
    ];
    for domain in drawn_domains(cx) {
        let what = format!("the drawn valid domain {domain}");
        prefixes.push((domain, what));
    }
    let create = |domain: String| cx.call(op).json(json!({ "domain": domain })).request;
    let base = bodies.domain("spelling");
    let request = create(base.clone());
    let baseline = Control::new(
        format!("the mailbox domain {base}"),
        Outgoing {
            operation: op,
            request,
        },
    );
    let variants = prefixes
        .into_iter()
        .enumerate()
        .map(|(n, (prefix, what))| {
            let domain = format!("{prefix}.{}", bodies.domain(&format!("spelling{n}")));
            Variant::new(
                format!("the mailbox domain {domain} ({what})"),
                DOMAIN,
                create(domain),
            )
        })
        .collect();
    baseline.judge(cx, variants).await
}
