//! The explorer's cases: each plays one sequence; a sequence that breaks a post-condition of the
//! model is shrunk to the fewest steps that still break it and shown once, as a script.

use super::{draw, script, shrink, step};
use super::{Action, Model, StepRecord, MODEL_RULES, SHAPE_RULES, STEP_RULES};
use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::schema::OperationId;

/// Replays a shrink may make: each replays the candidate sequence against the target.
const SHRINK_REPLAYS: usize = 60;

/// The explorer's cases: one per sequence, `explore.sequence.N`, so that shards split them and
/// a filter replays one.
pub fn cases(run: &crate::case::RunCx) -> Vec<Case> {
    let read_only = run.target.read_only();
    (1..=run.generation.explore)
        .map(|k| sequence_case(k, read_only))
        .collect()
}

fn sequence_case(k: u32, read_only: bool) -> Case {
    let mut rules: Vec<&'static str> = MODEL_RULES.to_vec();
    if !read_only {
        rules.extend(SHAPE_RULES);
        rules.extend(STEP_RULES);
    }
    let commands = draw::shape(read_only);
    let mut case = Case::new(
        &format!("explore.sequence.{k}"),
        OperationId::ListEvents,
        &rules,
        case_fn(move |cx| Box::pin(sequence(cx, k, read_only))),
    )
    .suite("explore")
    .other_organization()
    // Plays beside the other cases; a shrink waits until they have all finished, so that no
    // request of theirs lands between its replays.
    .waits_for_others()
    .requests(draw::REQUESTS);
    for op in commands.iter().flat_map(|c| c.operations()) {
        case = case.also(*op);
    }
    if read_only {
        case
    } else {
        // Velocity controls are created under the banking area's other organization too.
        case.needs(&[Need::BankingOtherOrg]).writes()
    }
}

/// Plays sequence `k`; when a post-condition of the model breaks, shrinks the sequence to the
/// fewest steps that still break it and shows that script once, under the rule.
///
/// Sequences play together and beside the other cases, but a shrink runs alone: it waits until
/// every case that is no sequence has finished (giving up its place meanwhile), and holds the
/// run's explorer lock for writing while plays hold it for reading, so no other request changes
/// the target between the replays of a shrink and the script it prints. The script is what the last replay did: its failing step is
/// marked, and the finding shows that step's diff, request and answer.
async fn sequence(cx: &mut CaseCx, k: u32, read_only: bool) -> Outcome {
    let seed = cx.run.generation.seed;
    let run = cx.run.clone();
    let depth = run.generation.explore_depth;
    let commands: Vec<(usize, Action)> = draw::draw(seed, k, read_only, depth)
        .into_iter()
        .enumerate()
        .collect();
    let mut part = cx.fork();
    let mut model = Model::new(format!("s{k}"), seed, k);
    let playing = run.explore_lock.read().await;
    let played = step::play_steps(&mut part, &commands, &mut model).await;
    drop(playing);
    let broken = part
        .findings
        .iter()
        .find(|f| MODEL_RULES.contains(&f.rule.as_str()))
        .map(|f| f.rule.clone());
    // Unbroken, or broken in a run that asks only whether (the self-test): shown as played.
    let Some(rule) = broken.filter(|_| run.shrink) else {
        cx.join(part);
        return played.map(|_| ());
    };
    // A failing case's exchanges go into report.json: the play's keep those its findings
    // point at (the script is the last replay's), unless every exchange is asked for.
    if !run.keep_exchanges {
        part.keep_cited();
    }
    // The steps up to the one that broke the rule are the first candidate.
    let upto = played.as_ref().ok().and_then(|steps| {
        let at = steps
            .iter()
            .position(|s| s.broke.as_ref().is_some_and(|b| b.0 == rule));
        at.map(|at| at + 1)
    });
    cx.wait_for_others().await;
    let alone = run.explore_lock.write().await;
    let (kept, replays) = shrink_sequence(cx, &commands, &rule, k, upto).await;
    let mut last = cx.fork();
    last.keep_all = true;
    let mut model = Model::replay(format!("s{k}m"), seed, k);
    let steps = step::play_steps(&mut last, &kept, &mut model).await;
    drop(alone);
    let steps: Vec<StepRecord> = steps.unwrap_or_default();
    let header = format!(
        "shrunk from {} to {} steps in {replays} replays (seed {seed}; replay: {})",
        commands.len(),
        kept.len(),
        replay_command(cx, k, read_only),
    );
    let bodies = run.report_dir.as_deref();
    let text = script::render(
        &header,
        &steps,
        &last.exchanges,
        &model.named,
        &rule,
        bodies,
    );
    // The breach is shown once, under its rule, with the script: the last replay's finding
    // (its step's diff, request and answer) where that replay broke the rule again, else the
    // play's first, saying the script did not.
    let again = last.findings.iter().position(|f| f.rule == rule);
    let (holder, note) = match again {
        Some(_) => (&mut last, ""),
        None => (
            &mut part,
            "\n(the shrunk script, replayed once more, did not break the rule again: the target \
             may depend on more than these steps)",
        ),
    };
    let mut shown = false;
    holder.findings.retain_mut(|f| {
        if f.rule != rule {
            return true;
        }
        if shown {
            return false;
        }
        shown = true;
        f.message = format!("{}\n{text}{note}", f.message);
        true
    });
    cx.join(match again {
        Some(_) => {
            part.findings.retain(|f| f.rule != rule);
            part
        }
        None => part,
    });
    // The replay's own finding and the exchanges it points at; what else the replay met, the
    // play met first. (Its requests count with the case's, joined or not.)
    if again.is_some() {
        last.findings.retain(|f| f.rule == rule);
        if !run.keep_exchanges {
            last.keep_cited();
        }
        cx.join(last);
    }
    played.map(|_| ())
}

/// The command that plays sequence `k` again against this run's target, as printed: the target
/// as the run was given it, the seed and the sequence (and `--read-only`, which draws other
/// sequences).
fn replay_command(cx: &CaseCx, k: u32, read_only: bool) -> String {
    let seed = cx.run.generation.seed;
    let read_only = if read_only { " --read-only" } else { "" };
    let depth = match cx.run.generation.explore_depth {
        1 => String::new(),
        d => format!(" --explore-depth {d}"),
    };
    let target = &cx.run.replay_target;
    format!("covenant run{target}{read_only}{depth} --explore-replay {seed}:{k}")
}

/// Delta debugging over the steps: the fewest steps (as far as ddmin finds) whose replay against
/// the target, each with fresh ids, still breaks `rule`. Returns them and the replays made.
async fn shrink_sequence(
    cx: &mut CaseCx,
    commands: &[(usize, Action)],
    rule: &str,
    k: u32,
    upto: Option<usize>,
) -> (Vec<(usize, Action)>, usize) {
    let mut search = shrink::Ddmin::new(commands.len());
    if let Some(upto) = upto.filter(|n| *n < commands.len()) {
        search.prefer((0..upto).collect());
    }
    let mut replays = 0;
    while let Some(keep) = search.candidate() {
        if replays >= SHRINK_REPLAYS {
            break;
        }
        replays += 1;
        let candidate: Vec<(usize, Action)> = keep.iter().map(|i| commands[*i]).collect();
        let mut part = cx.fork();
        part.keep_all = false;
        let seed = cx.run.generation.seed;
        let mut model = Model::replay(format!("s{k}r{replays}"), seed, k);
        let outcome = step::play_steps(&mut part, &candidate, &mut model).await;
        if matches!(outcome, Err(crate::case::Abort::Skip(_))) {
            break;
        }
        let fails = part.findings.iter().any(|f| f.rule == rule);
        search.answer(fails);
    }
    let kept = search.best().iter().map(|i| commands[*i]).collect();
    (kept, replays)
}
