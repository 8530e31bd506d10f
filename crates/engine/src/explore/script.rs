//! A shrunk sequence as a script a user replays by hand: numbered steps, each with its curl
//! (secrets as the variables the run names, ids earlier steps made as shell variables), its
//! answer, and the step that broke the rule marked.

use super::StepRecord;
use crate::body_file;
use crate::verdict::Exchange;
use std::path::Path;

/// The exchanges of a play, for the script.
pub type Exchanges = [Exchange];

/// Characters of an answer's body the script shows.
const ANSWER_CHARS: usize = 200;

/// The script of `steps`, whose exchanges `exchanges` holds; `named` are the ids to show as
/// variables, each with the step that made it. A request body too long to show is written into
/// `bodies` (the run's report folder) and its curl sends that file.
pub fn render(
    header: &str,
    steps: &[StepRecord],
    exchanges: &Exchanges,
    named: &[(String, usize)],
    rule: &str,
    bodies: Option<&Path>,
) -> String {
    let vars: Vec<(String, String, usize)> = named
        .iter()
        .enumerate()
        .map(|(i, (value, step))| (value.clone(), format!("ID_{}", i + 1), *step))
        .collect();
    let mut out = vec![header.to_owned()];
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        let mut line = format!("{n:>3}. {}", step.command.describe());
        if let Some(why) = step.idle {
            line.push_str(&format!(" (sends nothing: {why})"));
        }
        out.push(line);
        let sent: Vec<&str> = exchanges[step.exchanges.clone()]
            .iter()
            .map(|e| e.request.curl.as_str())
            .collect();
        // Ids this step sends before any answer names them (a caller-supplied id).
        for (value, var, _) in vars.iter().filter(|v| v.2 == n) {
            if sent.iter().any(|c| c.contains(value.as_str())) {
                out.push(format!("     {var}='{value}'"));
            }
        }
        let known: Vec<&(String, String, usize)> = vars
            .iter()
            .filter(|(value, _, made)| {
                *made < n || (*made == n && sent.iter().any(|c| c.contains(value.as_str())))
            })
            .collect();
        let shown = shown_exchanges(step.exchanges.clone());
        for (k, index) in shown.iter().enumerate() {
            if k == 1 && step.exchanges.len() > 2 {
                out.push(format!(
                    "     … {} more requests …",
                    step.exchanges.len() - 2
                ));
            }
            let exchange = &exchanges[*index];
            let mut curl = sent_curl(exchange, bodies);
            for (value, var, _) in &known {
                curl = substitute(&curl, value, var);
            }
            out.push(format!("     {curl}"));
            out.push(format!("     → {}", answer(exchange)));
        }
        for (value, var, _) in vars.iter().filter(|v| v.2 == n) {
            if !sent.iter().any(|c| c.contains(value.as_str())) {
                out.push(format!(
                    "     {var}='{value}'   # the id step {n} was answered"
                ));
            }
        }
        if let Some((broken, message)) = &step.broke {
            if broken == rule {
                out.push(format!("     ✗ step {n} breaks {rule}: {message}"));
            }
        }
    }
    out.join("\n")
}

/// The curl of `exchange`, its body sent from a file in `bodies` when it is too long to show
/// (kept inline when it cannot be written: the script still replays).
fn sent_curl(exchange: &crate::verdict::Exchange, bodies: Option<&Path>) -> String {
    let curl = &exchange.request.curl;
    let long = exchange
        .request
        .body
        .as_deref()
        .filter(|b| body_file::foldable(b));
    match (long, bodies) {
        (Some(body), Some(dir)) => match body_file::write(dir, body) {
            Ok(path) => body_file::curl_from_file(curl, &path),
            Err(_) => curl.clone(),
        },
        _ => curl.clone(),
    }
}

/// The exchanges of a step the script shows: all of two, else the first and the last.
fn shown_exchanges(range: std::ops::Range<usize>) -> Vec<usize> {
    match range.len() {
        0 => Vec::new(),
        1 | 2 => range.collect(),
        _ => vec![range.start, range.end - 1],
    }
}

fn answer(exchange: &crate::verdict::Exchange) -> String {
    match (&exchange.response, &exchange.error) {
        (Some(r), _) => {
            let body: String = r.body.chars().take(ANSWER_CHARS).collect();
            let more = if r.body.chars().count() > ANSWER_CHARS {
                "…"
            } else {
                ""
            };
            format!("{} {body}{more}", r.status)
        }
        (None, Some(e)) => format!("no answer: {e}"),
        (None, None) => "no answer".to_owned(),
    }
}

/// `curl` with each occurrence of `value` read from the shell variable `var`, quoted for where
/// it stands: inside single quotes, inside double quotes, or in a bare word.
fn substitute(curl: &str, value: &str, var: &str) -> String {
    let mut out = String::new();
    let (mut single, mut double) = (false, false);
    let mut rest = curl;
    while !rest.is_empty() {
        if rest.starts_with(value) {
            out.push_str(&match (single, double) {
                (true, _) => format!("'\"${{{var}}}\"'"),
                (_, true) => format!("${{{var}}}"),
                _ => format!("\"${{{var}}}\""),
            });
            rest = &rest[value.len()..];
            continue;
        }
        let c = rest.chars().next().expect("rest is not empty");
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::substitute;

    #[test]
    fn an_id_is_read_from_its_variable_wherever_it_is_quoted() {
        let curl = "curl -X POST 'http://h/x/abc/y' -H \"a: abc\" --data-raw '{\"id\":\"abc\"}'";
        assert_eq!(
            substitute(curl, "abc", "ID_1"),
            "curl -X POST 'http://h/x/'\"${ID_1}\"'/y' -H \"a: ${ID_1}\" --data-raw \
             '{\"id\":\"'\"${ID_1}\"'\"}'"
        );
        assert_eq!(
            substitute("curl http://h/abc", "abc", "ID_2"),
            "curl http://h/\"${ID_2}\""
        );
    }
}
