//! Positive variants judged against a control: a request that differs from each only in the
//! part under test (called the variant's baseline in findings and reports).
//!
//! A valid request that a target refuses says little on its own: the target may have a
//! precondition the spec does not show (a fixture it does not know, a required field the spec
//! leaves open), and failing the request would blame the target for the profile or for a
//! choice the spec leaves to it. A *variant* sent beside a *control* that differs from it only
//! in the part under test (one field's value, one query parameter) says more: when the baseline
//! is accepted and the variant refused, the part under test is the cause, and the variant's
//! rule fails at its level. When the baseline is refused, its alternatives are tried (another
//! body that a target may accept where it refuses the smallest one, for a reason the spec does
//! not show), and the variants are moved onto the first accepted. When every baseline is
//! refused, nothing can be said of the variant: it is inconclusive, blocked by its baseline, and
//! the baseline's answer is the diagnosis.
//!
//! A variant may also be judged beside another variant of its group (`beside`): a value at a
//! length limit made of multi-byte characters is judged beside the same characters at a short
//! length, so that a target refusing those characters at any length is not taken for one that
//! counts bytes.

use super::context::{Abort, CaseCx, Outcome};
use super::request::Outgoing;
use crate::client::{snippet, Body, Request, Response};
use crate::schema::OperationId;

/// The request the variants of a group are judged beside. Its operation is theirs: a variant
/// is its request changed in the part under test, and its alternatives are other requests of
/// the same operation.
pub struct Control {
    /// For people: `the minimal quote body`.
    pub what: String,
    pub operation: OperationId,
    pub request: Request,
    /// Other baselines to try, in order, when this one is refused (a target may refuse the
    /// smallest body for a reason the spec does not show, such as no line items or a zero
    /// amount): the variants are moved onto the first one accepted.
    pub alternatives: Vec<(String, Request)>,
}

impl Control {
    pub fn new(what: impl Into<String>, request: impl Into<Outgoing>) -> Control {
        let Outgoing { operation, request } = request.into();
        Control {
            what: what.into(),
            operation,
            request,
            alternatives: Vec::new(),
        }
    }

    /// With another baseline to try when the ones before it are refused.
    pub fn or(mut self, what: impl Into<String>, request: Request) -> Control {
        self.alternatives.push((what.into(), request));
        self
    }
}

/// A request that differs from its baseline only in the part under test, and must be accepted
/// when its baseline is.
pub struct Variant {
    /// For people: `trade_name of 255 characters (max 255)`.
    pub what: String,
    /// The rule a refusal breaks when the baseline was accepted.
    pub rule: &'static str,
    pub request: Request,
    /// An earlier variant of the group to judge it beside instead of the group's baseline.
    pub beside: Option<usize>,
    /// How its JSON body is written on the wire, once the body is on its baseline, where not
    /// as serializing it writes it.
    pub spelling: Option<Spelling>,
    /// A refusal is no finding: the spec neither admits nor forbids the value (an integer past
    /// 2^63 where no maximum is stated), and only what an acceptance answers is judged.
    pub refusal_allowed: bool,
    /// What an accepted answer must repeat: the number sent at this pointer, under this rule.
    pub echo: Option<Echo>,
}

/// A JSON body written otherwise than serializing its value writes it.
#[derive(Clone)]
pub enum Spelling {
    /// The value at `pointer` written as `text` (`1e2` for 100.0).
    Value { pointer: String, text: String },
    /// The first property given twice.
    FirstKeyTwice,
}

/// A number an accepted answer must repeat where it shows the field: the same number, to within
/// a double's precision (RFC 8259 section 6), never a wrapped or cut one.
#[derive(Clone)]
pub struct Echo {
    pub pointer: String,
    pub sent: serde_json::Value,
    pub rule: &'static str,
}

impl Variant {
    pub fn new(what: impl Into<String>, rule: &'static str, request: Request) -> Variant {
        Variant {
            what: what.into(),
            rule,
            request,
            beside: None,
            spelling: None,
            refusal_allowed: false,
            echo: None,
        }
    }

    /// Judged beside the variant of the group at `index` (an earlier one) instead of the
    /// baseline.
    pub fn beside(mut self, index: Option<usize>) -> Variant {
        self.beside = index;
        self
    }
}

/// How a request of the group was answered: accepted, or refused with this answer.
type Answered = Result<(), String>;

impl Control {
    /// Sends `baseline`, then (when it was accepted) every variant, several at once, and judges
    /// each variant beside its baseline: accepted, a pass; refused beside an accepted baseline,
    /// a finding on the variant's rule; refused beside a refused one, inconclusive. A refused
    /// baseline is followed by its alternatives, in order, until one is accepted, and the
    /// variants are moved onto that one; when all are refused, every variant of the group is
    /// blocked and not sent. A 404 on a baseline that a fixture of the profile explains blocks
    /// the case instead.
    pub async fn judge(self, cx: &mut CaseCx, mut variants: Vec<Variant>) -> Outcome {
        let Control {
            what,
            operation,
            request,
            alternatives,
        } = self;
        let response = send_baseline(cx, operation, request.clone()).await?;
        let mut accepted = response.is_success().then(|| what.clone());
        let (first_answer, first_exchange) =
            (answer_of(&response), cx.exchanges.len().checked_sub(1));
        if accepted.is_none() && cx.blame_profile(&response) {
            return Ok(());
        }
        let mut refused_too = Vec::new();
        for (other_what, other) in alternatives {
            if accepted.is_some() {
                break;
            }
            let response = send_baseline(cx, operation, other.clone()).await?;
            if response.is_success() {
                for variant in &mut variants {
                    variant.request = rebase(&variant.request, &request, &other);
                }
                accepted = Some(other_what);
            } else if cx.blame_profile(&response) {
                return Ok(());
            } else {
                refused_too.push(other_what);
            }
        }
        let Some(what) = accepted else {
            let blocked_by = match refused_too.is_empty() {
                true => what,
                false => format!("{what} (and {}, refused too)", refused_too.join(", ")),
            };
            for variant in variants {
                cx.inconclusive(
                    variant.rule,
                    &blocked_by,
                    &first_answer,
                    variant.what,
                    first_exchange,
                );
            }
            return Ok(());
        };
        let mut answers: Vec<Answered> = Vec::with_capacity(variants.len());
        let mut shapes = Vec::with_capacity(variants.len());
        let mut requests = Vec::with_capacity(variants.len());
        for (index, variant) in variants.into_iter().enumerate() {
            if variant.beside.is_some_and(|b| b >= index) {
                return Err(Abort::Defect(format!(
                    "covenant defect: variant {} is judged beside a later one; please report it",
                    variant.what
                )));
            }
            let request = match &variant.spelling {
                Some(spelling) => spelled(variant.request, spelling),
                None => variant.request,
            };
            let allowed = (variant.refusal_allowed, variant.echo);
            shapes.push((variant.what, variant.rule, variant.beside, allowed));
            requests.push((index, Outgoing { operation, request }));
        }
        cx.send_each(requests.into_iter(), |cx, index, _, response| {
            let (variant, rule, beside, (refusal_allowed, echo)) = &shapes[index];
            if let Some(echo) = echo.as_ref().filter(|_| response.is_success()) {
                judge_echo(cx, variant, echo, response);
            }
            let answer = match refusal_allowed {
                true if !response.is_success() => Err(answer_of(response)),
                _ => judge_variant(
                    cx,
                    (variant, rule),
                    beside.map(|b| (&shapes[b].0, &answers[b])),
                    &what,
                    response,
                ),
            };
            answers.push(answer);
            true
        })
        .await
    }
}

/// Sends a baseline, its exchange kept whatever its answer (it is the diagnosis of a
/// refusal).
async fn send_baseline(
    cx: &mut CaseCx,
    operation: OperationId,
    request: Request,
) -> Result<Response, Abort> {
    let keep_all = std::mem::replace(&mut cx.keep_all, true);
    let response = cx.send(Outgoing { operation, request }).await;
    cx.keep_all = keep_all;
    response
}

/// `variant` moved from the baseline `from` onto the baseline `to`: the top-level fields of its
/// JSON body that differ from `from`'s are set on (or, when it lacks them, removed from) `to`'s
/// body. A variant without such a body (a query parameter) is kept as it is.
fn rebase(variant: &Request, from: &Request, to: &Request) -> Request {
    let object = |r: &Request| match &r.body {
        Some(Body::Json(serde_json::Value::Object(o))) => Some(o.clone()),
        _ => None,
    };
    let (Some(from), Some(changed), Some(mut moved)) = (object(from), object(variant), object(to))
    else {
        return variant.clone();
    };
    for (key, value) in &changed {
        if from.get(key) != Some(value) {
            moved.insert(key.clone(), value.clone());
        }
    }
    for key in from.keys().filter(|k| !changed.contains_key(*k)) {
        moved.remove(key);
    }
    let mut out = variant.clone();
    out.body = Some(Body::Json(serde_json::Value::Object(moved)));
    out
}

/// `request` with its JSON body written on the wire as `spelling` says (the body keeps the
/// value it means, for every check that reads it).
fn spelled(request: Request, spelling: &Spelling) -> Request {
    let Some(Body::Json(value)) = &request.body else {
        return request;
    };
    let bytes = match spelling {
        Spelling::Value { pointer, text } => crate::generate::spell(value, pointer, text),
        Spelling::FirstKeyTwice => crate::generate::with_first_key_twice(value),
    };
    match bytes {
        Some(bytes) => {
            let value = value.clone();
            request.spelled(value, bytes, "application/json")
        }
        None => request,
    }
}

/// An accepted answer that shows the field with another number than the one sent.
fn judge_echo(cx: &mut CaseCx, variant: &str, echo: &Echo, response: &Response) {
    let Some(shown) = response.pointer(&echo.pointer).cloned() else {
        return;
    };
    cx.judged(echo.rule);
    let same = match (shown.as_f64(), echo.sent.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => shown == echo.sent,
    };
    if !same {
        cx.finding_diff(
            echo.rule,
            format!(
                "{variant} was accepted, and the answer shows {} = {shown}",
                echo.pointer
            ),
            &echo.sent.to_string(),
            &shown.to_string(),
        );
    }
}

/// Judges one variant's answer beside its baseline (another variant and its answer, or the
/// group's accepted baseline); returns the variant's own answer.
fn judge_variant(
    cx: &mut CaseCx,
    (variant, rule): (&str, &str),
    beside: Option<(&String, &Answered)>,
    baseline: &str,
    response: &Response,
) -> Answered {
    cx.tally.expected("2xx");
    if response.is_success() {
        cx.judged(rule);
        return Ok(());
    }
    let answer = answer_of(response);
    // A 5xx is a finding of its own (GEN-NO-5XX), made by the generic checks.
    if response.status >= 500 {
        return Err(answer);
    }
    match beside {
        Some((other, Err(refused))) => {
            cx.inconclusive(rule, other, refused, variant.to_owned(), None)
        }
        Some((other, Ok(()))) => refused_beside(cx, rule, variant, other, &answer),
        None => refused_beside(cx, rule, variant, baseline, &answer),
    }
    Err(answer)
}

fn refused_beside(cx: &mut CaseCx, rule: &str, variant: &str, baseline: &str, answer: &str) {
    cx.finding_diff(
        rule,
        format!("{variant} was refused, while {baseline}, which differs only there, was accepted"),
        "accepted (2xx)",
        &format!("refused with {answer}"),
    );
}

/// A refusal in a few words: the status and the start of the body.
fn answer_of(response: &Response) -> String {
    format!("{}: {}", response.status, snippet(response))
}

#[cfg(test)]
mod tests {
    use super::rebase;
    use crate::client::{Body, Request};
    use serde_json::{json, Value};

    fn post(body: Value) -> Request {
        Request::post("/finops/v1/receivables", body)
    }

    fn body(request: &Request) -> &Value {
        match &request.body {
            Some(Body::Json(body)) => body,
            _ => panic!("a JSON body"),
        }
    }

    #[test]
    fn a_variant_keeps_what_it_changes_and_takes_the_rest_from_the_other_baseline() {
        let smallest = post(json!({"type": "quote", "line_items": [], "memo": "m"}));
        let other = post(json!({"type": "quote", "line_items": [{"quantity": 2}], "memo": "m"}));
        let variant = post(json!({"type": "quote", "line_items": [], "trade_name": "t"}));
        let moved = rebase(&variant, &smallest, &other);
        assert_eq!(
            body(&moved),
            &json!({"type": "quote", "line_items": [{"quantity": 2}], "trade_name": "t"})
        );
        // A query variant has no body to move: it is kept.
        let query = Request::get("/finops/v1/events?limit=100");
        assert_eq!(rebase(&query, &smallest, &other).path, query.path);
    }
}
