//! A user's case carried out: each step's request built from the operations table and the
//! step, sent through [`CaseCx::send`] (so that the generic checks and the operation's schemas
//! judge every answer, as they judge the built-in cases'), and its answer held to what the step
//! expects, each failure under the step's rule.

use super::file::{CaseStep, Spec};
use super::template::{self, RefSource};
use crate::case::{Abort, CaseCx, Outcome, Outgoing};
use crate::client::Response;
use serde_json::Value;

/// What references are filled in from: the profile, and the JSON answers of the earlier steps.
struct Filled<'a> {
    cx: &'a CaseCx,
    answers: &'a [Option<Value>],
}

impl RefSource for Filled<'_> {
    fn profile(&self, key: &str) -> Option<String> {
        self.cx.run.fixture(key).map(str::to_owned)
    }

    fn answer(&self, step: usize) -> Option<&Value> {
        self.answers.get(step.checked_sub(1)?)?.as_ref()
    }
}

/// Runs the steps of `spec` in order; the case stops at the first step whose answer fails what
/// it expects (the later steps build on it).
pub async fn run(cx: &mut CaseCx, spec: &Spec) -> Outcome {
    let mut answers: Vec<Option<Value>> = Vec::new();
    for (index, step) in spec.steps.iter().enumerate() {
        let built = build(cx, step, &answers);
        let outgoing = match built {
            Ok(outgoing) => outgoing,
            Err(why) => {
                cx.finding(step.rule, format!("step {}: {why}", index + 1));
                return Err(Abort::Recorded);
            }
        };
        let response = cx.send(outgoing).await?;
        let held = judge(cx, index + 1, step, &response, &answers);
        answers.push(response.json);
        if !held {
            return Err(Abort::Recorded);
        }
    }
    Ok(())
}

/// The request of `step`, its references filled in.
fn build(cx: &CaseCx, step: &CaseStep, answers: &[Option<Value>]) -> Result<Outgoing, String> {
    let source = Filled { cx, answers };
    let text = |t: &String| template::fill_text(t, &source);
    let ids: Vec<String> = step.ids.iter().map(text).collect::<Result<_, _>>()?;
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let call = cx.call(step.operation).ids(&ids);
    let mut outgoing = Outgoing::from(call);
    if let Some(path) = &step.path {
        outgoing.request.path = text(path)?;
    }
    if !step.query.is_empty() {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for (name, value) in &step.query {
            query.append_pair(name, &text(value)?);
        }
        outgoing.request.path = format!("{}?{}", outgoing.request.path, query.finish());
    }
    for (name, value) in &step.headers {
        outgoing = outgoing.with_header(name, text(value)?);
    }
    if let Some(body) = &step.body {
        outgoing = outgoing.json(template::fill_json(body, &source)?);
    }
    Ok(outgoing)
}

/// Holds the answer of step `number` to what it expects; whether it held.
fn judge(
    cx: &mut CaseCx,
    number: usize,
    step: &CaseStep,
    response: &Response,
    answers: &[Option<Value>],
) -> bool {
    let rule = step.rule;
    if !step.statuses.is_empty() {
        let wanted: Vec<String> = step.statuses.iter().map(u16::to_string).collect();
        for status in &wanted {
            cx.tally.expected(status.clone());
        }
        let held = step.statuses.contains(&response.status);
        // A 5xx is already a finding of the generic checks; it judges nothing of the rule.
        if !held && response.status >= 500 {
            return false;
        }
        cx.judged(rule);
        if !held {
            let expected = wanted.join(" or ");
            let message = format!(
                "step {number}: {} where the case expects {expected}: {}",
                response.status,
                crate::client::snippet(response)
            );
            cx.finding_diff(rule, message, &expected, &response.status.to_string());
            return false;
        }
    }
    let mut held = true;
    for (pointer, want) in &step.json {
        let source = Filled { cx, answers };
        let want = match template::fill_json(want, &source) {
            Ok(want) => want,
            Err(why) => {
                cx.finding(rule, format!("step {number}: {why}"));
                held = false;
                continue;
            }
        };
        cx.judged(rule);
        let Some(answer) = &response.json else {
            let message = format!(
                "step {number}: the answer is not JSON, so {pointer:?} matches nothing in it: {}",
                crate::client::snippet(response)
            );
            cx.finding(rule, message);
            return false;
        };
        match answer.pointer(pointer) {
            Some(actual) if *actual == want => {}
            Some(actual) => {
                let message =
                    format!("step {number}: {pointer:?} is {actual} where the case expects {want}");
                cx.finding_diff(rule, message, &want.to_string(), &actual.to_string());
                held = false;
            }
            None => {
                let message = format!(
                    "step {number}: the JSON pointer {pointer:?} matches nothing in the answer: {}",
                    template::shown(answer)
                );
                cx.finding(rule, message);
                held = false;
            }
        }
    }
    held
}
