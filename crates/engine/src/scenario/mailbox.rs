//! Mailbox domain scenarios: create, create without the organization header (the one finance
//! operation that takes none), domains outside the pattern.

use super::Bodies;
use crate::case::{case_fn, Abort, Case, CaseCx, Control, Given, Outcome, Variant};
use crate::client::Response;
use crate::schema::OperationId;
use serde_json::json;
use serde_json::Value;

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "mailbox.create",
            OperationId::CreateMailboxDomain,
            &["MBX-RESPONSE", "MBX-DNS-RECORD", "MBX-DOMAIN-ECHO"],
            case_fn(|cx| Box::pin(mailbox_create(cx))),
        )
        .writes(),
        Case::new(
            "mailbox.create-without-org-header",
            OperationId::CreateMailboxDomain,
            &["FIN-MAILBOX-NO-ORG-HEADER"],
            case_fn(|cx| Box::pin(mailbox_without_org(cx))),
        )
        .own_organization()
        .writes(),
        Case::new(
            "mailbox.invalid-domains",
            OperationId::CreateMailboxDomain,
            &["MBX-DOMAIN-PATTERN"],
            case_fn(|cx| Box::pin(mailbox_invalid(cx))),
        )
        .requests(INVALID_DOMAINS.len()),
    ]
}

async fn create_domain(cx: &mut CaseCx, domain: &str) -> Result<Response, Abort> {
    let request = cx
        .call(OperationId::CreateMailboxDomain)
        .json(json!({ "domain": domain }));
    cx.send(request).await
}

async fn mailbox_create(cx: &mut CaseCx) -> Outcome {
    let domain = Bodies::new(&cx.run).domain("mbx");
    let response = create_domain(cx, &domain).await?;
    if !cx.expect().success(
        &response,
        "GEN-VALID-ACCEPTED",
        "creating a valid mailbox domain",
    ) {
        return Ok(());
    }
    let got = response
        .pointer("/domain")
        .and_then(Value::as_str)
        .unwrap_or("");
    cx.judged("MBX-DOMAIN-ECHO");
    if !got.eq_ignore_ascii_case(&domain) {
        cx.finding_diff(
            "MBX-DOMAIN-ECHO",
            "the created mailbox domain names another domain",
            &domain,
            got,
        );
    }
    Ok(())
}

/// A domain created without `x-organization-id`, judged beside one created with it: only a
/// refusal of the first alone blames the missing header. A target may refuse both for reasons
/// the spec does not show (a domain it does not own, a quota), which says nothing of the header.
async fn mailbox_without_org(cx: &mut CaseCx) -> Outcome {
    let bodies = Bodies::new(&cx.run);
    let operation = OperationId::CreateMailboxDomain;
    let body = |suffix: &str| json!({ "domain": bodies.domain(suffix) });
    let org = cx.run.finops_org().unwrap_or_default();
    let with_org = cx
        .call(operation)
        .organization(Given::value(org))
        .json(body("org"));
    let without = cx.call(operation).json(body("noorg")).request;
    let baseline = Control::new("a mailbox domain created with x-organization-id", with_org);
    let variant = Variant::new(
        "a mailbox domain created without x-organization-id".to_owned(),
        "FIN-MAILBOX-NO-ORG-HEADER",
        without,
    );
    baseline.judge(cx, vec![variant]).await
}

/// Each breaks the pattern once; a bad segment is tried first and after a dot, since every
/// segment must start and end with a letter or digit, not the first one only.
const INVALID_DOMAINS: [&str; 9] = [
    "-leading-hyphen.example.com",
    "trailing-hyphen-.example.com",
    "mail.-leading-hyphen.example.com",
    "mail.trailing-hyphen-.example.com",
    "double..dot.example.com",
    "under_score.example.com",
    "space in.example.com",
    ".example.com",
    "example.com.",
];

async fn mailbox_invalid(cx: &mut CaseCx) -> Outcome {
    for domain in INVALID_DOMAINS {
        let response = create_domain(cx, domain).await?;
        cx.expect().refused(
            &response,
            "MBX-DOMAIN-PATTERN",
            &format!("the domain {domain:?}"),
        );
    }
    Ok(())
}
