//! `covenant trace`: the trace of the spec laid out for a person (text) or a program (JSON).
//!
//! The trace itself is data of the contract ([`crate::trace`]); what this adds is each entry's
//! constraint globs expanded to the request constraints they name, which only the engine's
//! inventory knows, so the caller hands them in. A rule asked for shows the statements it
//! rests on, strongest first; an entry asked for shows itself whole.

use crate::catalogue::Catalogue;
use crate::trace::{Entry, Strength, Trace};
use serde::Serialize;
use std::collections::BTreeMap;

/// A request constraint of the inventory: its id and the rule a breach of it breaks.
pub struct ConstraintRef<'a> {
    pub id: &'a str,
    pub rule: &'a str,
}

/// One entry as `covenant trace --format json` writes it.
#[derive(Debug, Serialize)]
pub struct EntryView<'a> {
    pub id: &'a str,
    pub section: &'a str,
    pub lines: [usize; 2],
    pub strength: &'static str,
    pub about: &'a str,
    /// Its rules, then the ids of the request constraints its globs match.
    pub judged_by: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<&'a str>,
}

/// The view of one entry.
pub fn entry_view<'a>(entry: &'a Entry, constraints: &[ConstraintRef<'a>]) -> EntryView<'a> {
    let mut judged_by: Vec<&str> = entry.judged_by.iter().map(String::as_str).collect();
    judged_by.extend(
        constraints
            .iter()
            .filter(|c| entry.names_constraint(c.id))
            .map(|c| c.id),
    );
    EntryView {
        id: &entry.id,
        section: &entry.section,
        lines: entry.lines,
        strength: entry.strength.as_str(),
        about: &entry.about,
        judged_by,
        not_judged: entry.not_judged.as_deref(),
        gap: entry.gap.as_deref(),
    }
}

/// The whole trace as JSON: the spec it was written against, then every entry.
pub fn json(trace: &Trace, constraints: &[ConstraintRef<'_>]) -> serde_json::Value {
    let entries: Vec<EntryView<'_>> = trace
        .entries
        .iter()
        .map(|e| entry_view(e, constraints))
        .collect();
    serde_json::json!({ "spec": trace.spec, "entries": entries })
}

/// The whole trace as text: one block per entry in spec order, then the counts.
pub fn text(trace: &Trace, constraints: &[ConstraintRef<'_>]) -> String {
    let mut out = format!(
        "The trace of the spec {} ({}, {} lines): each statement, its strength and what \
         judges it.\n\n",
        trace.spec.version, trace.spec.file, trace.spec.lines
    );
    for entry in &trace.entries {
        out.push_str(&entry_text(&entry_view(entry, constraints)));
    }
    out.push_str(&counts(trace));
    out
}

/// One entry: its head line, then what judges it (constraints counted, not listed: `covenant
/// trace ENTRY-ID` lists them).
fn entry_text(view: &EntryView<'_>) -> String {
    let [a, b] = view.lines;
    let lines = if a == b {
        format!("line {a}")
    } else {
        format!("lines {a}-{b}")
    };
    let mut out = format!(
        "{}  {}, {lines}  [{}]\n    {}\n",
        view.id, view.section, view.strength, view.about
    );
    let rules: Vec<&str> = view
        .judged_by
        .iter()
        .copied()
        .filter(|j| !j.contains(' '))
        .collect();
    let constraints = view.judged_by.len() - rules.len();
    if !rules.is_empty() {
        out.push_str(&format!("    judged by: {}\n", rules.join(", ")));
    }
    if constraints > 0 {
        out.push_str(&format!(
            "    request constraints: {}\n",
            super::plural(constraints, "constraint")
        ));
    }
    if let Some(why) = view.not_judged {
        out.push_str(&format!("    not judged: {why}\n"));
    }
    if let Some(gap) = view.gap {
        out.push_str(&format!("    gap: {gap}\n"));
    }
    out
}

/// `276 entries: 180 stated (172 judged, 8 not observable), 20 illustrated, ...`.
fn counts(trace: &Trace) -> String {
    let mut by: BTreeMap<Strength, usize> = BTreeMap::new();
    for entry in &trace.entries {
        *by.entry(entry.strength).or_default() += 1;
    }
    let reasons = trace
        .entries
        .iter()
        .filter(|e| e.strength == Strength::Stated && e.not_judged.is_some())
        .count();
    let parts: Vec<String> = by
        .iter()
        .map(|(s, n)| match s {
            Strength::Stated => format!("{n} stated ({reasons} of them no client can judge)"),
            s => format!("{n} {s}"),
        })
        .collect();
    format!("\n{} entries: {}\n", trace.entries.len(), parts.join(", "))
}

/// What `covenant trace ID` prints: an entry whole, or a rule and the statements it rests on;
/// `None` when the id is neither.
pub fn one(
    trace: &Trace,
    catalogue: &Catalogue,
    constraints: &[ConstraintRef<'_>],
    id: &str,
) -> Option<String> {
    if let Some(entry) = trace.entry(id) {
        let view = entry_view(entry, constraints);
        let mut out = entry_text(&view);
        for c in view.judged_by.iter().filter(|j| j.contains(' ')) {
            out.push_str(&format!("      {c}\n"));
        }
        return Some(out);
    }
    let rule = catalogue.rule(id)?;
    let mut entries: Vec<&Entry> = trace.judged_by(id).collect();
    entries.sort_by_key(|e| e.strength);
    let mut out = format!("{} ({}): {}\n", rule.id, rule.level, rule.text);
    if entries.is_empty() {
        out.push_str("  rests on no statement of the trace\n");
    } else {
        out.push_str("  rests on:\n");
    }
    for entry in entries {
        out.push_str(&format!("    {}  {}\n", entry.id, entry.citation()));
    }
    let own: Vec<&str> = constraints
        .iter()
        .filter(|c| c.rule == id)
        .map(|c| c.id)
        .collect();
    if !own.is_empty() {
        out.push_str(&format!(
            "  request constraints under it: {}\n",
            super::plural(own.len(), "constraint")
        ));
        for c in own {
            let strongest = trace.naming_constraint(c).map(|e| e.strength).min();
            let strength = strongest.map_or("named by no entry", Strength::as_str);
            out.push_str(&format!("    {c}  [{strength}]\n"));
        }
    }
    Some(out)
}

/// What `covenant trace ID --format json` prints: an entry's view, or a rule with the views of
/// the entries it rests on; `None` when the id is neither.
pub fn one_json(
    trace: &Trace,
    catalogue: &Catalogue,
    constraints: &[ConstraintRef<'_>],
    id: &str,
) -> Option<serde_json::Value> {
    if let Some(entry) = trace.entry(id) {
        return Some(serde_json::json!(entry_view(entry, constraints)));
    }
    let rule = catalogue.rule(id)?;
    let entries: Vec<EntryView<'_>> = trace
        .judged_by(id)
        .map(|e| entry_view(e, constraints))
        .collect();
    Some(serde_json::json!({
        "rule": rule.id,
        "level": rule.level,
        "text": rule.text,
        "entries": entries,
    }))
}

/// The ids `id` may have been meant as: entries and rules, closest first.
pub fn suggestions<'a>(trace: &'a Trace, catalogue: &'a Catalogue, id: &str) -> Vec<&'a str> {
    let upper = id.to_ascii_uppercase();
    let mut scored: Vec<(f64, &str)> = trace
        .entries
        .iter()
        .map(|e| e.id.as_str())
        .chain(catalogue.rules.iter().map(|r| r.id.as_str()))
        .map(|c| (strsim::normalized_damerau_levenshtein(&upper, c), c))
        .filter(|(score, _)| *score > 0.7)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}
