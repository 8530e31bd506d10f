//! Known failures: a baseline of the failures a team accepts today, so that a gate fails only on
//! what is new.
//!
//! A baseline is a TOML file the team checks into its repository and reads in review: one entry
//! per broken rule, the cases that broke it, a reason ("tracked in #123") and an optional `until`
//! date. [`Baseline::from_record`] writes one from a run; [`Baseline::apply`] marks the failures
//! of a run that an entry holds as *known*: they stay in the record, with their reason, but no
//! longer fail the run. What the baseline does not hold fails as before, and so does a rule an
//! entry holds broken by a case the entry does not list.
//!
//! The baseline must stay honest, or a gate on it proves nothing: an entry whose cases ran and no
//! longer break its rule is *stale* (the target was fixed, and the rule could break again
//! unseen), which fails the gate with its own verdict until the entry is removed; an entry past
//! its `until` date no longer holds anything, so its failures fail again, named as expired; and
//! an entry naming a rule the catalogue does not know, or a case the suite does not have, is the
//! user's typo, named with its line before anything is sent.
//!
//! This module only reclassifies: it never changes evidence, so coverage is the same with or
//! without a baseline (a known failure still counts as a judged rule).

use crate::catalogue::{Catalogue, Level};
use crate::verdict::{BaselineOutcome, CaseResult, Counts, RunRecord, StaleEntry, Verdict};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A baseline read from its file.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// The file as the user named it (reports say it in these words).
    pub path: PathBuf,
    /// The file's text, for the line of an entry in a message.
    text: String,
    entries: Vec<KnownEntry>,
}

/// One entry: a rule, the cases known to break it, and why that is accepted for now.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownEntry {
    rule: Spanned<String>,
    /// Informational: the level the rule had when the entry was written.
    #[serde(default)]
    #[allow(dead_code)]
    level: Option<Level>,
    cases: Vec<Spanned<String>>,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    until: Option<Spanned<toml::Value>>,
    /// Informational, written for readers: what the rule states.
    #[serde(default)]
    #[allow(dead_code)]
    statement: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    #[serde(default)]
    known: Vec<KnownEntry>,
}

/// A baseline that cannot be used: the user's mistake, named where it is (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read the baseline {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the baseline {path} is not valid: {message}")]
    Parse { path: String, message: String },
    #[error(
        "{path}:{line}: the baseline names the rule `{rule}`, which the catalogue does not know{hint} \
         (`covenant list rules` lists them)"
    )]
    UnknownRule {
        path: String,
        line: usize,
        rule: String,
        hint: String,
    },
    #[error(
        "{path}:{line}: the baseline names the case `{case}`, which the suite does not have{hint} \
         (`covenant run --list` lists them)"
    )]
    UnknownCase {
        path: String,
        line: usize,
        case: String,
        hint: String,
    },
    #[error("{path}:{line}: `until` must be a date (until = 2027-01-31), not {value}")]
    BadUntil {
        path: String,
        line: usize,
        value: String,
    },
}

impl Baseline {
    /// Reads and checks a baseline file: its rules must be in `catalogue`.
    pub fn read(path: &Path, catalogue: &Catalogue) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Baseline::parse(&text, path, catalogue)
    }

    /// [`Baseline::read`] of text already read.
    pub fn parse(
        text: &str,
        path: &Path,
        catalogue: &Catalogue,
    ) -> Result<Baseline, BaselineError> {
        let shown = path.display().to_string();
        let file: BaselineFile = toml::from_str(text).map_err(|e| BaselineError::Parse {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        let baseline = Baseline {
            path: path.to_owned(),
            text: text.to_owned(),
            entries: file.known,
        };
        for entry in &baseline.entries {
            if catalogue.rule(entry.rule.get_ref()).is_none() {
                let ids = catalogue.rules.iter().map(|r| r.id.as_str());
                return Err(BaselineError::UnknownRule {
                    path: shown,
                    line: line_of(text, entry.rule.span().start),
                    rule: entry.rule.get_ref().clone(),
                    hint: crate::catalogue::did_you_mean(entry.rule.get_ref(), ids),
                });
            }
            if let Some(until) = &entry.until {
                if date_of(until.get_ref()).is_none() {
                    return Err(BaselineError::BadUntil {
                        path: shown,
                        line: line_of(text, until.span().start),
                        value: until.get_ref().to_string(),
                    });
                }
            }
        }
        Ok(baseline)
    }

    /// Checks that every case an entry lists is one the suite has: `known` holds the id of
    /// every case the suite can plan (ids do not depend on the seed or on `--cases`).
    pub fn check_cases<'a>(
        &self,
        known: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), BaselineError> {
        let known: BTreeSet<&str> = known.into_iter().collect();
        for entry in &self.entries {
            for case in &entry.cases {
                let id = case.get_ref().as_str();
                if !known.contains(id) {
                    return Err(BaselineError::UnknownCase {
                        path: self.path.display().to_string(),
                        line: line_of(&self.text, case.span().start),
                        case: id.to_owned(),
                        hint: crate::catalogue::did_you_mean(id, known.iter().copied()),
                    });
                }
            }
        }
        Ok(())
    }

    /// Marks the failures of `record` that an entry holds as known, recomputes the verdicts and
    /// counts of the cases they change, and writes what the baseline did into the record's meta.
    /// `today` decides which entries have expired; `accept_stale` is the flag of the run that
    /// removes stale entries. A record that already carries a baseline's marks (shards run with
    /// one, merged) is judged afresh.
    pub fn apply(&self, record: &mut RunRecord, today: time::Date, accept_stale: bool) {
        forget(record);
        let gate = self.clone().gate(today, accept_stale);
        for case in &mut record.cases {
            gate.mark(case);
        }
        gate.judge(record);
    }

    /// The baseline as a run uses it: each case marked as its result comes
    /// ([`Gate::mark`], so that the console shows it known), the run judged at its end
    /// ([`Gate::judge`]).
    pub fn gate(self, today: time::Date, accept_stale: bool) -> Gate {
        Gate {
            index: self
                .index()
                .into_iter()
                .map(|((rule, case), i)| ((rule.to_owned(), case.to_owned()), i))
                .collect(),
            baseline: self,
            today,
            accept_stale,
        }
    }

    /// The entry of each (rule, case) pair, the first entry winning.
    fn index(&self) -> BTreeMap<(&str, &str), usize> {
        let mut index = BTreeMap::new();
        for (i, entry) in self.entries.iter().enumerate() {
            for case in &entry.cases {
                index
                    .entry((entry.rule.get_ref().as_str(), case.get_ref().as_str()))
                    .or_insert(i);
            }
        }
        index
    }

    /// Entries (not expired) with listed cases that ran and no longer break the rule.
    fn stale(
        &self,
        broke: &BTreeSet<(String, String)>,
        ran: &BTreeSet<&str>,
        today: time::Date,
    ) -> Vec<StaleEntry> {
        let mut stale = Vec::new();
        for entry in self.entries.iter().filter(|e| !e.expired(today)) {
            let rule = entry.rule.get_ref().as_str();
            let fixed: Vec<String> = entry
                .cases
                .iter()
                .map(|c| c.get_ref())
                .filter(|c| {
                    ran.contains(c.as_str()) && !broke.contains(&(rule.to_owned(), (*c).clone()))
                })
                .cloned()
                .collect();
            if !fixed.is_empty() {
                stale.push(StaleEntry {
                    rule: rule.to_owned(),
                    whole: fixed.len() == entry.cases.len(),
                    cases: fixed,
                });
            }
        }
        stale
    }

    /// A baseline holding every failure of `record` (and its warnings with `warnings`), as TOML
    /// to check into a repository: one entry per broken rule, in rule id order. A client's
    /// slips are no failure of the target: never listed.
    pub fn from_record(record: &RunRecord, catalogue: &Catalogue, warnings: bool) -> String {
        let mut by_rule: BTreeMap<&str, (Level, BTreeSet<&str>)> = BTreeMap::new();
        let targets = record.cases.iter().filter(|c| c.verdict != Verdict::Client);
        for case in targets {
            for finding in &case.findings {
                if finding.level == Level::Should && !warnings {
                    continue;
                }
                by_rule
                    .entry(finding.rule.as_str())
                    .or_insert((finding.level, BTreeSet::new()))
                    .1
                    .insert(case.id.as_str());
            }
        }
        render(record, catalogue, &by_rule)
    }
}

/// A baseline at work in one run.
#[derive(Debug, Clone)]
pub struct Gate {
    baseline: Baseline,
    index: BTreeMap<(String, String), usize>,
    today: time::Date,
    accept_stale: bool,
}

impl Gate {
    /// Marks the failures of one case that the baseline holds as known (an expired entry holds
    /// none), and sets the case's verdict accordingly. A client's slips are the client's, not
    /// failures of the target: no entry holds them.
    pub fn mark(&self, case: &mut CaseResult) {
        if case.verdict == Verdict::Client {
            return;
        }
        for finding in &mut case.findings {
            let key = (finding.rule.clone(), case.id.clone());
            let Some(&i) = self.index.get(&key) else {
                continue;
            };
            let entry = &self.baseline.entries[i];
            if !entry.expired(self.today) {
                finding.known = Some(entry.reason_or_default());
            }
        }
        reclassify(case);
    }

    /// What the baseline did to a run whose cases [`Gate::mark`] has seen: the known findings,
    /// the stale entries and the expired ones, in the record's meta; then the record settled
    /// again ([`RunRecord::settle`]: `--strict` and the counts).
    pub fn judge(&self, record: &mut RunRecord) {
        let (today, entries) = (self.today, &self.baseline.entries);
        record.settle();
        let mut broke: BTreeSet<(String, String)> = BTreeSet::new();
        let mut expired_hit: BTreeMap<usize, usize> = BTreeMap::new();
        let mut known = 0;
        let targets = record.cases.iter().filter(|c| c.verdict != Verdict::Client);
        for case in targets {
            for finding in &case.findings {
                let key = (finding.rule.clone(), case.id.clone());
                known += usize::from(finding.known.is_some());
                if let Some(&i) = self.index.get(&key) {
                    if entries[i].expired(today) {
                        *expired_hit.entry(i).or_default() += 1;
                    }
                }
                broke.insert(key);
            }
        }
        let ran: BTreeSet<&str> = record
            .cases
            .iter()
            .filter(|c| ran_to_a_verdict(c))
            .map(|c| c.id.as_str())
            .collect();
        let stale = self.baseline.stale(&broke, &ran, today);
        let expired = expired_hit
            .into_iter()
            .map(|(i, hits)| {
                let e = &entries[i];
                format!(
                    "{} (until {}; {hits} failure(s) it held fail again)",
                    e.rule.get_ref(),
                    e.until_text()
                )
            })
            .collect();
        record.meta.baseline = Some(BaselineOutcome {
            file: self.baseline.path.display().to_string(),
            known,
            stale,
            expired,
            accept_stale: self.accept_stale,
        });
    }
}

impl KnownEntry {
    fn expired(&self, today: time::Date) -> bool {
        self.until
            .as_ref()
            .and_then(|u| date_of(u.get_ref()))
            .is_some_and(|until| until < today)
    }

    fn until_text(&self) -> String {
        self.until
            .as_ref()
            .map(|u| u.get_ref().to_string().trim_matches('"').to_owned())
            .unwrap_or_default()
    }

    fn reason_or_default(&self) -> String {
        if self.reason.trim().is_empty() {
            "in the baseline (no reason given)".to_owned()
        } else {
            self.reason.trim().to_owned()
        }
    }
}

/// A record as it was before any baseline: shards run with one and merged may carry its marks.
pub fn forget(record: &mut RunRecord) {
    for case in &mut record.cases {
        let mut had = false;
        for finding in &mut case.findings {
            had |= finding.known.take().is_some();
        }
        if had && case.verdict == Verdict::Known {
            case.verdict = CaseResult::judge(
                &case.findings,
                case.error.as_deref(),
                !case.inconclusive.is_empty(),
            );
        }
    }
    record.counts = Counts {
        requests: record.counts.requests,
        ..Counts::of(&record.cases)
    };
    record.meta.baseline = None;
}

/// The case's verdict with its known findings set aside: a case whose every finding is known
/// is `known`, neither a failure nor a pass; an error or an unknown finding keeps its verdict.
/// Only a failure or a warning changes: any other verdict (a client's slips among them) is left
/// alone.
fn reclassify(case: &mut CaseResult) {
    if !matches!(case.verdict, Verdict::Fail | Verdict::Warn) {
        return;
    }
    let unknown: Vec<_> = case
        .findings
        .iter()
        .filter(|f| f.known.is_none())
        .cloned()
        .collect();
    let any_known = unknown.len() < case.findings.len();
    let judged = CaseResult::judge(
        &unknown,
        case.error.as_deref(),
        !case.inconclusive.is_empty(),
    );
    case.verdict = match judged {
        Verdict::Pass | Verdict::Inconclusive if any_known => Verdict::Known,
        // A case with a known failure and an unknown warning warns (`--strict` fails it when
        // the run is settled).
        other => other,
    };
}

fn ran_to_a_verdict(case: &CaseResult) -> bool {
    matches!(
        case.verdict,
        Verdict::Pass | Verdict::Warn | Verdict::Fail | Verdict::Known
    )
}

fn date_of(value: &toml::Value) -> Option<time::Date> {
    let text = match value {
        toml::Value::Datetime(d) if d.time.is_none() && d.offset.is_none() => d.to_string(),
        toml::Value::String(s) => s.clone(),
        _ => return None,
    };
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(text.trim(), &format).ok()
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn render(
    record: &RunRecord,
    catalogue: &Catalogue,
    by_rule: &BTreeMap<&str, (Level, BTreeSet<&str>)>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# covenant baseline: the failures of {} known on {} (seed {}).\n\
         # Check it in and gate on it: `covenant run --baseline <this file>` fails only on what is\n\
         # new. Fill in each reason (\"tracked in #123\"); `until = 2027-01-31` makes an entry\n\
         # expire. Remove an entry once its rule holds again: covenant fails a stale one.",
        record.meta.target,
        record.meta.started_at.get(..10).unwrap_or(&record.meta.started_at),
        record.meta.seed
    );
    if by_rule.is_empty() {
        let _ = writeln!(out, "# The run broke no rule: there is nothing to hold.");
    }
    for (rule, (level, cases)) in by_rule {
        let statement = catalogue.rule(rule).map(|r| r.text.as_str()).unwrap_or("");
        let _ = writeln!(out, "\n[[known]]");
        let _ = writeln!(out, "rule = {}", toml_string(rule));
        let _ = writeln!(out, "level = \"{level}\"");
        let _ = writeln!(out, "statement = {}", toml_string(statement));
        let _ = writeln!(out, "reason = \"\"");
        let _ = writeln!(out, "# until = 2027-01-31");
        let _ = writeln!(out, "cases = [");
        for case in cases {
            let _ = writeln!(out, "  {},", toml_string(case));
        }
        let _ = writeln!(out, "]");
    }
    out
}

fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Finding;

    fn catalogue() -> &'static Catalogue {
        Catalogue::embedded()
    }

    fn case(id: &str, findings: &[(&str, Level)]) -> CaseResult {
        let findings: Vec<Finding> = findings
            .iter()
            .map(|(rule, level)| Finding::new(rule, *level, "broken"))
            .collect();
        serde_json::from_value(serde_json::json!({
            "id": id, "suite": "s", "rules": [],
            "verdict": CaseResult::judge(&findings, None, false),
            "findings": findings, "exchanges": [], "duration_ms": 1.0,
        }))
        .expect("a case")
    }

    fn today() -> time::Date {
        time::macros::date!(2026 - 11 - 25)
    }

    fn baseline(text: &str) -> Result<Baseline, BaselineError> {
        Baseline::parse(text, Path::new("baseline.toml"), catalogue())
    }

    const RULE: &str = "RCV-CREATE-201";
    const OTHER: &str = "RCV-UNKNOWN-PROPS";

    #[test]
    fn a_written_baseline_makes_the_same_failures_known_and_the_run_pass() {
        let run = RunRecord::of_cases(vec![
            case("receivable.create-quote", &[(RULE, Level::Must)]),
            case("receivable.create-invoice", &[]),
        ]);
        assert_eq!(run.verdict(), crate::verdict::RunVerdict::Fail);
        let text = Baseline::from_record(&run, catalogue(), false);
        assert!(text.contains("rule = \"RCV-CREATE-201\""), "{text}");
        let mut again = run.clone();
        baseline(&text)
            .expect("parses")
            .apply(&mut again, today(), false);
        assert_eq!(again.verdict(), crate::verdict::RunVerdict::Pass);
        assert_eq!(again.counts.known, 1);
        assert_eq!(again.counts.fail, 0);
        assert_eq!(again.cases[0].verdict, Verdict::Known);
        let outcome = again.meta.baseline.expect("an outcome");
        assert_eq!((outcome.known, outcome.stale.len()), (1, 0));
    }

    #[test]
    fn a_rule_broken_by_an_unlisted_case_or_another_rule_is_new() {
        let written = RunRecord::of_cases(vec![case("a.one", &[(RULE, Level::Must)])]);
        let text = Baseline::from_record(&written, catalogue(), false);
        let mut run = RunRecord::of_cases(vec![
            case("a.one", &[(RULE, Level::Must)]),
            case("a.two", &[(RULE, Level::Must)]),
            case("a.three", &[(OTHER, Level::Must)]),
        ]);
        baseline(&text).unwrap().apply(&mut run, today(), false);
        assert_eq!(run.verdict(), crate::verdict::RunVerdict::Fail);
        assert_eq!(run.counts.fail, 2, "a.two and a.three are new");
        assert_eq!(run.cases[0].verdict, Verdict::Known);
    }

    #[test]
    fn an_entry_whose_case_no_longer_breaks_its_rule_is_stale_and_fails_the_gate() {
        let text = format!("[[known]]\nrule = \"{RULE}\"\ncases = [\"a.one\", \"a.gone\"]\n");
        let mut run = RunRecord::of_cases(vec![case("a.one", &[])]);
        baseline(&text).unwrap().apply(&mut run, today(), false);
        assert_eq!(run.verdict(), crate::verdict::RunVerdict::StaleBaseline);
        assert_eq!(run.verdict().exit_code(), crate::exit::STALE_BASELINE);
        let outcome = run.meta.baseline.clone().unwrap();
        assert_eq!(
            outcome.stale[0].cases,
            vec!["a.one".to_owned()],
            "a.gone did not run"
        );
        // Some of the entry's cases, not the whole entry: those cases go (the report says so).
        assert!(!outcome.stale[0].whole, "{outcome:?}");
        baseline(&text).unwrap().apply(&mut run, today(), true);
        assert_eq!(
            run.verdict(),
            crate::verdict::RunVerdict::Pass,
            "--accept-stale"
        );
    }

    #[test]
    fn an_expired_entry_holds_nothing_and_says_so() {
        let text = format!(
            "[[known]]\nrule = \"{RULE}\"\nreason = \"tracked in #1\"\nuntil = 2026-11-24\ncases = [\"a.one\"]\n"
        );
        let mut run = RunRecord::of_cases(vec![case("a.one", &[(RULE, Level::Must)])]);
        baseline(&text).unwrap().apply(&mut run, today(), false);
        assert_eq!(run.verdict(), crate::verdict::RunVerdict::Fail);
        let outcome = run.meta.baseline.clone().unwrap();
        assert!(
            outcome.expired[0].contains("until 2026-11-24"),
            "{:?}",
            outcome.expired
        );
        assert!(
            outcome.stale.is_empty(),
            "an expired entry is not also stale"
        );
        let text = text.replace("2026-11-24", "2026-11-25");
        baseline(&text).unwrap().apply(&mut run, today(), false);
        assert_eq!(
            run.verdict(),
            crate::verdict::RunVerdict::Pass,
            "valid through its day"
        );
        assert_eq!(
            run.cases[0].findings[0].known.as_deref(),
            Some("tracked in #1")
        );
    }

    #[test]
    fn a_misspelt_rule_is_named_with_its_line_and_the_closest_rule() {
        let text = "# header\n\n[[known]]\nrule = \"RCV-CREATE-210\"\ncases = []\n";
        let error = baseline(text).unwrap_err().to_string();
        assert!(error.starts_with("baseline.toml:4:"), "{error}");
        assert!(error.contains("did you mean `RCV-CREATE-201`"), "{error}");
    }

    #[test]
    fn a_case_the_suite_does_not_have_is_named_with_its_line() {
        let text =
            format!("[[known]]\nrule = \"{RULE}\"\ncases = [\n  \"receivable.create-quot\",\n]\n");
        let b = baseline(&text).unwrap();
        let error = b
            .check_cases(["receivable.create-quote", "velocity.duplicate-id"])
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("baseline.toml:4:"), "{error}");
        assert!(
            error.contains("did you mean `receivable.create-quote`"),
            "{error}"
        );
        assert!(b.check_cases(["receivable.create-quot"]).is_ok());
    }

    #[test]
    fn an_unknown_key_or_a_bad_date_is_the_users_mistake() {
        let unknown = format!("[[known]]\nrule = \"{RULE}\"\ncases = []\nreasn = \"x\"\n");
        assert!(baseline(&unknown)
            .unwrap_err()
            .to_string()
            .contains("reasn"));
        let date = format!("[[known]]\nrule = \"{RULE}\"\ncases = []\nuntil = \"soon\"\n");
        let error = baseline(&date).unwrap_err().to_string();
        assert!(
            error.contains("baseline.toml:4:") && error.contains("must be a date"),
            "{error}"
        );
    }

    #[test]
    fn warnings_are_written_only_when_asked_and_known_ones_keep_a_strict_run_passing() {
        let mut run = RunRecord::of_cases(vec![case("a.one", &[(OTHER, Level::Should)])]);
        run.meta.strict = true;
        assert!(!Baseline::from_record(&run, catalogue(), false).contains("[[known]]"));
        let text = Baseline::from_record(&run, catalogue(), true);
        baseline(&text).unwrap().apply(&mut run, today(), false);
        assert_eq!(run.verdict(), crate::verdict::RunVerdict::Pass);
    }

    /// A client's slip of real traffic, breaking `RULE`.
    fn slip() -> CaseResult {
        let mut slip = case("client.list-transactions", &[(RULE, Level::Must)]);
        slip.suite = crate::verdict::CLIENT_SUITE.to_owned();
        slip.verdict = Verdict::Client;
        slip
    }

    #[test]
    fn forgetting_a_baseline_or_judging_with_one_leaves_a_clients_slips_alone() {
        let mut run = RunRecord::of_cases(vec![slip(), case("a.one", &[(RULE, Level::Must)])]);
        forget(&mut run);
        assert_eq!(run.cases[0].verdict, Verdict::Client);
        assert_eq!((run.counts.client, run.counts.fail), (1, 1));
        // Even an entry naming the slip's case holds nothing of it.
        let text = format!(
            "[[known]]\nrule = \"{RULE}\"\ncases = [\"client.list-transactions\", \"a.one\"]\n"
        );
        baseline(&text).unwrap().apply(&mut run, today(), false);
        assert_eq!(run.cases[0].verdict, Verdict::Client);
        assert!(run.cases[0].findings[0].known.is_none());
        assert_eq!(run.cases[1].verdict, Verdict::Known);
        assert_eq!(
            (run.counts.client, run.counts.known, run.counts.fail),
            (1, 1, 0)
        );
        let mut case = run.cases[0].clone();
        reclassify(&mut case);
        assert_eq!(case.verdict, Verdict::Client);
    }

    #[test]
    fn a_written_baseline_never_lists_a_clients_slip() {
        let run = RunRecord::of_cases(vec![slip()]);
        let text = Baseline::from_record(&run, catalogue(), true);
        assert!(!text.contains("[[known]]"), "{text}");
        assert!(!text.contains("client.list-transactions"), "{text}");
        let mut run = RunRecord::of_cases(vec![slip(), case("a.one", &[(RULE, Level::Must)])]);
        run.cases[0].findings[0].level = Level::Should;
        let text = Baseline::from_record(&run, catalogue(), true);
        assert!(text.contains("\"a.one\""), "{text}");
        assert!(!text.contains("client.list-transactions"), "{text}");
    }

    #[test]
    fn forgetting_a_baseline_restores_the_verdicts() {
        let mut run = RunRecord::of_cases(vec![case("a.one", &[(RULE, Level::Must)])]);
        let text = Baseline::from_record(&run, catalogue(), false);
        baseline(&text).unwrap().apply(&mut run, today(), false);
        forget(&mut run);
        assert_eq!(run.cases[0].verdict, Verdict::Fail);
        assert_eq!(run.counts.fail, 1);
        assert!(run.meta.baseline.is_none());
    }
}
