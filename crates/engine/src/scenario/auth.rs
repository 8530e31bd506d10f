//! Authentication and header cases: missing, invalid and tampered tokens on every operation,
//! the Authorization header in every spelling a client could send on a read and a write of each
//! area ([`SPELLINGS`]), malformed version headers, and the banking organization header
//! malformed in every way ([`ORG_SPELLINGS`]). Spellings are judged beside the request with the
//! real credential, so that a refused control leaves them inconclusive, never failed.
//!
//! Requests name ids that do not exist wherever the operation takes one, so that a target which
//! wrongly skips authentication changes as little as possible; only a read whose path the
//! profile's fixtures fill whole (the list of transactions) names them (see
//! [`crate::case::harmless`]). The tampered tokens are the profile's real ones with characters
//! appended, the last changed, or truncated (see [`Tamper`]): a target that compares tokens by
//! prefix accepts some of them.

use super::{absent_uuid, Bodies};
use crate::case::{case_fn, Abort, Case, CaseCx, Given, Outcome, Outgoing, Tamper};
use crate::client::{snippet, Request, Response};
use crate::schema::{Area, OperationId};

/// A harmless request of `operation` with `token` (see [`crate::case::harmless`]): the finance
/// headers as the table gives them, no banking organization header.
fn harmless(cx: &CaseCx, operation: OperationId, token: Given) -> Outgoing {
    let organization = match operation.area() {
        Area::Finance => Given::Profile,
        Area::Banking => Given::Omitted,
    };
    crate::case::harmless(cx, operation, token, organization)
}

/// The operations of an area, in the order of `operations.json`.
fn of_area(area: Area) -> impl Iterator<Item = OperationId> {
    OperationId::ALL
        .into_iter()
        .filter(move |op| op.area() == area)
}

pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for op in of_area(Area::Finance) {
        cases.push(
            Case::new(
                &format!("auth.finance-missing-token.{op}"),
                op,
                &["AUTH-FIN-MISSING-401"],
                case_fn(move |cx| Box::pin(finance_auth(cx, op, None))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.finance-invalid-token.{op}"),
                op,
                &["AUTH-FIN-INVALID-401"],
                case_fn(move |cx| Box::pin(finance_auth(cx, op, Some("covenant-invalid-token")))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.finance-tampered-token.{op}"),
                op,
                &["AUTH-FIN-INVALID-401"],
                case_fn(move |cx| Box::pin(finance_tampered(cx, op))),
            )
            .token_only()
            .requests(Tamper::EVERY_OPERATION.len())
            .suite("auth"),
        );
    }
    for op in of_area(Area::Finance) {
        cases.push(
            Case::new(
                &format!("auth.finance-banking-token.{op}"),
                op,
                &["AUTH-CROSS-FIN-401"],
                case_fn(move |cx| Box::pin(cross_area(cx, op))),
            )
            .token_only()
            .with_token(Area::Banking)
            .suite("auth"),
        );
    }
    for op in of_area(Area::Banking) {
        cases.push(
            Case::new(
                &format!("auth.banking-finance-token.{op}"),
                op,
                &["AUTH-CROSS-BANK-REFUSED", "AUTH-BANK-401"],
                case_fn(move |cx| Box::pin(cross_area(cx, op))),
            )
            .token_only()
            .with_token(Area::Finance)
            .requests(2)
            .suite("auth"),
        );
    }
    for op in of_area(Area::Banking) {
        let rules = &["AUTH-BANK-REQUIRED", "AUTH-BANK-401"];
        cases.push(
            Case::new(
                &format!("auth.banking-missing-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_auth(cx, op, None))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.banking-invalid-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_auth(cx, op, Some("covenant-invalid-token")))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.banking-tampered-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_tampered(cx, op))),
            )
            .token_only()
            .requests(Tamper::EVERY_OPERATION.len())
            .suite("auth"),
        );
    }
    for op in SPELLED_ON {
        let (area, rules) = match op.area() {
            Area::Finance => ("finance", FINANCE_SPELLING_RULES),
            Area::Banking => ("banking", BANKING_SPELLING_RULES),
        };
        let case = Case::new(
            &format!("auth.{area}-spellings.{op}"),
            op,
            rules,
            case_fn(move |cx| Box::pin(spellings(cx, op))),
        )
        .requests(1 + SPELLINGS.len())
        .chain(2)
        .suite("auth");
        cases.push(match op {
            OperationId::CreateVelocityControl => case.writes(),
            _ if op.area() == Area::Finance => case.token_only(),
            _ => case,
        });
    }
    cases.push(
        Case::new(
            "headers.malformed-finops-version",
            OperationId::ListEvents,
            &["VER-FINOPS-MALFORMED"],
            case_fn(|cx| Box::pin(malformed_version(cx))),
        )
        .token_only()
        .requests(2),
    );
    cases.push(
        Case::new(
            "transactions.malformed-org-header",
            OperationId::ListTransactions,
            &[MALFORMED, UUID_FORM],
            case_fn(|cx| Box::pin(malformed_org_header(cx, OperationId::ListTransactions))),
        )
        .org_header()
        .requests(1 + ORG_SPELLINGS.len())
        .chain(2),
    );
    cases.push(
        Case::new(
            "velocity.malformed-org-header",
            OperationId::CreateVelocityControl,
            &[MALFORMED, UUID_FORM],
            case_fn(|cx| Box::pin(malformed_org_header(cx, OperationId::CreateVelocityControl))),
        )
        .org_header()
        .requests(1 + ORG_SPELLINGS.len())
        .chain(2),
    );
    cases
}

async fn finance_auth(cx: &mut CaseCx, operation: OperationId, token: Option<&str>) -> Outcome {
    let request = harmless(cx, operation, token.map_or(Given::Omitted, Given::value));
    let response = cx.send(request).await?;
    let (rule, what) = match token {
        Some(_) => ("AUTH-FIN-INVALID-401", "a request with an invalid token"),
        None => ("AUTH-FIN-MISSING-401", "a request without a token"),
    };
    cx.expect().status(&response, 401, rule, what);
    Ok(())
}

async fn banking_auth(cx: &mut CaseCx, operation: OperationId, token: Option<&str>) -> Outcome {
    let request = harmless(cx, operation, token.map_or(Given::Omitted, Given::value));
    let response = cx.send(request).await?;
    let what = if token.is_some() {
        "a request with an invalid token"
    } else {
        "a request without a token"
    };
    banking_refused(cx, &response, what);
    Ok(())
}

/// A banking request without a valid token must be refused, and should be with 401.
fn banking_refused(cx: &mut CaseCx, response: &Response, what: &str) {
    if cx.expect().refused(response, "AUTH-BANK-REQUIRED", what) {
        cx.expect()
            .refused_with(response, 401, "AUTH-BANK-401", what);
    }
}

/// A request of one area carrying the other area's token: an invalid token there. Skipped when
/// the profile's two tokens are one credential (then it is no other area's token).
async fn cross_area(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let finance = cx.run.finops_token().unwrap_or_default().to_owned();
    let banking = cx.run.banking_token.as_ref().map(|t| t.expose().to_owned());
    let banking = banking.unwrap_or_default();
    if finance == banking {
        let reason = "the profile's finance and banking tokens are the same credential";
        return Err(Abort::Skip(reason.to_owned()));
    }
    let (token, what) = match operation.area() {
        Area::Finance => (banking, "a finance request with the banking area's token"),
        Area::Banking => (finance, "a banking request with the finance token"),
    };
    let request = harmless(cx, operation, Given::value(token.clone()));
    let response = cx.send(request).await?;
    match operation.area() {
        Area::Finance => {
            cx.expect()
                .status(&response, 401, "AUTH-CROSS-FIN-401", what);
        }
        Area::Banking => {
            if cx
                .expect()
                .refused(&response, "AUTH-CROSS-BANK-REFUSED", what)
            {
                cx.expect()
                    .refused_with(&response, 401, "AUTH-BANK-401", what);
            }
            // The same under the profile's organization header: a target may resolve the
            // organization before it looks at whose token it was given.
            if cx
                .run
                .banking()
                .is_some_and(|b| b.org_header.is_some() && b.organization_id.is_some())
            {
                let under =
                    crate::case::harmless(cx, operation, Given::value(token), Given::Profile);
                let response = cx.send(under).await?;
                let what = format!("{what}, under the organization header");
                cx.expect()
                    .refused(&response, "AUTH-CROSS-BANK-REFUSED", &what);
            }
        }
    }
    Ok(())
}

async fn finance_tampered(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let token = cx.run.finops_token().unwrap_or_default().to_owned();
    let request = harmless(cx, operation, Given::Omitted);
    tampered(cx, &token, request, |cx, response, what| {
        cx.expect()
            .status(response, 401, "AUTH-FIN-INVALID-401", what);
    })
    .await
}

async fn banking_tampered(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let token = cx.run.banking_token.as_ref().map(|t| t.expose().to_owned());
    let request = harmless(cx, operation, Given::Omitted);
    tampered(cx, &token.unwrap_or_default(), request, banking_refused).await
}

/// Sends `request` once with each tampered form of `token`, all at once, and judges each
/// answer in turn. The findings name the form, never the token.
async fn tampered(
    cx: &mut CaseCx,
    token: &str,
    request: Outgoing,
    judge: impl Fn(&mut CaseCx, &Response, &str),
) -> Outcome {
    let sending = Tamper::EVERY_OPERATION.map(|tamper| {
        let bearer = format!("Bearer {}", tamper.apply(token));
        cx.dispatch(request.clone().header("authorization", bearer))
    });
    let dispatched = futures_util::future::join_all(sending).await;
    for (tamper, sent) in Tamper::EVERY_OPERATION.into_iter().zip(dispatched) {
        let response = cx.record(sent)?;
        judge(
            cx,
            &response,
            &format!("a request with {}", tamper.describe()),
        );
    }
    Ok(())
}

async fn malformed_version(cx: &mut CaseCx) -> Outcome {
    for bad in ["not-a-date", "2026-13-45"] {
        let request = cx
            .call(OperationId::ListEvents)
            .query("limit=1")
            .with_header("x-finops-version", bad);
        let response = cx.send(request).await?;
        cx.judged("VER-FINOPS-MALFORMED");
        if response.is_success() {
            cx.finding(
                "VER-FINOPS-MALFORMED",
                format!(
                    "x-finops-version {bad:?} was accepted with {}",
                    response.status
                ),
            );
        }
    }
    Ok(())
}

/// What a spelling of the Authorization header must get, beside the real one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owed {
    /// It carries no bearer token (another scheme, no scheme, no token): refused as a request
    /// without one.
    NoBearer,
    /// It carries an invalid token: refused as one.
    Invalid,
    /// The scheme in another case, which RFC 7235 makes case-insensitive: taken as the real
    /// one; a refusal warns (the spec spells it `Bearer`).
    Taken,
    /// Either answer keeps the contract (a token format may ignore case): the generic checks
    /// alone judge it.
    Either,
}

/// A spelling of the Authorization header: what it is, its value (`<token>` stands for the
/// profile's token in the form `form` makes of it; the token itself for `None`), and what it
/// must get.
struct AuthSpelling {
    what: &'static str,
    value: &'static str,
    form: Option<Tamper>,
    expect: Owed,
}

const fn spelling(what: &'static str, value: &'static str, expect: Owed) -> AuthSpelling {
    AuthSpelling {
        what,
        value,
        form: None,
        expect,
    }
}

/// Every spelling of the Authorization header a client could send, each sent beside
/// `Bearer <token>`. The token appended to, truncated or with its last character changed, and
/// the other area's token, are sent on every operation (the tampered-token and cross-area
/// cases).
const SPELLINGS: [AuthSpelling; 10] = [
    spelling(
        "the real token under the Basic scheme",
        "Basic <token>",
        Owed::NoBearer,
    ),
    spelling(
        "the real token under the Token scheme",
        "Token <token>",
        Owed::NoBearer,
    ),
    spelling(
        "the bare real token, with no scheme",
        "<token>",
        Owed::NoBearer,
    ),
    spelling("the Bearer scheme with no token", "Bearer", Owed::NoBearer),
    spelling(
        "the Bearer scheme and a space, with no token",
        "Bearer ",
        Owed::NoBearer,
    ),
    spelling("an empty Authorization header", "", Owed::NoBearer),
    spelling(
        "the real token under the scheme spelled bearer",
        "bearer <token>",
        Owed::Taken,
    ),
    spelling(
        "the real token under the scheme spelled BEARER",
        "BEARER <token>",
        Owed::Taken,
    ),
    AuthSpelling {
        form: Some(Tamper::MiddleChanged),
        ..spelling(
            Tamper::MiddleChanged.describe(),
            "Bearer <token>",
            Owed::Invalid,
        )
    },
    AuthSpelling {
        form: Some(Tamper::CaseSwapped),
        ..spelling(
            Tamper::CaseSwapped.describe(),
            "Bearer <token>",
            Owed::Either,
        )
    },
];

/// The operations the spellings are sent on: a cheap read and a write of each area. The finance
/// write names ids that name nothing (see [`harmless`]), so a spelling wrongly taken changes
/// nothing; the banking one creates a velocity control of its own per request taken.
const SPELLED_ON: [OperationId; 4] = [
    OperationId::ListEvents,
    OperationId::UpdateComment,
    OperationId::ListTransactions,
    OperationId::CreateVelocityControl,
];

const SCHEME_CASE: &str = "AUTH-SCHEME-CASE";
const FINANCE_SPELLING_RULES: &[&str] =
    &["AUTH-FIN-SCHEME-401", "AUTH-FIN-INVALID-401", SCHEME_CASE];
const BANKING_SPELLING_RULES: &[&str] = &["AUTH-BANK-REQUIRED", "AUTH-BANK-401", SCHEME_CASE];

/// The rule a spelling breaks when the target takes it where it must not (or refuses it where it
/// should take it), in `area`; none for a spelling either answer keeps.
fn spelling_rule(area: Area, expect: Owed) -> Option<&'static str> {
    match (area, expect) {
        (_, Owed::Either) => None,
        (_, Owed::Taken) => Some(SCHEME_CASE),
        (Area::Finance, Owed::NoBearer) => Some("AUTH-FIN-SCHEME-401"),
        (Area::Finance, Owed::Invalid) => Some("AUTH-FIN-INVALID-401"),
        (Area::Banking, _) => Some("AUTH-BANK-REQUIRED"),
    }
}

/// The request the spellings of `operation` are sent on, its `n`th: [`harmless`] with the
/// profile's token; a velocity control of its own for each, so that a spelling taken never
/// meets the control's id.
fn spelled(cx: &CaseCx, operation: OperationId, n: usize) -> Request {
    let request = harmless(cx, operation, Given::Profile);
    match operation {
        OperationId::CreateVelocityControl => {
            let body = Bodies::new(&cx.run).velocity(&format!("spelling{n}"));
            request.json(body).request
        }
        _ => request.request,
    }
}

/// Each spelling of [`SPELLINGS`] beside `Bearer <token>` on the same request.
async fn spellings(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let area = operation.area();
    let token = match area {
        Area::Finance => cx.run.finops_token().map(str::to_owned),
        Area::Banking => cx.run.banking_token.as_ref().map(|t| t.expose().to_owned()),
    };
    let token = token.ok_or(Abort::Recorded)?;
    let variants = SPELLINGS
        .iter()
        .enumerate()
        .filter_map(|(n, spelling)| {
            let form = spelling
                .form
                .map_or_else(|| token.clone(), |t| t.apply(&token));
            // The case-swapped form of a token without letters is the token.
            if spelling.form.is_some() && form == token {
                return None;
            }
            let value = spelling.value.replace("<token>", &form);
            Some(Spelled {
                what: format!("a request with {}", spelling.what),
                rule: spelling_rule(area, spelling.expect),
                request: spelled(cx, operation, n + 1).with_header("authorization", value),
            })
        })
        .collect();
    let control = Spelled {
        what: "the same request with Bearer and the real token".to_owned(),
        rule: None,
        request: spelled(cx, operation, 0),
    };
    beside_control(cx, operation, control, variants, |cx, variant, response| {
        judge_spelling(cx, area, variant, response);
    })
    .await
}

/// Judges the answer to a spelling of the Authorization header, its control taken.
fn judge_spelling(cx: &mut CaseCx, area: Area, variant: &Spelled, response: &Response) {
    let what = variant.what.as_str();
    match variant.rule {
        None => {}
        Some(SCHEME_CASE) => {
            cx.tally.expected("2xx");
            if response.status >= 500 {
                return;
            }
            let ok = taken(area, response);
            cx.ensure(ok, SCHEME_CASE, || {
                format!(
                    "{what} was refused with {}, while the same request with Bearer was taken; \
                     the scheme is case-insensitive (RFC 7235)",
                    response.status
                )
            });
        }
        Some(rule) if area == Area::Finance => {
            cx.expect().status(response, 401, rule, what);
        }
        Some(_) => banking_refused(cx, response, what),
    }
}

/// The banking organization header malformed, each way a value made of the profile's
/// organization id (`<uuid>`; `<hex>`, its digits without hyphens; `<spaced>`, a space inside
/// it), with what it is and the rule its acceptance breaks. The spec: "A present value must be
/// a non-empty valid UUID; a malformed value gives 400". RFC 4122 writes a UUID as 8-4-4-4-12
/// hexadecimal digits with hyphens; braces, a URN and the bare digits are other notations that
/// common parsers (Python's, Rust's, .NET's, PostgreSQL's) read as the same UUID, so taking
/// them only warns. (A UUID in upper case is valid: `transactions.org-header-upper-case`.)
const ORG_SPELLINGS: [(&str, &str, &str); 10] = [
    ("no UUID at all", "not-a-uuid", MALFORMED),
    ("empty", "", MALFORMED),
    ("only whitespace", "   ", MALFORMED),
    ("a UUID followed by a letter", "<uuid>x", MALFORMED),
    (
        "a UUID followed by a space and a word",
        "<uuid> junk",
        MALFORMED,
    ),
    ("a UUID with a space inside", "<spaced>", MALFORMED),
    ("a UUID twice", "<uuid><uuid>", MALFORMED),
    ("a UUID in braces", "{<uuid>}", UUID_FORM),
    ("a UUID as a URN", "urn:uuid:<uuid>", UUID_FORM),
    ("a UUID without its hyphens", "<hex>", UUID_FORM),
];

const MALFORMED: &str = "BANK-ORG-HEADER-MALFORMED-400";
const UUID_FORM: &str = "BANK-ORG-HEADER-UUID-FORM";

/// `template` of [`ORG_SPELLINGS`] made of `uuid`.
fn org_spelling(template: &str, uuid: &str) -> String {
    let spaced = format!("{} {}", &uuid[..18], &uuid[18..]);
    template
        .replace("<uuid>", uuid)
        .replace("<hex>", &uuid.replace('-', ""))
        .replace("<spaced>", &spaced)
}

/// The organization header in each spelling of [`ORG_SPELLINGS`], beside the same request with
/// the profile's organization (without the header when the profile names none, the spellings
/// then made of a UUID of no organization): each must be answered 400 when the control is
/// taken.
async fn malformed_org_header(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    cx.run.org_header().ok_or(Abort::Recorded)?;
    let own = cx.run.banking().and_then(|b| b.organization_id.clone());
    let uuid = own
        .as_deref()
        .filter(|o| o.len() == 36 && o.is_char_boundary(18))
        .map_or_else(|| absent_uuid("covenant-org"), str::to_lowercase);
    let request = |n: usize, organization: Given| {
        let mut request = Outgoing::from(cx.call(operation).organization(organization));
        if operation == OperationId::CreateVelocityControl {
            request = request.json(Bodies::new(&cx.run).velocity(&format!("badorg{n}")));
        }
        request.request
    };
    let (control, what) = match &own {
        Some(org) => (
            request(0, Given::value(org.clone())),
            format!("the same request with the organization header {org}"),
        ),
        None => (
            request(0, Given::Omitted),
            "the same request without the organization header".to_owned(),
        ),
    };
    let variants = ORG_SPELLINGS
        .iter()
        .enumerate()
        .map(|(n, (kind, template, rule))| {
            let value = org_spelling(template, &uuid);
            Spelled {
                what: format!("organization header {value:?} ({kind})"),
                rule: Some(rule),
                request: request(n + 1, Given::value(value)),
            }
        })
        .collect();
    let control = Spelled {
        what,
        rule: None,
        request: control,
    };
    beside_control(cx, operation, control, variants, |cx, variant, response| {
        if let Some(rule) = variant.rule {
            cx.expect().status(response, 400, rule, &variant.what);
        }
    })
    .await
}

/// A request sent beside a control: what it is, for people, the rule it is judged under (none:
/// the generic checks alone), and the request.
struct Spelled {
    what: String,
    rule: Option<&'static str>,
    request: Request,
}

/// Sends `control`; when the target takes its credential and headers (see [`taken`]), sends
/// the variants, several at once, and judges each answer with `judge`. When it does not, the
/// variants are blocked by the control: each is inconclusive under its rule, and is not sent
/// (a 404 that a fixture of the profile explains blocks the case instead).
async fn beside_control(
    cx: &mut CaseCx,
    operation: OperationId,
    control: Spelled,
    variants: Vec<Spelled>,
    judge: impl Fn(&mut CaseCx, &Spelled, &Response),
) -> Outcome {
    let request = Outgoing {
        operation,
        request: control.request,
    };
    let response = cx.send(request).await?;
    if !taken(operation.area(), &response) {
        if cx.blame_profile(&response) {
            return Ok(());
        }
        let answer = format!("{}: {}", response.status, snippet(&response));
        let exchange = cx.exchanges.len().checked_sub(1);
        for variant in variants {
            if let Some(rule) = variant.rule {
                cx.inconclusive(rule, &control.what, &answer, variant.what, exchange);
            }
        }
        return Ok(());
    }
    let requests: Vec<(usize, Outgoing)> = variants
        .iter()
        .enumerate()
        .map(|(n, v)| {
            let request = v.request.clone();
            (n, Outgoing { operation, request })
        })
        .collect();
    cx.send_each(requests.into_iter(), |cx, n, _, response| {
        judge(cx, &variants[n], response);
        true
    })
    .await
}

/// Whether an answer shows that the target took the request's credential (and headers): a
/// finance target refuses a missing or invalid token with 401 (the spec), so any other answer
/// below 500 shows it (a write on ids that name nothing gets its 404); a banking target's
/// refusal has no stated status, so only a success shows it.
fn taken(area: Area, response: &Response) -> bool {
    match area {
        Area::Finance => response.status != 401 && response.status < 500,
        Area::Banking => response.is_success(),
    }
}
