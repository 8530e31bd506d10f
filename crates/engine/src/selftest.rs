//! The self-test: prove that every check can fail.
//!
//! It runs the whole suite against the embedded reference clean, then, once per deliberate
//! fault (several at once, each server on its own port), only the cases that judge the rule the
//! fault breaks: those that declare it, and those that judged a response against it in the
//! clean run. The generic checks judge every response, so for a rule of theirs only the cases
//! that sent a request on a route where the clean reference asked about the fault are kept (its
//! sites, `reference::Asked`): so PIT runs only the tests that reach a mutation. It asks two
//! questions: is every fault detected by its own cases (a finding on the
//! rule the fault breaks), and is every check of the catalogue made to fail by some fault. A
//! fault its cases miss is a failure of the self-test, never retried on the whole suite.
//! Everything goes over HTTP through the reference's profile, exactly as a run against a
//! stranger's server: the self-test knows which fault is on, the suite does not. Every run has
//! the same seed, so a fault's cases draw the payloads they draw in the clean run.

use crate::case::Case;
use crate::case::Until;
use crate::catalogue::Catalogue;
use crate::exit::Fatal;
use crate::reference::{Fault, FaultSet, TOKEN_LIFETIME};
use crate::runner::{Audience, Sites};
use crate::schema::OperationId;
use crate::settings::RunSettings;
use crate::style::{paint, Tone};
use crate::verdict::{CaseResult, Verdict};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Seed of every self-test run, so that the self-test is reproducible.
pub const SEED: u64 = 1;

/// What the self-test is asked to do: plain values, as `covenant selftest` builds them from
/// its flags and a test builds them by hand.
#[derive(Debug, Clone)]
pub struct SelftestSettings {
    /// The faults to run, each alone on its own server.
    pub faults: Vec<Fault>,
    /// Generated cases per operation in each run.
    pub cases: u32,
    /// Faults run at once.
    pub jobs: usize,
    /// A chosen subset of the faults: the unproven-check verdict, which only means something
    /// over all faults, is left out.
    pub partial: bool,
}

impl Default for SelftestSettings {
    /// The full self-test, as `covenant selftest` runs it without flags.
    fn default() -> SelftestSettings {
        SelftestSettings {
            faults: Fault::all().to_vec(),
            cases: DEFAULT_CASES,
            jobs: DEFAULT_JOBS,
            partial: false,
        }
    }
}

/// Generated cases per operation in each self-test run, by default.
pub const DEFAULT_CASES: u32 = 10;
/// Faults run at once, by default.
pub const DEFAULT_JOBS: usize = 4;

/// What one fault's run showed.
#[derive(Debug, Clone, Serialize)]
pub struct FaultOutcome {
    pub fault: String,
    pub rule: String,
    pub detected: bool,
    /// Cases with a finding on the fault's rule.
    pub by: Vec<String>,
    /// Cases with findings on other rules only.
    pub also: Vec<String>,
    /// The cases run against the fault: those that judge its rule, in the suite's order.
    pub cases: Vec<String>,
}

/// The self-test's record, written as `selftest.json`.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestRecord {
    pub seed: u64,
    pub cases_per_operation: u32,
    /// Cases of the clean run: the whole suite.
    pub clean_cases: usize,
    pub clean_failures: Vec<String>,
    pub clean_warnings: Vec<String>,
    pub faults: Vec<FaultOutcome>,
    pub detected: usize,
    pub mutation_score: f64,
    /// Catalogue checks that no fault made fail.
    pub unproven_checks: Vec<String>,
    /// Cases run in all, the clean run's included.
    pub case_runs: usize,
    pub duration_ms: f64,
}

impl SelftestRecord {
    pub fn passed(&self) -> bool {
        self.clean_failures.is_empty()
            && self.clean_warnings.is_empty()
            && self.detected == self.faults.len()
            && self.unproven_checks.is_empty()
    }
}

/// Runs the self-test on a runtime of its own (two worker threads): for a caller that has none,
/// such as a test.
pub fn run(settings: &SelftestSettings) -> Result<SelftestRecord, Fatal> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Fatal::Startup(format!("cannot start the async runtime: {e}")))?
        .block_on(selftest(settings))
}

/// Runs the clean reference, then each fault against the cases that judge its rule.
pub async fn selftest(settings: &SelftestSettings) -> Result<SelftestRecord, Fatal> {
    let start = Instant::now();
    let cases = settings.cases;
    let clean = run_plan(reference_settings(None, cases)).await?;
    let (plan, sites, clean) = (clean.cases, clean.sites, clean.results);
    let permits = Arc::new(tokio::sync::Semaphore::new(settings.jobs.max(1)));
    let mut tasks = Vec::new();
    for fault in slow_first(&settings.faults) {
        let chosen = judging(fault, &plan, &clean, &sites);
        let permits = permits.clone();
        let plan = plan.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await;
            fault_run(fault, cases, &plan, chosen)
                .await
                .map(|ran| (fault, ran))
        }));
    }
    let mut runs = Vec::new();
    for task in tasks {
        let run = task
            .await
            .map_err(|e| Fatal::Startup(format!("a self-test run panicked: {e}")))??;
        runs.push(run);
    }
    // The record keeps the faults in the order asked.
    runs.sort_by_key(|(fault, ..)| settings.faults.iter().position(|f| f == fault));
    let case_runs = clean.len() + runs.iter().map(|(_, r)| r.len()).sum::<usize>();
    let outcomes: Vec<FaultOutcome> = runs.iter().map(|(f, cases)| outcome(*f, cases)).collect();
    let detected = outcomes.iter().filter(|o| o.detected).count();
    let unproven = if settings.partial {
        Vec::new()
    } else {
        unproven_checks(Catalogue::embedded(), &runs)
    };
    let pick = |v: Verdict| {
        clean
            .iter()
            .filter(|c| c.verdict == v)
            .map(|c| c.id.clone())
            .collect::<Vec<_>>()
    };
    let mut clean_failures = pick(Verdict::Fail);
    clean_failures.extend(pick(Verdict::Error));
    Ok(SelftestRecord {
        seed: SEED,
        cases_per_operation: cases,
        clean_cases: clean.len(),
        clean_failures,
        clean_warnings: pick(Verdict::Warn),
        mutation_score: if outcomes.is_empty() {
            1.0
        } else {
            detected as f64 / outcomes.len() as f64
        },
        detected,
        faults: outcomes,
        unproven_checks: unproven,
        case_runs,
        duration_ms: start.elapsed().as_secs_f64() * 1000.0,
    })
}

/// The cases of `chosen` against a reference with `fault` on, by [`rounds`]: a round plays,
/// on a fresh reference, only while no case of the rounds before met the fault.
async fn fault_run(
    fault: Fault,
    cases: u32,
    plan: &[Case],
    chosen: BTreeSet<String>,
) -> Result<Vec<CaseResult>, Fatal> {
    let mut results: Vec<CaseResult> = Vec::new();
    for round in rounds(fault, plan, chosen) {
        if results.iter().any(|c| meets(fault, c)) {
            break;
        }
        let mut run = reference_settings(Some(fault), cases);
        run.selection.ids = Some(round);
        run.until = Some(met_in_every_check(fault));
        results.extend(run_plan(run).await?.results);
    }
    Ok(results)
}

/// The cases of `chosen` in the rounds a fault's run plays them, each round played only when no
/// case of the rounds before met the fault: the cases that declare its rule, then the others
/// that judged it in the clean run, then the explorer's sequences. Detection is what the
/// self-test asks, and the rounds after the first cost most: the sequences are the heaviest
/// cases (a fifth of the self-test's time when they played in every run that chose them), and a
/// rule of the generic checks is judged by nearly every case. A case of its own is in one round
/// only; each round holds the earlier cases whose results its cases use (played again on its
/// fresh reference when a round before played them too); no round is empty.
pub fn rounds(fault: Fault, plan: &[Case], chosen: BTreeSet<String>) -> Vec<BTreeSet<String>> {
    let declares = |id: &String| {
        plan.iter()
            .any(|c| &c.id == id && c.rules.contains(&fault.rule()))
    };
    let (sequences, rest): (BTreeSet<String>, BTreeSet<String>) =
        chosen.into_iter().partition(|id| id.starts_with(SEQUENCES));
    let (declared, others): (BTreeSet<String>, BTreeSet<String>) =
        rest.into_iter().partition(declares);
    let mut played = BTreeSet::new();
    let mut out = Vec::new();
    for round in [declared, others, sequences] {
        let own: BTreeSet<String> = round
            .into_iter()
            .filter(|id| !played.contains(id))
            .collect();
        if !own.is_empty() {
            let round = with_earlier(own, plan);
            played.extend(round.iter().cloned());
            out.push(round);
        }
    }
    out
}

/// When a fault's round may stop: once its rule has been met in every way the catalogue checks
/// it, each check of the rule by a finding in a case the check covers. What the round proves is
/// then all it could prove of the fault (its detection, each of its rule's checks able to fail),
/// and the cases not yet ended are skipped: a rule the generic checks judge is met by the first
/// of the many cases that declare it. A check no case of the round covers keeps it playing
/// to its end, as before.
fn met_in_every_check(fault: Fault) -> Until {
    let checks: Vec<String> = Catalogue::embedded()
        .rules
        .iter()
        .find(|r| r.id == fault.rule())
        .map(|r| r.checks.clone())
        .unwrap_or_default();
    let open = std::sync::Mutex::new(checks);
    Until(Arc::new(move |case: &CaseResult| {
        if !meets(fault, case) {
            return false;
        }
        let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|check| !covers(check, &case.id));
        open.is_empty()
    }))
}

/// The id prefix of the explorer's sequences.
const SEQUENCES: &str = "explore.sequence.";

/// Whether `case` has a finding on the rule `fault` breaks.
fn meets(fault: Fault, case: &CaseResult) -> bool {
    case.findings.iter().any(|f| f.rule == fault.rule())
}

/// For each of `faults`, the [`rounds`] of the cases its self-test run plays ([`judging`]),
/// chosen from one clean run of `cases` generated per operation: what a test narrows a fault's
/// run to when it needs that run's reports, not only its findings.
pub async fn cases_judging(
    faults: &[Fault],
    cases: u32,
) -> Result<BTreeMap<Fault, Vec<BTreeSet<String>>>, Fatal> {
    let clean = run_plan(reference_settings(None, cases)).await?;
    Ok(faults
        .iter()
        .map(|f| {
            let chosen = judging(*f, &clean.cases, &clean.results, &clean.sites);
            (*f, rounds(*f, &clean.cases, chosen))
        })
        .collect())
}

/// The faults in the order their runs start: those whose run waits (see [`token_age`]) first,
/// so that the wait passes beside the other runs rather than after them.
fn slow_first(faults: &[Fault]) -> Vec<Fault> {
    let mut order = faults.to_vec();
    order.sort_by_key(|f| token_age(Some(*f)).is_none());
    order
}

/// The cases that judge the rule `fault` breaks, by the clean run: those that declare it, and
/// those that judged a response against it; for a rule of the generic checks (judged on every
/// response), only those of the latter that sent a request on one of the fault's `sites`. With
/// the earlier cases whose results a late one uses, without which it would be skipped.
pub fn judging(
    fault: Fault,
    plan: &[Case],
    clean: &[CaseResult],
    sites: &Sites,
) -> BTreeSet<String> {
    let rule = fault.rule();
    let routes: Option<BTreeSet<String>> = sites
        .get(&fault)
        .filter(|_| generic(rule))
        .filter(|routes| !routes.contains("?"))
        .map(|routes| routes.iter().map(|r| template(r)).collect());
    let reaches = |case: &CaseResult| {
        routes
            .as_ref()
            .is_none_or(|routes| case_routes(case).any(|r| routes.contains(&template(r))))
    };
    let chosen: BTreeSet<String> = clean
        .iter()
        .filter(|c| {
            c.rules.iter().any(|r| r == rule)
                || (c.evidence.iter().any(|e| e.rule == rule) && reaches(c))
        })
        .map(|c| c.id.clone())
        .collect();
    with_earlier(chosen, plan)
}

/// `chosen` with the earlier cases whose results a case of it uses.
fn with_earlier(mut chosen: BTreeSet<String>, plan: &[Case]) -> BTreeSet<String> {
    let earlier: Vec<String> = plan
        .iter()
        .filter(|c| chosen.contains(&c.id))
        .flat_map(|c| c.after.iter().cloned())
        .collect();
    chosen.extend(earlier);
    chosen
}

/// Whether the generic checks judge `rule` (on every response).
fn generic(rule: &str) -> bool {
    Catalogue::embedded()
        .rules
        .iter()
        .any(|r| r.id == rule && r.checks.iter().any(|c| c.starts_with("generic:")))
}

/// A path template with its parameters unnamed (`/a/{}/b`): the router and `operations.json`
/// may name them differently.
fn template(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                "{}"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The path templates of the operations a case sent a request to.
fn case_routes(case: &CaseResult) -> impl Iterator<Item = &'static str> + '_ {
    case.statuses.iter().filter_map(|seen| {
        OperationId::ALL
            .into_iter()
            .find(|op| op.as_str() == seen.operation)
            .map(|op| op.operation().path.as_str())
    })
}

/// The settings of one self-test run against a reference with at most one fault on: the
/// default run's settings at the self-test's seed, `cases` generated per operation, eight cases
/// at once, adjusted for the fault by [`token_age`], and no report directory (the self-test
/// keeps the records itself).
fn reference_settings(fault: Option<Fault>, cases: u32) -> RunSettings {
    let faults = fault.map_or_else(FaultSet::none, FaultSet::only);
    let mut settings = RunSettings::new(SEED, faults);
    settings.generation.cases_per_operation = cases;
    settings.token_age = token_age(fault);
    settings.generation.explore_depth = explore_depth(fault);
    settings.report_dir = None;
    settings.shrink = false;
    settings
}

/// What one self-test run gave: its plan, its results, and where the reference asked about
/// each fault.
struct PlanResults {
    cases: Vec<Case>,
    results: Vec<CaseResult>,
    sites: Sites,
}

/// Runs the plan of `settings`.
async fn run_plan(settings: RunSettings) -> Result<PlanResults, Fatal> {
    let planned = crate::runner::plan(&settings).await?;
    let cases = planned.cases.clone();
    let ran = planned.run(Audience::Program).await;
    let results = ran
        .records
        .into_iter()
        .next()
        .map(|record| record.cases)
        .unwrap_or_default();
    Ok(PlanResults {
        cases,
        results,
        sites: ran.sites,
    })
}

/// One run of the whole suite against a reference with at most one fault on (see
/// [`reference_settings`]).
pub async fn run_reference(fault: Option<Fault>, cases: u32) -> Result<Vec<CaseResult>, Fatal> {
    Ok(run_plan(reference_settings(fault, cases)).await?.results)
}

/// The `--token-age` a fault's run needs. Tokens that expire a second after they are issued
/// show only when the stored tokens are used again later than that, and the default run is
/// shorter than a second: that fault's run waits until its tokens are a second and a half old
/// (about a second more than the run). No other run waits.
pub fn token_age(fault: Option<Fault>) -> Option<Duration> {
    match fault? {
        Fault::BankingTokenExpires => Some(TOKEN_LIFETIME + Duration::from_millis(500)),
        _ => None,
    }
}

/// The `--explore-depth` a fault's run needs: a tag's delete is part of deeper sequences only
/// (a default run deletes one tag of the profile, in the delete cases), so the run of the
/// fault only that path meets plays at depth 2. Every other run is the default one.
pub fn explore_depth(fault: Option<Fault>) -> u32 {
    match fault {
        Some(Fault::TagDeleteDeletesDerivedInvoices) => 2,
        _ => 1,
    }
}

/// Whether and by which of the cases that ran a fault was detected in its run.
pub fn outcome(fault: Fault, cases: &[CaseResult]) -> FaultOutcome {
    let mut by = Vec::new();
    let mut also = Vec::new();
    for case in cases.iter().filter(|c| !c.findings.is_empty()) {
        if meets(fault, case) {
            by.push(case.id.clone());
        } else {
            also.push(case.id.clone());
        }
    }
    FaultOutcome {
        fault: fault.name().to_owned(),
        rule: fault.rule().to_owned(),
        detected: !by.is_empty(),
        by,
        also,
        cases: cases.iter().map(|c| c.id.clone()).collect(),
    }
}

/// Catalogue checks that no fault made fail: a check is proven when some fault's run has a
/// finding on a rule that names the check, in a case the check covers (`case:` and
/// `pagination:` checks name case ids or their prefixes; `schema:` and `generic:` checks apply
/// to every case).
pub fn unproven_checks(catalogue: &Catalogue, runs: &[(Fault, Vec<CaseResult>)]) -> Vec<String> {
    let mut proven = BTreeSet::new();
    let mut all = BTreeSet::new();
    let by_rule: BTreeMap<&str, &Vec<String>> = catalogue
        .rules
        .iter()
        .filter(|r| r.observable)
        .map(|r| (r.id.as_str(), &r.checks))
        .collect();
    for checks in by_rule.values() {
        all.extend(checks.iter().cloned());
    }
    for (_, cases) in runs {
        for case in cases.iter().filter(|c| !c.findings.is_empty()) {
            // The generated checks are proven by any finding of their cases: the rule is the
            // broken constraint's, which the check itself does not name.
            if let Some(check) = generated_check(&case.id) {
                proven.insert(check.to_owned());
            }
            for finding in &case.findings {
                let Some(checks) = by_rule.get(finding.rule.as_str()) else {
                    continue;
                };
                for check in checks.iter().filter(|c| covers(c, &case.id)) {
                    proven.insert(check.clone());
                }
            }
        }
    }
    all.difference(&proven).cloned().collect()
}

/// The catalogue check a generated case carries out.
fn generated_check(case_id: &str) -> Option<&'static str> {
    let rest = case_id.strip_prefix("generated.")?;
    if rest.ends_with(".invalid") {
        Some("generic:negative-rejected")
    } else if rest.ends_with(".valid") {
        Some("generic:positive-accepted")
    } else {
        None
    }
}

fn covers(check: &str, case_id: &str) -> bool {
    match check.split_once(':') {
        Some(("case" | "pagination", prefix)) => {
            case_id == prefix
                || case_id
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('.'))
        }
        _ => true,
    }
}

/// The table and verdict the command prints.
pub fn render(record: &SelftestRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<45} {:<30} {:<9} by", "fault", "rule", "detected");
    for o in &record.faults {
        let by = if o.by.is_empty() {
            let list = |ids: &[String]| match ids {
                [] => "none".to_owned(),
                ids => ids.join(", "),
            };
            format!(
                "(cases run: {}; other findings: {})",
                list(&o.cases),
                list(&o.also)
            )
        } else {
            o.by.join(", ")
        };
        let detected = match o.detected {
            true => paint(Tone::Pass, &format!("{:<9}", "yes")),
            false => paint(Tone::Fail, &format!("{:<9}", "NO")),
        };
        let _ = writeln!(out, "{:<45} {:<30} {detected} {}", o.fault, o.rule, by);
    }
    let _ = writeln!(out);
    for (what, list) in [
        ("failures", &record.clean_failures),
        ("warnings", &record.clean_warnings),
    ] {
        if !list.is_empty() {
            let _ = writeln!(out, "the clean reference has {what}: {}", list.join(", "));
        }
    }
    if !record.unproven_checks.is_empty() {
        let _ = writeln!(
            out,
            "checks no fault makes fail ({}):",
            record.unproven_checks.len()
        );
        for check in &record.unproven_checks {
            let _ = writeln!(out, "  {check}");
        }
    }
    let _ = writeln!(
        out,
        "mutation score: {}/{} faults detected ({:.1}%); {} unproven checks; clean run: {} failures, {} warnings; {} case runs; {:.1} s",
        record.detected,
        record.faults.len(),
        record.mutation_score * 100.0,
        record.unproven_checks.len(),
        record.clean_failures.len(),
        record.clean_warnings.len(),
        record.case_runs,
        record.duration_ms / 1000.0
    );
    let _ = writeln!(
        out,
        "selftest: {}",
        if record.passed() { "ok" } else { "FAILED" }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Level;
    use serde_json::json;

    /// A clean result of a case that declares `rules`, judged `judged` and sent to `operation`.
    fn result(id: &str, rules: &[&str], judged: &[&str], operation: &str) -> CaseResult {
        serde_json::from_value(json!({
            "id": id, "suite": "s", "rules": rules, "verdict": "pass", "findings": [],
            "exchanges": [], "duration_ms": 1.0,
            "evidence": judged.iter().map(|r| json!({"rule": r, "responses": 1})).collect::<Vec<_>>(),
            "statuses": [{"operation": operation, "status": 200, "count": 1}],
        }))
        .expect("a case result")
    }

    fn case(id: &str) -> Case {
        Case::idle(id)
    }

    #[test]
    fn a_round_stops_once_its_rule_is_met_in_every_way_the_catalogue_checks_it() {
        // GEN-LIMIT-INCLUSIVE is checked by `case:accept` and `case:receivable.deductions-at-limit`.
        let fault = Fault::LimitTenPercentTight;
        let until = met_in_every_check(fault);
        let met = |id: &str| {
            let mut case = result(id, &[], &[], "create-receivable");
            let finding = crate::verdict::Finding::new(fault.rule(), Level::Must, "broken");
            case.findings.push(finding);
            case
        };
        let passed = result("accept.create-receivable", &[], &[], "create-receivable");
        assert!(!(until.0)(&passed), "a case that did not meet the fault");
        assert!(
            !(until.0)(&met("accept.create-receivable")),
            "one check of two"
        );
        assert!(
            !(until.0)(&met("receivable.other")),
            "a case no open check covers"
        );
        assert!(
            (until.0)(&met("receivable.deductions-at-limit")),
            "both checks"
        );
    }

    #[test]
    fn a_generic_rule_keeps_the_cases_that_reach_the_fault_and_those_that_declare_it() {
        let clean = [
            result("vat.get", &[], &["GEN-JSON-BODY"], "get-vat-id"),
            result("events.read", &[], &["GEN-JSON-BODY"], "list-events"),
            result("json.declared", &["GEN-JSON-BODY"], &[], "list-events"),
            result("vat.other", &[], &["VAT-RESPONSE"], "get-vat-id"),
        ];
        let plan: Vec<Case> = clean.iter().map(|c| case(&c.id)).collect();
        let route = "/finops/v1/counterparts/{cp}/vat-ids/{id}".to_owned();
        let sites = Sites::from([(Fault::NonJsonBody, BTreeSet::from([route]))]);
        let chosen = judging(Fault::NonJsonBody, &plan, &clean, &sites);
        assert_eq!(
            chosen,
            BTreeSet::from(["vat.get".into(), "json.declared".into()])
        );
        // Without a site (never asked, or asked outside a route), every judging case runs.
        let everywhere = Sites::from([(Fault::NonJsonBody, BTreeSet::from(["?".to_owned()]))]);
        for sites in [Sites::new(), everywhere] {
            let chosen = judging(Fault::NonJsonBody, &plan, &clean, &sites);
            assert_eq!(chosen.len(), 3, "{chosen:?}");
        }
    }

    #[test]
    fn a_rule_of_its_own_keeps_every_case_that_judged_it_with_the_cases_a_late_one_uses() {
        let clean = [
            result("vat.read-back", &[], &["VAT-ROUNDTRIP"], "list-events"),
            result("vat.early", &[], &[], "create-vat-id"),
            result("vat.late", &["VAT-ROUNDTRIP"], &[], "get-vat-id"),
            result("vat.unrelated", &[], &["VAT-RESPONSE"], "get-vat-id"),
        ];
        let plan = vec![
            case("vat.read-back"),
            case("vat.early"),
            case("vat.late").late(&["vat.early"]),
            case("vat.unrelated"),
        ];
        let fault = Fault::VatCreateValueTruncated;
        let sites = Sites::from([(fault, BTreeSet::from(["/elsewhere".to_owned()]))]);
        let chosen = judging(fault, &plan, &clean, &sites);
        let want = ["vat.read-back", "vat.early", "vat.late"];
        assert_eq!(chosen, want.iter().map(|s| s.to_string()).collect());
    }

    #[test]
    fn rounds_play_the_declaring_cases_then_the_others_then_the_sequences_with_earlier_ones() {
        let mut plan = vec![
            case("vat.early"),
            case("vat.late").late(&["vat.early"]),
            case("vat.read-back"),
            case("vat.later").late(&["vat.early"]),
            case("explore.sequence.1"),
        ];
        plan[1].rules = vec!["VAT-ROUNDTRIP"];
        let chosen: BTreeSet<String> = plan.iter().map(|c| c.id.clone()).collect();
        let rounds = rounds(Fault::VatCreateValueTruncated, &plan, chosen);
        let want: Vec<BTreeSet<String>> = [
            &["vat.early", "vat.late"][..],
            &["vat.early", "vat.later", "vat.read-back"],
            &["explore.sequence.1"],
        ]
        .iter()
        .map(|ids| ids.iter().map(|s| s.to_string()).collect())
        .collect();
        assert_eq!(rounds, want);
    }

    #[test]
    fn case_checks_cover_their_prefix_only() {
        assert!(covers(
            "case:auth.finance-missing-token",
            "auth.finance-missing-token.get-vat-id"
        ));
        assert!(covers("case:vat.get-unknown", "vat.get-unknown"));
        assert!(!covers("case:vat.get", "vat.get-unknown"));
        assert!(covers("generic:no-5xx", "anything"));
        assert_eq!(
            generated_check("generated.create-vat-id.invalid"),
            Some("generic:negative-rejected")
        );
        assert_eq!(
            generated_check("generated.create-vat-id.valid"),
            Some("generic:positive-accepted")
        );
        assert_eq!(generated_check("vat.create-then-get"), None);
    }
}
