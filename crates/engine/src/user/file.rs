//! A case file read and checked: the TOML of `cases/case.schema.json`, every name in it
//! (operations, rules, profile keys, earlier steps) checked before anything is sent, each
//! mistake named by file, line and column. A bad case file is the user's mistake, never the
//! target's: loading fails (exit 2) rather than a case.

use super::template::{self, Ref};
use crate::catalogue::{did_you_mean, Catalogue};
use crate::profile::{Fixture, Profile};
use crate::schema::OperationId;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The JSON Schema of a case file, for editors (`covenant schema case`).
pub const CASE_SCHEMA: &str = include_str!("../../../../cases/case.schema.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileToml {
    #[serde(rename = "case", default)]
    cases: Vec<CaseToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseToml {
    name: Spanned<String>,
    #[serde(default)]
    #[allow(dead_code)]
    about: Option<String>,
    rule: Option<Spanned<String>>,
    #[serde(rename = "step", default)]
    steps: Vec<StepToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepToml {
    operation: Option<Spanned<String>>,
    method: Option<Spanned<String>>,
    path: Option<Spanned<String>>,
    #[serde(default)]
    ids: Vec<Spanned<String>>,
    #[serde(default)]
    query: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    headers: BTreeMap<String, Spanned<String>>,
    body: Option<Spanned<toml::Value>>,
    write: Option<bool>,
    rule: Option<Spanned<String>>,
    expect: Option<ExpectToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectToml {
    status: Option<Spanned<StatusToml>>,
    #[serde(default)]
    json: BTreeMap<String, Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum StatusToml {
    One(i64),
    Many(Vec<i64>),
}

/// One case of a case file, checked.
#[derive(Debug, Clone)]
pub struct Spec {
    /// `user.FILE.NAME`: the file's stem and the case's name.
    pub id: String,
    pub steps: Vec<CaseStep>,
    /// The fixtures its `${profile.KEY}` references name.
    pub fixtures: Vec<Fixture>,
}

/// One request of a case, and what its answer must show.
#[derive(Debug, Clone)]
pub struct CaseStep {
    pub operation: OperationId,
    /// The whole path, references unfilled, in place of the table's.
    pub path: Option<String>,
    /// The path values no fixture fills, in order.
    pub ids: Vec<String>,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
    pub write: bool,
    /// The rule its expectations, and a reference that names nothing, fail under.
    pub rule: &'static str,
    /// The statuses it accepts; any when empty.
    pub statuses: Vec<u16>,
    /// JSON pointers and the value each must hold.
    pub json: Vec<(String, Value)>,
}

/// A mistake in a case file, where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for FileProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let FileProblem {
            file, line, column, ..
        } = self;
        write!(f, "{}:{line}:{column}: {}", file.display(), self.message)
    }
}

/// Reads the cases of `text` (the file `file`), checking every name against the operations
/// table, the catalogue and `profile`; every mistake found, in the order of the file.
pub fn parse(text: &str, file: &Path, profile: &Profile) -> Result<Vec<Spec>, Vec<FileProblem>> {
    let at = |span: Range<usize>, message: String| {
        let (line, column) = position(text, span.start);
        FileProblem {
            file: file.to_owned(),
            line,
            column,
            message,
        }
    };
    let parsed: FileToml = toml::from_str(text).map_err(|e| {
        let message = e.message().trim_end().to_owned();
        vec![at(e.span().unwrap_or(0..0), message)]
    })?;
    let stem = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let mut reader = Reader {
        text,
        profile,
        problems: Vec::new(),
        at: &at,
        fixtures: Vec::new(),
    };
    if parsed.cases.is_empty() {
        reader.problem(0..0, "the file holds no [[case]]".into());
    }
    let mut specs: Vec<Spec> = Vec::new();
    for case in parsed.cases {
        if let Some(spec) = reader.case(&stem, case, &specs) {
            specs.push(spec);
        }
    }
    let mut problems = reader.problems;
    problems.sort_by_key(|p| (p.line, p.column));
    match problems.is_empty() {
        true => Ok(specs),
        false => Err(problems),
    }
}

/// Line and column (from 1, the column in characters) of byte `offset` of `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

struct Reader<'a> {
    text: &'a str,
    profile: &'a Profile,
    problems: Vec<FileProblem>,
    at: &'a dyn Fn(Range<usize>, String) -> FileProblem,
    /// The fixtures the case being read names.
    fixtures: Vec<Fixture>,
}

impl Reader<'_> {
    fn problem(&mut self, span: Range<usize>, message: String) {
        self.problems.push((self.at)(span, message));
    }

    fn case(&mut self, stem: &str, case: CaseToml, earlier: &[Spec]) -> Option<Spec> {
        let before = self.problems.len();
        let name = case.name.get_ref();
        let well_formed = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !well_formed {
            let message = format!(
                "case name {name:?}: give letters, digits, `-` and `_` only (it is part of the \
                 case's id)"
            );
            self.problem(case.name.span(), message);
        }
        let id = format!("user.{stem}.{name}");
        if earlier.iter().any(|s| s.id == id) {
            self.problem(case.name.span(), format!("a second case named {name:?}"));
        }
        let default_rule = case.rule.as_ref().and_then(|r| self.rule(r));
        if case.steps.is_empty() {
            let message = format!("case {name:?} has no [[case.step]]");
            self.problem(case.name.span(), message);
        }
        let steps: Vec<Option<CaseStep>> = case
            .steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| self.step(i + 1, step, default_rule, &case.name))
            .collect();
        let fixtures = std::mem::take(&mut self.fixtures);
        (self.problems.len() == before).then(|| Spec {
            id,
            steps: steps.into_iter().flatten().collect(),
            fixtures,
        })
    }

    fn step(
        &mut self,
        number: usize,
        step: StepToml,
        default_rule: Option<&'static str>,
        case: &Spanned<String>,
    ) -> Option<CaseStep> {
        let operation = self.operation(number, &step, case);
        let rule = match &step.rule {
            Some(rule) => self.rule(rule),
            None if default_rule.is_some() => default_rule,
            None => {
                let message = format!(
                    "step {number} of case {:?} names no rule: give `rule` to the step or the \
                     case (its failures are reported under it)",
                    case.get_ref()
                );
                self.problem(case.span(), message);
                None
            }
        };
        for text in step
            .path
            .iter()
            .chain(&step.ids)
            .chain(step.headers.values())
        {
            self.references(number, text.get_ref(), text.span());
        }
        let query: Vec<(String, String)> = step
            .query
            .iter()
            .filter_map(|(name, value)| Some((name.clone(), self.scalar(number, value)?)))
            .collect();
        let body = step.body.as_ref().map(|b| self.json(number, b));
        let (statuses, json) = self.expect(number, step.expect.as_ref());
        let operation = operation?;
        let write = step
            .write
            .unwrap_or(operation.operation().method != crate::schema::Method::Get);
        Some(CaseStep {
            operation,
            path: step.path.map(Spanned::into_inner),
            ids: step.ids.into_iter().map(Spanned::into_inner).collect(),
            query,
            headers: (step.headers.into_iter())
                .map(|(k, v)| (k, v.into_inner()))
                .collect(),
            body,
            write,
            rule: rule?,
            statuses,
            json,
        })
    }

    /// The step's operation: by id, or the one whose method and path template fit.
    fn operation(
        &mut self,
        number: usize,
        step: &StepToml,
        case: &Spanned<String>,
    ) -> Option<OperationId> {
        let ids = || OperationId::ALL.iter().map(|op| op.as_str());
        match (&step.operation, &step.method) {
            (Some(name), None) => {
                let found = OperationId::ALL
                    .into_iter()
                    .find(|op| op.as_str() == name.get_ref());
                if found.is_none() {
                    let hint = match did_you_mean(name.get_ref(), ids()) {
                        hint if hint.is_empty() => format!(
                            " (the operations: {})",
                            ids().collect::<Vec<_>>().join(", ")
                        ),
                        hint => hint,
                    };
                    let message = format!("unknown operation {:?}{hint}", name.get_ref());
                    self.problem(name.span(), message);
                }
                if let (Some(op), Some(path)) = (found, &step.path) {
                    if !crate::schema::path_fits(
                        &op.operation().path,
                        &template::blanked(path.get_ref()),
                    ) {
                        let message = format!(
                            "path {:?} does not fit {op}'s template {}",
                            path.get_ref(),
                            op.operation().path
                        );
                        self.problem(path.span(), message);
                    }
                }
                found
            }
            (None, Some(method)) => {
                let Some(path) = &step.path else {
                    let message = "a step with `method` needs `path` too".to_owned();
                    self.problem(method.span(), message);
                    return None;
                };
                let found = OperationId::find(method.get_ref(), &template::blanked(path.get_ref()));
                if found.is_none() {
                    let message = format!(
                        "no operation of the contract is {} {}",
                        method.get_ref(),
                        path.get_ref()
                    );
                    self.problem(method.span(), message);
                }
                found
            }
            (Some(name), Some(_)) => {
                let message = "give `operation` or `method` and `path`, not both".to_owned();
                self.problem(name.span(), message);
                None
            }
            (None, None) => {
                let message = format!(
                    "step {number} of case {:?} names no operation: give `operation` (one of {}) \
                     or `method` and `path`",
                    case.get_ref(),
                    ids().collect::<Vec<_>>().join(", ")
                );
                self.problem(case.span(), message);
                None
            }
        }
    }

    /// The catalogue's rule of this id.
    fn rule(&mut self, rule: &Spanned<String>) -> Option<&'static str> {
        let catalogue = Catalogue::embedded();
        let found = catalogue.rule(rule.get_ref()).map(|r| r.id.as_str());
        if found.is_none() {
            let ids = catalogue.rules.iter().map(|r| r.id.as_str());
            let message = format!(
                "rule {:?} is not in the catalogue{} (`covenant list rules` lists them)",
                rule.get_ref(),
                did_you_mean(rule.get_ref(), ids)
            );
            self.problem(rule.span(), message);
        }
        found
    }

    /// Checks every reference of `text` (at `span` in the file) of step `number`.
    fn references(&mut self, number: usize, text: &str, span: Range<usize>) {
        let found = match template::refs(text) {
            Ok(found) => found,
            Err(message) => return self.problem(span, message),
        };
        for reference in found {
            let why = match &reference.reference {
                Ref::Profile(key) => self.profile_key(key),
                Ref::Step { step, .. } if *step >= number => Some(format!(
                    "step {number} reads the answer of step {step}, which {}",
                    if *step == number {
                        "is itself"
                    } else {
                        "comes after it"
                    }
                )),
                Ref::Step { .. } => None,
            };
            if let Some(why) = why {
                let source = &self.text[span.clone()];
                let start = source
                    .find(&reference.text)
                    .map_or(span.start, |i| span.start + i);
                self.problem(start..start, format!("`{}`: {why}", reference.text));
            }
        }
    }

    /// Why the profile cannot fill `${profile.KEY}`, if it cannot.
    fn profile_key(&mut self, key: &str) -> Option<String> {
        let usable = || Fixture::all().filter(|f| !f.row().consumed);
        let Some(fixture) = Fixture::of_key(key).filter(|f| !f.row().consumed) else {
            let keys: Vec<&str> = usable().map(Fixture::key).collect();
            return Some(format!(
                "no fixture of the profile is {key:?}{}",
                did_you_mean(key, keys.iter().copied())
            ));
        };
        if !self.fixtures.contains(&fixture) {
            self.fixtures.push(fixture);
        }
        fixture.value(self.profile).is_none().then(|| {
            format!("the profile gives no {key}: add it to the profile, or take the reference out of the case")
        })
    }

    /// A query value: a string (its references checked), a number or a boolean.
    fn scalar(&mut self, number: usize, value: &Spanned<toml::Value>) -> Option<String> {
        match value.get_ref() {
            toml::Value::String(s) => {
                self.references(number, s, value.span());
                Some(s.clone())
            }
            toml::Value::Integer(n) => Some(n.to_string()),
            toml::Value::Float(n) => Some(n.to_string()),
            toml::Value::Boolean(b) => Some(b.to_string()),
            _ => {
                let message = "a query value is a string, a number or a boolean".to_owned();
                self.problem(value.span(), message);
                None
            }
        }
    }

    /// A TOML value as JSON, the references of its strings checked.
    fn json(&mut self, number: usize, value: &Spanned<toml::Value>) -> Value {
        let json = serde_json::to_value(value.get_ref()).unwrap_or(Value::Null);
        let mut strings = Vec::new();
        collect_strings(&json, &mut strings);
        for text in strings {
            self.references(number, &text, value.span());
        }
        json
    }

    fn expect(
        &mut self,
        number: usize,
        expect: Option<&ExpectToml>,
    ) -> (Vec<u16>, Vec<(String, Value)>) {
        let Some(expect) = expect else {
            return (Vec::new(), Vec::new());
        };
        let statuses = match expect.status.as_ref().map(|s| (s.get_ref(), s.span())) {
            None => Vec::new(),
            Some((StatusToml::One(n), span)) => self.statuses(&[*n], span),
            Some((StatusToml::Many(ns), span)) => self.statuses(ns, span),
        };
        let mut json = Vec::new();
        for (pointer, value) in &expect.json {
            if !(pointer.is_empty() || pointer.starts_with('/')) {
                let message = format!("{pointer:?} is no JSON pointer: it starts with `/`");
                self.problem(value.span(), message);
            }
            json.push((pointer.clone(), self.json(number, value)));
        }
        (statuses, json)
    }

    fn statuses(&mut self, given: &[i64], span: Range<usize>) -> Vec<u16> {
        let statuses: Vec<u16> = given
            .iter()
            .filter_map(|n| u16::try_from(*n).ok().filter(|n| (100..600).contains(n)))
            .collect();
        if statuses.len() != given.len() || statuses.is_empty() {
            self.problem(span, "a status is a number from 100 to 599".into());
        }
        statuses
    }
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}
