//! The preflight: before any case, look for everything in the profile that would make the run's
//! verdict about the user's setup rather than the target, and stop before anything is written to
//! the target. First of all, before the target is even prepared, it checks that the report
//! directory can be written ([`report_dir`]).
//!
//! Only reads are sent, and only where the spec has one: list events with the finance token,
//! list transactions of the profile's bank accounts with the banking token, and two requests
//! without credentials to recognise the API. A 401 or 403 on a harmless read is a credentials
//! problem naming its profile key; a 404 on a read of a named fixture is a fixture problem, and
//! an identifier that is not a UUID is one before any request (the spec states identifiers are
//! UUIDs). Any other answer is left for the cases to judge: a target that answers a read wrongly
//! breaks the contract, and that is a finding, not a profile problem. Fixtures without a read in
//! the spec are watched at their first use instead (`case::FixtureWatch`).

use crate::case::{Call, Given, RunCx};
use crate::client::{snippet, Request, Response};
use crate::exit::Fatal;
use crate::schema::OperationId;
use crate::settings::{RunSettings, TargetChoice};

/// A problem of the profile: the keys to look at, and what the target answered.
struct ProfileProblem {
    keys: String,
    answer: String,
}

/// Fails unless reports can be written in `dir` (exit code 2): checked before anything is sent.
pub fn report_dir(dir: &std::path::Path) -> Result<(), Fatal> {
    crate::report::writable(dir).map_err(|e| {
        Fatal::Files(format!(
            "--report-dir {}: cannot write reports there ({e}); give a directory covenant may \
             write",
            dir.display()
        ))
    })
}

/// Runs the preflight of a run that sends; `Err` ends the command with exit code 2.
pub async fn preflight(run: &RunCx, settings: &RunSettings) -> Result<(), Fatal> {
    // The embedded reference's profile is right by construction, and a deliberate fault of
    // the self-test must be found by the checks, never stopped here.
    if matches!(settings.target, TargetChoice::Embedded { .. }) {
        let _ = run.org_header_read.set(());
        return Ok(());
    }
    let mut problems = malformed_ids(run);
    let mut seen = Vec::new();
    recognise(run, settings, &mut seen).await?;
    if no_credentials(run) {
        problems.push(ProfileProblem {
            keys: "finops.token, banking.token, [banking.oauth]".into(),
            answer: "the profile gives no credentials, so only the unauthenticated cases could \
                     run; see cases/profile.example.toml"
                .into(),
        });
    }
    problems.extend(finance_token(run, &mut seen).await);
    let mut banking = banking(run, &mut seen).await;
    if banking.is_empty() {
        banking.extend(ignored_org_header(run).await);
    }
    match nothing_answers(run, settings, &seen) {
        // The accounts' 404s are the base URL's, not theirs.
        Some(problem) => problems.push(problem),
        None => problems.extend(banking),
    }
    if problems.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = problems
        .iter()
        .map(|p| format!("  - {}: {}", p.keys, p.answer))
        .collect();
    Err(Fatal::Profile(redact(
        run,
        format!(
            "PROFILE PROBLEM: the profile does not fit the target {} ({} found before any case; \
         nothing that writes was sent):\n{}",
            run.target.base_url(),
            problems.len(),
            list.join("\n")
        ),
    )))
}

/// Every key the README does not call optional that a planned case needs is in the profile:
/// without it, half the suite would be skipped and the run could pass having judged little.
/// Exit 2 naming each key and how many planned cases need it; `--skip` or `--filter` leaves
/// such cases out when a target has no such fixture.
pub fn required_keys(run: &RunCx, cases: &[crate::case::Case]) -> Result<(), Fatal> {
    let mut missing: Vec<(&'static str, usize)> = Vec::new();
    for need in cases.iter().flat_map(|c| c.needs.iter().copied()) {
        if !run.missing(need) {
            continue;
        }
        match missing.iter_mut().find(|(key, _)| *key == need.key()) {
            Some((_, n)) => *n += 1,
            None => missing.push((need.key(), 1)),
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = missing
        .iter()
        .map(|(key, n)| format!("  - {key}: needed by {n} planned case(s)"))
        .collect();
    Err(Fatal::Profile(format!(
        "the profile for {} lacks {} the README does not call optional (nothing was sent \
         but the preflight's reads):\n{}\ngive each in the profile (see \
         cases/profile.example.toml), or leave the cases that need it out with --skip or --filter",
        run.target.base_url(),
        if missing.len() == 1 { "a key" } else { "keys" },
        list.join("\n")
    )))
}

/// A message for the terminal, without any secret the target may have echoed.
fn redact(run: &RunCx, message: String) -> String {
    crate::client::redact(&message, run.target.secrets())
}

/// The target answers like this API: without credentials, at least one of two reads gets a
/// JSON body, a 401 or 403, or a 5xx (a broken implementation is still this API, and its
/// cases will say how). A static site or another service answers HTML or plain 404s.
async fn recognise(
    run: &RunCx,
    settings: &RunSettings,
    seen: &mut Vec<ProbeRead>,
) -> Result<(), Fatal> {
    let absent = crate::case::absent_uuid("covenant-preflight");
    let events = Call::borrowed(run, OperationId::ListEvents).query("limit=1");
    let transactions = Call::borrowed(run, OperationId::ListTransactions).path(&[&absent]);
    let probes = [events, transactions].map(crate::case::Call::bare);
    let mut answers = Vec::new();
    for request in &probes {
        let Some(response) = answer(run, request).await else {
            return Ok(());
        };
        seen.push(ProbeRead::of(request, &response));
        if response.json.is_some() || matches!(response.status, 401 | 403) || response.status >= 500
        {
            return Ok(());
        }
        answers.push(format!(
            "GET {} answered {} {}",
            request.path,
            response.status,
            response
                .header("content-type")
                .unwrap_or("(no content type)")
        ));
    }
    let message = format!(
        "{} does not look like the Finance Operations and Embedded Banking Partner API: without \
         credentials {}, where the API answers 401 with a JSON error body",
        run.target.base_url(),
        answers.join(" and ")
    );
    Err(match base_url_key(settings) {
        Some(key) => Fatal::Profile(redact(
            run,
            format!("PROFILE PROBLEM: {key}: {message}; check its host and path prefix"),
        )),
        None => Fatal::Usage(redact(run, format!("{message}; check --target"))),
    })
}

/// Identifiers of the profile that are not UUIDs: the spec states identifiers are UUIDs unless
/// stated otherwise, so a target may refuse such a value in any request (400 or 422), and the
/// cases that send it would blame the target for the profile's mistake. Found without a request.
fn malformed_ids(run: &RunCx) -> Vec<ProfileProblem> {
    run.profile
        .ids()
        .into_iter()
        .filter(|(_, value)| !crate::profile::is_uuid(value))
        .map(|(key, value)| ProfileProblem {
            keys: key,
            answer: format!(
                "{value:?} is not a UUID (8-4-4-4-12 hex digits), which the spec states \
                 identifiers are; a target may refuse it in any request"
            ),
        })
        .collect()
}

fn no_credentials(run: &RunCx) -> bool {
    let banking = run
        .banking()
        .is_some_and(|b| b.token.is_some() || b.oauth.is_some());
    run.finops_token().is_none() && !banking
}

/// The finance token on list events (`limit=1`).
async fn finance_token(run: &RunCx, seen: &mut Vec<ProbeRead>) -> Option<ProfileProblem> {
    run.finops_token()?;
    let request = Call::borrowed(run, OperationId::ListEvents)
        .query("limit=1")
        .request();
    let response = answer(run, &request).await?;
    seen.push(ProbeRead::of(&request, &response));
    let keys = match response.status {
        401 => "finops.token",
        403 => "finops.token or finops.organization_id",
        _ => return None,
    };
    Some(refused(keys, &request, &response))
}

/// The banking token (given, or fetched with the client-credentials flow) on list transactions
/// of each bank account the profile names.
async fn banking(run: &RunCx, seen: &mut Vec<ProbeRead>) -> Vec<ProfileProblem> {
    let Some(b) = run.banking() else {
        return Vec::new();
    };
    if let (Some(why), Some(oauth)) = (&run.banking_token_error, &b.oauth) {
        return vec![ProfileProblem {
            keys: "banking.oauth (token_url, client_id, client_secret, scope)".into(),
            answer: format!("no token from {}: {why}", oauth.token_url),
        }];
    }
    if run.banking_token.is_none() {
        return Vec::new();
    }
    let token_key = if b.oauth.is_some() {
        "banking.oauth (client_id, client_secret, scope)"
    } else {
        "banking.token"
    };
    let accounts = [
        ("banking.bank_account_id", &b.bank_account_id),
        ("banking.empty_bank_account_id", &b.empty_bank_account_id),
    ];
    let mut problems = Vec::new();
    for (key, account) in accounts {
        let Some(account) = account else { continue };
        let call = Call::borrowed(run, OperationId::ListTransactions).path(&[account]);
        let request = call.query("limit=1").request();
        let Some(response) = answer(run, &request).await else {
            continue;
        };
        seen.push(ProbeRead::of(&request, &response));
        let keys = match response.status {
            401 => token_key.to_owned(),
            403 => format!("{token_key} or banking.organization_id"),
            404 => key.to_owned(),
            _ => continue,
        };
        problems.push(refused(&keys, &request, &response));
        if matches!(response.status, 401 | 403) {
            break;
        }
    }
    if problems.is_empty() {
        problems.extend(token_without_scope(run).await);
    }
    problems
}

/// The banking token without the scope on the same harmless read: it must be a valid token
/// (the 403 case proves a missing scope, not an invalid token), so a 401 is the profile's
/// mistake. A 403 is no problem: the spec shows no scope for reads, and a token without one
/// scope may lack others.
async fn token_without_scope(run: &RunCx) -> Option<ProfileProblem> {
    let b = run.banking()?;
    let token = b.token_without_scope.as_ref()?;
    let account = b.bank_account_id.as_ref()?;
    let call = Call::borrowed(run, OperationId::ListTransactions).path(&[account]);
    let bearer = crate::case::Given::value(token.expose());
    let request = call.token(bearer).query("limit=1").request();
    let response = answer(run, &request).await?;
    (response.status == 401).then(|| {
        let mut problem = refused("banking.token_without_scope", &request, &response);
        problem.answer.push_str(
            "; it must be a valid token that lacks the scope authorization_control:write:org",
        );
        problem
    })
}

/// A preflight read and what it showed: its request line, status, whether its path names an
/// identifier (a fixture), and whether its body is its area's error body.
struct ProbeRead {
    line: String,
    method: String,
    /// The path and query, as sent under the base URL.
    path: String,
    status: u16,
    names_id: bool,
    area_body: bool,
}

impl ProbeRead {
    fn of(request: &Request, response: &Response) -> ProbeRead {
        let path = request.path.split('?').next().unwrap_or_default();
        let banking = path.contains("/embedded-banking/");
        let text = |pointer: &str| {
            let value = response.json.as_ref().and_then(|j| j.pointer(pointer));
            value.is_some_and(serde_json::Value::is_string)
        };
        ProbeRead {
            line: format!(
                "{} {} answered {}",
                request.method, request.path, response.status
            ),
            method: request.method.to_string(),
            path: request.path.clone(),
            status: response.status,
            names_id: path.split('/').any(crate::profile::is_uuid),
            area_body: match banking {
                true => text("/detail") && text("/title"),
                false => text("/error/message"),
            },
        }
    }
}

/// The key that gave the base URL: the profile's `base_url`, or none where `--target` did.
fn base_url_key(settings: &RunSettings) -> Option<&'static str> {
    match &settings.target {
        TargetChoice::Given { url: Some(_), .. } => None,
        _ => Some("base_url"),
    }
}

/// Nothing of this API answers under the base URL (a wrong path prefix, most often): every
/// preflight read, with credentials and without, answered 404, and either one of them names
/// no identifier (a list no fixture can be missing from) or none carries its area's error
/// body. The accounts' 404s then say nothing of their ids.
fn nothing_answers(
    run: &RunCx,
    settings: &RunSettings,
    seen: &[ProbeRead],
) -> Option<ProfileProblem> {
    let all_404 = !seen.is_empty() && seen.iter().all(|r| r.status == 404);
    let no_fixture = seen.iter().any(|r| !r.names_id);
    let foreign = seen.iter().all(|r| !r.area_body);
    if !(all_404 && (no_fixture || foreign)) {
        return None;
    }
    // The events are read twice (to recognise the API, then with the token): each read once.
    let mut lines: Vec<String> = Vec::new();
    for read in seen {
        let line = match run.target.url(&read.path) {
            Ok(url) => format!("{} {url} answered {}", read.method, read.status),
            Err(_) => read.line.clone(),
        };
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    Some(ProfileProblem {
        keys: base_url_key(settings).unwrap_or("--target").to_owned(),
        answer: format!(
            "nothing of this API answers under {}: every preflight read answered 404 ({}), \
             though a list of events names no identifier that could be missing; check its path \
             prefix (the spec's paths start /finops/v1 and /embedded-banking/v1 right after it)",
            run.target.base_url(),
            lines.join(", ")
        ),
    })
}

/// The banking organization header the profile names, ignored by the target. The spec states
/// that the header names the organization to act for and that a malformed value gives 400: so
/// a read of the transactions of the profile's account (or of its empty one, whichever it
/// gives) with the header naming the organization must be answered otherwise than with the
/// header malformed, and a page of items must not be read under the other organization. When
/// another value gets another status, the target reads the header under this name
/// ([`RunCx::org_header_read`]): no failure is then put down to it. When every value gets the
/// same items, the target does not read it (one that read this name and broke both rules would
/// answer so too): a profile problem naming the key. When the answers are the same but hold no
/// item, a target breaking the malformed rule cannot be told from a wrong name: the cases name
/// the key as a possible cause of each failure it could explain.
async fn ignored_org_header(run: &RunCx) -> Option<ProfileProblem> {
    let name = run.org_header()?;
    let b = run.banking()?;
    let account = b
        .bank_account_id
        .as_ref()
        .or(b.empty_bank_account_id.as_ref())?;
    b.organization_id.as_ref()?;
    run.banking_token.as_ref()?;
    let read = |organization: Given| {
        Call::borrowed(run, OperationId::ListTransactions)
            .path(&[account])
            .query("limit=1")
            .organization(organization)
            .request()
    };
    let own = read(Given::Profile);
    let first = answer(run, &own).await?;
    if !first.is_success() {
        return None;
    }
    let mut variants = vec![Given::value("covenant-not-a-uuid"), Given::Omitted];
    variants.extend(b.other_organization_id.as_deref().map(Given::value));
    let mut same = true;
    for organization in variants {
        let response = answer(run, &read(organization)).await?;
        if response.status != first.status {
            let _ = run.org_header_read.set(());
            return None;
        }
        same &= response.json == first.json;
    }
    let items = first.pointer("/data").and_then(serde_json::Value::as_array);
    if !same || items.is_none_or(Vec::is_empty) || b.other_organization_id.is_none() {
        return None;
    }
    Some(ProfileProblem {
        keys: "banking.org_header".into(),
        answer: format!(
            "the target does not read the organization from {name:?}: {} {} answered {} with \
             the same items whether {name:?} named banking.organization_id, named \
             banking.other_organization_id, held a malformed value or was left out, where the \
             spec states that the header names the organization to act for and that a \
             malformed value gives 400; give banking.org_header the name the target reads (were \
             it this one, the target would break BANK-TENANT and BANK-ORG-HEADER-MALFORMED-400)",
            own.method, own.path, first.status
        ),
    })
}

fn refused(keys: &str, request: &Request, response: &Response) -> ProfileProblem {
    ProfileProblem {
        keys: keys.to_owned(),
        answer: format!(
            "{} {} answered {}: {}",
            request.method,
            request.path,
            response.status,
            snippet(response)
        ),
    }
}

/// The `user-agent` of preflight reads, so that a target's logs (and covenant's tests) can tell
/// them from the cases' requests.
pub const PREFLIGHT_AGENT: &str = concat!("covenant/", env!("CARGO_PKG_VERSION"), " (preflight)");

/// The answer to a preflight read; `None` when there was none (a transport error, a 429): the
/// cases will meet the same and report it.
async fn answer(run: &RunCx, request: &Request) -> Option<Response> {
    let request = request.clone().header("user-agent", PREFLIGHT_AGENT);
    let outcome = run.target.preflight_read(&request).await;
    outcome.ok().filter(|r| r.status != 429)
}
