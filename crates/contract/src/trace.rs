//! The trace (`cases/trace.toml`): every statement of the specification, by section and line,
//! with its strength and what judges it.
//!
//! A rule says what covenant checks; the trace says where in the spec that comes from, and how
//! firmly the spec says it. It runs both ways: every non-empty line of the spec that is not a
//! heading or a table's header belongs to an entry, every entry names the rules and request
//! constraints that judge it (or why none can), and every rule and constraint is named by an
//! entry. The strength is what decides a level: only a `stated` entry (a table's type or rule, a
//! sentence) can make a `must` judgement; a sample shape or an example (`illustrated`) judges as
//! `should` at most, and a phrase with two readings is a gap (`not shown`) on which covenant
//! fails no one. The tests of this crate and of the engine hold those conditions, so a rule that
//! outgrows its statement is caught when it is written, not by an implementer's clean run.
//!
//! The trace refers to the spec by line; it does not copy its text (`about` says what a
//! statement states in our words).

use crate::catalogue::{Catalogue, Level};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The trace as shipped with this build.
pub const TRACE_TOML: &str = include_str!("../../../cases/trace.toml");

/// How firmly the spec says what an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Strength {
    /// A table's type or rule, a sentence that says how the API behaves: may fail a target.
    #[serde(rename = "stated")]
    Stated,
    /// A sample shape or an example: judged as `should` at most.
    #[serde(rename = "illustrated")]
    Illustrated,
    /// What the spec says it does not show, or a phrase with two readings: a gap.
    #[serde(rename = "not shown")]
    NotShown,
    /// Nothing a client could judge (an overview, a purpose).
    #[serde(rename = "narrative")]
    Narrative,
}

impl Strength {
    /// The word the trace and the reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Stated => "stated",
            Strength::Illustrated => "illustrated",
            Strength::NotShown => "not shown",
            Strength::Narrative => "narrative",
        }
    }
}

impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which spec the trace was written against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecRef {
    /// The version the spec states (`2026-09-24`).
    pub version: String,
    /// The spec's file name.
    pub file: String,
    /// How many lines it has.
    pub lines: usize,
    /// The SHA-256 of its bytes, hex.
    pub sha256: String,
}

/// One statement of the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Stable id, `S-` and upper case (`S-RCV-TRADE-NAME`).
    pub id: String,
    /// The heading path, as rules name sections (`Resources / Counterpart VAT ID`).
    pub section: String,
    /// First and last line of the spec (1-based, inclusive).
    pub lines: [usize; 2],
    /// What it states, in our words.
    pub about: String,
    pub strength: Strength,
    /// The rules that judge it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judged_by: Vec<String>,
    /// Globs (`*` any characters) over the request-constraint ids that judge it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
    /// Why no client can judge a stated entry that nothing judges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<String>,
    /// The catalogue gap a `not shown` entry is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
}

impl Entry {
    /// `line 69` or `lines 243-248`.
    pub fn where_(&self) -> String {
        match self.lines {
            [a, b] if a == b => format!("line {a}"),
            [a, b] => format!("lines {a}-{b}"),
        }
    }

    /// How a finding cites it: `Resources / Velocity control, line 157 (stated): usageLimit -1
    /// means unlimited`.
    pub fn citation(&self) -> String {
        format!(
            "{}, {} ({}): {}",
            self.section,
            self.where_(),
            self.strength,
            self.about
        )
    }

    /// Whether a client can judge it: a stated entry with no `not_judged` reason, named by a
    /// request constraint or by a rule the catalogue calls observable (a rule that is not says
    /// why in its `why_not`).
    pub fn observable(&self, catalogue: &Catalogue) -> bool {
        let observable = |r: &String| catalogue.rule(r).is_some_and(|r| r.observable);
        self.strength == Strength::Stated
            && self.not_judged.is_none()
            && (!self.constraints.is_empty() || self.judged_by.iter().any(observable))
    }

    /// Whether one of its constraint globs matches `constraint`.
    pub fn names_constraint(&self, constraint: &str) -> bool {
        self.constraints.iter().any(|g| glob(g, constraint))
    }
}

/// The whole trace.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    pub spec: SpecRef,
    #[serde(rename = "entry")]
    pub entries: Vec<Entry>,
}

/// A trace that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cases/trace.toml does not parse: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("cases/trace.toml: entry id {0} is used more than once; entry ids must be unique")]
    DuplicateId(String),
    #[error("cases/trace.toml: entry {id} has lines {first}-{last}, outside 1-{lines}")]
    Lines {
        id: String,
        first: usize,
        last: usize,
        lines: usize,
    },
}

impl Trace {
    /// The trace embedded in this build.
    pub fn embedded() -> &'static Trace {
        static TRACE: std::sync::OnceLock<Trace> = std::sync::OnceLock::new();
        TRACE.get_or_init(|| {
            Trace::parse(TRACE_TOML).expect("the embedded trace is checked by tests")
        })
    }

    /// Parses a trace and checks what needs nothing else: unique ids, lines inside the spec.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let trace: Trace = toml::from_str(text)?;
        let mut seen = std::collections::HashSet::new();
        for entry in &trace.entries {
            if !seen.insert(entry.id.as_str()) {
                return Err(TraceError::DuplicateId(entry.id.clone()));
            }
            let [first, last] = entry.lines;
            if first == 0 || first > last || last > trace.spec.lines {
                return Err(TraceError::Lines {
                    id: entry.id.clone(),
                    first,
                    last,
                    lines: trace.spec.lines,
                });
            }
        }
        Ok(trace)
    }

    /// The entry with this id.
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The entries a rule judges, in spec order.
    pub fn judged_by<'a>(&'a self, rule: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.judged_by.iter().any(|r| r == rule))
    }

    /// The entries naming a request constraint, in spec order.
    pub fn naming_constraint<'a>(
        &'a self,
        constraint: &'a str,
    ) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.names_constraint(constraint))
    }

    /// The statement a finding under `rule` rests on: its first stated entry, else its first.
    pub fn statement(&self, rule: &str) -> Option<&Entry> {
        let mut entries = self
            .entries
            .iter()
            .filter(|e| e.judged_by.iter().any(|r| r == rule));
        let first = entries.clone().next();
        entries.find(|e| e.strength == Strength::Stated).or(first)
    }

    /// The strongest strength among a rule's entries (`None`: no entry names it).
    pub fn strength_of(&self, rule: &str) -> Option<Strength> {
        self.judged_by(rule).map(|e| e.strength).min()
    }

    /// The lines of `spec` (its text) an entry must cover that none does: every non-empty line
    /// that is not a heading, a table's header row or its `|---|` row.
    pub fn untraced_lines(&self, spec: &str) -> Vec<usize> {
        let lines: Vec<&str> = spec.lines().collect();
        let separator = |l: &str| l.starts_with('|') && l.contains("---");
        let needs = |i: usize| {
            let line = lines[i].trim();
            let header = lines.get(i + 1).is_some_and(|next| separator(next.trim()));
            !(line.is_empty() || line.starts_with('#') || separator(line) || header)
        };
        (0..lines.len())
            .filter(|&i| needs(i))
            .map(|i| i + 1)
            .filter(|&n| {
                !self
                    .entries
                    .iter()
                    .any(|e| e.lines[0] <= n && n <= e.lines[1])
            })
            .collect()
    }

    /// What breaks the conditions that need only the catalogue: ids it names that do not
    /// exist, a rule no entry names, a must rule without a stated entry, a stated entry nothing
    /// judges with no reason, a `not shown` entry without its gap. Empty when all hold.
    pub fn problems(&self, catalogue: &Catalogue) -> Vec<String> {
        let mut problems = Vec::new();
        for entry in &self.entries {
            problems.extend(entry_problems(entry, catalogue));
        }
        for rule in &catalogue.rules {
            match self.strength_of(&rule.id) {
                None => problems.push(format!("rule {} is named by no entry", rule.id)),
                Some(s) if rule.level == Level::Must && s != Strength::Stated => {
                    problems.push(format!(
                        "rule {} is must but rests on no stated entry (its strongest is {s}): \
                         lower it to should, or name the sentence that states it",
                        rule.id
                    ))
                }
                Some(_) => {}
            }
        }
        problems
    }
}

/// What is wrong with one entry against the catalogue.
fn entry_problems(entry: &Entry, catalogue: &Catalogue) -> Vec<String> {
    let mut problems = Vec::new();
    let id = &entry.id;
    for rule in &entry.judged_by {
        if catalogue.rule(rule).is_none() {
            problems.push(format!(
                "entry {id} names rule {rule}, which the catalogue lacks"
            ));
        }
    }
    let judged = !entry.judged_by.is_empty() || !entry.constraints.is_empty();
    match entry.strength {
        Strength::Stated if !judged && entry.not_judged.is_none() => problems.push(format!(
            "entry {id} is stated but names no rule or constraint, and no not_judged reason"
        )),
        Strength::NotShown => match &entry.gap {
            None => problems.push(format!("entry {id} is not shown but names no gap")),
            Some(gap) if !catalogue.gaps.iter().any(|g| &g.id == gap) => problems.push(format!(
                "entry {id} names gap {gap}, which the catalogue lacks"
            )),
            Some(_) => {}
        },
        _ => {}
    }
    problems
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters (none too) and
/// `\*` for a star itself (constraint ids name array items `*`: `/line_items/\*/quantity`).
pub fn glob(pattern: &str, text: &str) -> bool {
    // Reports match every statement against every constraint: most patterns escape nothing,
    // and are matched on slices of themselves, without building their parts.
    if pattern.contains('\\') {
        let parts = literal_parts(pattern);
        glob_parts(parts.iter().map(String::as_str), text)
    } else {
        glob_parts(pattern.split('*'), text)
    }
}

/// Whether `text` is the first part, then each middle part in turn, then the last part, with
/// anything between them.
fn glob_parts<'a>(mut parts: impl Iterator<Item = &'a str>, text: &str) -> bool {
    let first = parts.next().expect("split yields one part at least");
    let Some(mut rest_text) = text.strip_prefix(first) else {
        return false;
    };
    let Some(mut part) = parts.next() else {
        return rest_text.is_empty();
    };
    for next in parts {
        match rest_text.find(part) {
            Some(at) => rest_text = &rest_text[at + part.len()..],
            None => return false,
        }
        part = next;
    }
    rest_text.len() >= part.len() && rest_text.ends_with(part)
}

/// The literal runs between a pattern's wildcards, `\*` read as a star of the run.
fn literal_parts(pattern: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'*') => {
                chars.next();
                parts.last_mut().expect("never empty").push('*');
            }
            '*' => parts.push(String::new()),
            c => parts.last_mut().expect("never empty").push(c),
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_stars_anywhere() {
        assert!(glob(
            "*-create /trade_name *",
            "quote-create /trade_name maxLength 255"
        ));
        assert!(glob(
            "*-create /trade_name *",
            "invoice-create /trade_name or null"
        ));
        assert!(!glob(
            "*-create /trade_name *",
            "quote-create /memo or null"
        ));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
        assert!(glob("a*b*c", "abc"));
        assert!(glob("a*b*c", "a-x-b-y-c"));
        assert!(!glob("a*b*c", "a-x-c-y-b"));
        assert!(glob("*", ""));
        assert!(!glob("ab*ba", "aba"));
        // An escaped star is the array-item star of a constraint id, not a wildcard.
        let item = r"quote-create /line_items/\* not null";
        assert!(glob(item, "quote-create /line_items/* not null"));
        assert!(!glob(item, "quote-create /line_items/*/quantity not null"));
        assert!(glob(
            r"*-create /line_items/\*/*",
            "invoice-create /line_items/*/quantity not null"
        ));
    }

    fn sample() -> Trace {
        Trace::parse(
            r#"
            [spec]
            version = "v"
            file = "f"
            lines = 6
            sha256 = "0"

            [[entry]]
            id = "S-A"
            section = "Intro"
            lines = [1, 1]
            about = "a"
            strength = "stated"
            judged_by = ["R-MUST"]

            [[entry]]
            id = "S-B"
            section = "Intro"
            lines = [4, 4]
            about = "b"
            strength = "illustrated"
            judged_by = ["R-SHOULD", "R-MUST-ILL"]
            "#,
        )
        .expect("parses")
    }

    #[test]
    fn untraced_lines_skip_headings_blanks_and_table_headers() {
        let spec = "one\n\n| a | b |\n|---|---|\n| x | y |\n# heading\n";
        // Line 1 is traced; line 3 is a table header, 4 its separator, 6 a heading: only line 5
        // is missing (entry S-B covers line 4, which needs none).
        assert_eq!(sample().untraced_lines(spec), vec![5]);
    }

    #[test]
    fn a_must_rule_on_an_illustrated_entry_alone_is_a_problem() {
        let catalogue = Catalogue::parse(
            r#"
            [[rule]]
            id = "R-MUST"
            section = "s"
            text = "t"
            level = "must"
            observable = true
            checks = ["case:x"]
            [[rule]]
            id = "R-SHOULD"
            section = "s"
            text = "t"
            level = "should"
            observable = true
            checks = ["case:x"]
            [[rule]]
            id = "R-MUST-ILL"
            section = "s"
            text = "t"
            level = "must"
            observable = true
            checks = ["case:x"]
            [[rule]]
            id = "R-NAMED-BY-NONE"
            section = "s"
            text = "t"
            level = "should"
            observable = true
            checks = ["case:x"]
            "#,
        )
        .expect("catalogue");
        let problems = sample().problems(&catalogue);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[0].contains("R-MUST-ILL is must but rests on no stated entry"));
        assert!(problems[1].contains("R-NAMED-BY-NONE is named by no entry"));
    }

    #[test]
    fn a_finding_cites_the_stated_entry_first() {
        let trace = sample();
        let cited = trace.statement("R-MUST").expect("an entry").citation();
        assert_eq!(cited, "Intro, line 1 (stated): a");
        assert_eq!(trace.strength_of("R-MUST-ILL"), Some(Strength::Illustrated));
        assert_eq!(trace.strength_of("R-NONE"), None);
    }

    /// The spec the trace was written against, where this checkout has it beside it (as
    /// `../shared/spec/` of the repository, or `COVENANT_SPEC`); CI always does.
    fn spec_text() -> Option<String> {
        let trace = Trace::embedded();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let path = std::env::var_os("COVENANT_SPEC")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| root.join("../shared/spec").join(&trace.spec.file));
        let text = std::fs::read_to_string(&path).ok();
        if text.is_none() {
            assert!(
                std::env::var_os("CI").is_none(),
                "the spec is not at {} (set COVENANT_SPEC)",
                path.display()
            );
            eprintln!(
                "the spec is not at {}: the trace's lines are not checked",
                path.display()
            );
        }
        text
    }

    #[test]
    fn the_embedded_trace_holds_against_the_catalogue() {
        let problems = Trace::embedded().problems(Catalogue::embedded());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn the_embedded_trace_tiles_every_line_of_the_spec_it_names() {
        let Some(spec) = spec_text() else {
            return;
        };
        let trace = Trace::embedded();
        assert_eq!(
            spec.lines().count(),
            trace.spec.lines,
            "the spec's line count"
        );
        let sha = std::process::Command::new("sha256sum")
            .arg("-")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .expect("piped")
                    .write_all(spec.as_bytes())?;
                child.wait_with_output()
            });
        if let Ok(out) = sha {
            let hex = String::from_utf8_lossy(&out.stdout);
            assert!(
                hex.starts_with(&trace.spec.sha256),
                "the spec changed since the trace was written: sha256 {hex}"
            );
        }
        let untraced = trace.untraced_lines(&spec);
        assert!(
            untraced.is_empty(),
            "spec lines no entry covers: {untraced:?}"
        );
    }

    #[test]
    fn lines_outside_the_spec_are_refused() {
        let text = "[spec]\nversion='v'\nfile='f'\nlines=3\nsha256='0'\n[[entry]]\nid='S-X'\n\
                    section='s'\nlines=[2,4]\nabout='a'\nstrength='narrative'\n";
        let err = Trace::parse(text).expect_err("outside");
        assert!(
            err.to_string().contains("S-X has lines 2-4, outside 1-3"),
            "{err}"
        );
    }
}
