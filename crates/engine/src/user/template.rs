//! The references a case file's strings may hold: `${profile.KEY}`, a fixture of the profile,
//! and `${step.N.json/POINTER}`, part of the answer of an earlier step of the same case. This
//! file reads them (so that loading can check each before anything is sent) and fills them in
//! (as a case runs); it knows nothing of files or requests.

use serde_json::Value;

/// One reference in a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    /// `${profile.KEY}`: a fixture key of the profile, e.g. `finops.counterpart_id`.
    Profile(String),
    /// `${step.N.json/POINTER}` (or `${step.N.json./POINTER}`): the JSON pointer `POINTER`
    /// (empty: the whole answer) in the answer of step `N`, counted from 1.
    Step { step: usize, pointer: String },
}

/// A reference and its text in its string (`${` to `}`), to find it in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub reference: Ref,
    pub text: String,
}

/// Every reference of `text`, in order; an error names the first one that cannot be read.
pub fn refs(text: &str) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    for piece in pieces(text)? {
        if let TemplatePiece::Ref(text, reference) = piece {
            found.push(Found {
                reference,
                text: text.to_owned(),
            });
        }
    }
    Ok(found)
}

/// `text` with each reference as one plain character: a path whose references hold slashes
/// (`${step.1.json/id}`) matched against a template segment by segment.
pub fn blanked(text: &str) -> String {
    match pieces(text) {
        Ok(pieces) => pieces
            .iter()
            .map(|p| match p {
                TemplatePiece::Text(t) => *t,
                TemplatePiece::Ref(..) => "x",
            })
            .collect(),
        Err(_) => text.to_owned(),
    }
}

enum TemplatePiece<'a> {
    Text(&'a str),
    Ref(&'a str, Ref),
}

fn pieces(mut text: &str) -> Result<Vec<TemplatePiece<'_>>, String> {
    let mut out = Vec::new();
    while let Some(start) = text.find("${") {
        if start > 0 {
            out.push(TemplatePiece::Text(&text[..start]));
        }
        let rest = &text[start..];
        let end = rest
            .find('}')
            .ok_or_else(|| format!("`{rest}`: a reference opened with `${{` is never closed"))?;
        let whole = &rest[..=end];
        out.push(TemplatePiece::Ref(
            whole,
            parse(&rest[2..end]).map_err(|e| format!("`{whole}`: {e}"))?,
        ));
        text = &rest[end + 1..];
    }
    if !text.is_empty() {
        out.push(TemplatePiece::Text(text));
    }
    Ok(out)
}

fn parse(inner: &str) -> Result<Ref, String> {
    if let Some(key) = inner.strip_prefix("profile.") {
        return Ok(Ref::Profile(key.to_owned()));
    }
    let Some(rest) = inner.strip_prefix("step.") else {
        return Err("a reference is ${profile.KEY} or ${step.N.json/POINTER}".into());
    };
    let (number, rest) = rest.split_once('.').unwrap_or((rest, ""));
    let step: usize = number
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("`{number}` is no step number (steps count from 1)"))?;
    let pointer = rest
        .strip_prefix("json")
        .map(|p| p.strip_prefix('.').unwrap_or(p))
        .filter(|p| p.is_empty() || p.starts_with('/'))
        .ok_or("a step's answer is read as step.N.json/POINTER, e.g. ${step.1.json/id}")?;
    Ok(Ref::Step {
        step,
        pointer: pointer.to_owned(),
    })
}

/// What a running case fills references in from.
pub trait RefSource {
    /// The profile's value of fixture `key` (checked when the case was loaded).
    fn profile(&self, key: &str) -> Option<String>;
    /// The JSON answer of step `step` (from 1), where it had one.
    fn answer(&self, step: usize) -> Option<&Value>;
}

/// `text` with its references filled in: a string that is one reference alone is the value it
/// names (a number stays a number), anything else a string. An error says which reference
/// named nothing, showing the answer it was looked for in.
pub fn fill(text: &str, source: &dyn RefSource) -> Result<Value, String> {
    let pieces = pieces(text)?;
    if let [TemplatePiece::Ref(_, reference)] = pieces.as_slice() {
        return value(reference, source);
    }
    let mut out = String::new();
    for piece in &pieces {
        match piece {
            TemplatePiece::Text(text) => out.push_str(text),
            TemplatePiece::Ref(_, reference) => match value(reference, source)? {
                Value::String(s) => out.push_str(&s),
                other => out.push_str(&other.to_string()),
            },
        }
    }
    Ok(Value::String(out))
}

/// [`fill`] as text: a value that is no string is written as JSON.
pub fn fill_text(text: &str, source: &dyn RefSource) -> Result<String, String> {
    Ok(match fill(text, source)? {
        Value::String(s) => s,
        other => other.to_string(),
    })
}

/// Every string of a JSON value [`fill`]ed in, keys aside.
pub fn fill_json(value: &Value, source: &dyn RefSource) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => fill(s, source)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| fill_json(v, source))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), fill_json(v, source)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

fn value(reference: &Ref, source: &dyn RefSource) -> Result<Value, String> {
    match reference {
        Ref::Profile(key) => source
            .profile(key)
            .map(Value::String)
            .ok_or_else(|| format!("the profile gives no {key}")),
        Ref::Step { step, pointer } => {
            let answer = source
                .answer(*step)
                .ok_or_else(|| format!("step {step} had no JSON answer to read {pointer:?} in"))?;
            answer.pointer(pointer).cloned().ok_or_else(|| {
                format!(
                    "the JSON pointer {pointer:?} matches nothing in the answer of step {step}: {}",
                    shown(answer)
                )
            })
        }
    }
}

/// An answer as a finding shows it: its JSON, cut at 300 characters.
pub fn shown(answer: &Value) -> String {
    let text = answer.to_string();
    match text.char_indices().nth(300) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct StepAnswers(Vec<Value>);
    impl RefSource for StepAnswers {
        fn profile(&self, key: &str) -> Option<String> {
            (key == "finops.counterpart_id").then(|| "c-1".to_owned())
        }
        fn answer(&self, step: usize) -> Option<&Value> {
            self.0.get(step - 1)
        }
    }

    #[test]
    fn references_are_read_with_their_step_and_pointer() {
        let found = refs("/x/${profile.finops.counterpart_id}/${step.2.json./id}").unwrap();
        assert_eq!(
            found[0].reference,
            Ref::Profile("finops.counterpart_id".into())
        );
        let step = Ref::Step {
            step: 2,
            pointer: "/id".into(),
        };
        assert_eq!(found[1].reference, step);
        assert_eq!(found[1].text, "${step.2.json./id}");
        assert!(refs("${step.0.json/id}").is_err());
        assert!(refs("${step.1.json.id}").is_err());
        assert!(refs("${steps.1}").is_err());
        assert!(refs("${profile.x").is_err());
    }

    #[test]
    fn a_lone_reference_keeps_its_type_and_a_mixed_string_is_text() {
        let answers = StepAnswers(vec![json!({"n": 5, "id": "a"})]);
        assert_eq!(fill("${step.1.json/n}", &answers).unwrap(), json!(5));
        assert_eq!(
            fill(
                "${profile.finops.counterpart_id}/${step.1.json/n}",
                &answers
            )
            .unwrap(),
            json!("c-1/5")
        );
        let error = fill("${step.1.json/missing}", &answers).unwrap_err();
        assert!(error.contains("\"/missing\" matches nothing"), "{error}");
        assert!(error.contains(r#"{"id":"a","n":5}"#), "{error}");
    }
}
