//! Sequences drawn from the seed: a bag of commands the post-conditions need (enough creates
//! for ids to interleave, enough VAT IDs for one to be read after others, enough writes for a
//! tenancy breach that comes with volume), random commands beside them, shuffled, after a first
//! page whose token the tail uses again with other query parameters; then the closing steps
//! that judge the state the sequence built: ids taken again, freed by a refusal or taken only
//! in the other organization, reads of both organizations' events, the smallest and largest
//! pages, walks back and forth, parameters an operation does not state, and a reference to
//! what the sequence created. `--explore-depth` draws more random commands, more writes and
//! deeper walks.
//!
//! The same seed and sequence number give the same commands, whatever the target answers: what
//! a command acts on follows from the model when it runs, never from the draw.

use super::{Action, Org};
use proptest::prelude::Rng;

/// Requests a sequence sends, roughly (for `--dry-run` and the plan's order).
pub const REQUESTS: usize = 110;

/// The largest page size both lists allow: a drawn read asks for 1 to this many items a page,
/// so that a page skipped or repeated only at some page size is found at any.
const MAX_LIMIT: u32 = 100;

/// Random commands drawn beside the bag, per unit of depth.
const EXTRA: usize = 4;

/// The velocity control slot a refused create names before a valid create takes it, and the
/// slot of the other organization's create of a fresh id: random creates draw neither.
const REFUSED_SLOT: u8 = 6;
const OTHER_FRESH_SLOT: u8 = 7;

/// One command of each kind a sequence may draw: what its case needs of the profile.
pub fn shape(read_only: bool) -> Vec<Action> {
    let reads = [
        Action::ReadEvents {
            org: Org::Other,
            limit: 50,
            desc: false,
        },
        Action::ReadTransactions { limit: 50 },
        Action::CarryToken { nth: 0 },
        Action::IssueToken { limit: 10 },
        Action::TokenWithParams { nth: 0, kind: 0 },
        Action::WalkBack {
            limit: 10,
            depth: 1,
        },
        Action::FirstPagesOfOne,
        Action::ReadTransactionsWith { limit: 50, kind: 0 },
    ];
    let mut all = reads.to_vec();
    if !read_only {
        all.push(Action::DetachTag);
        all.extend(bag(Org::First, 1, 1));
        all.push(Action::ReadVat {
            org: Org::Other,
            nth: 0,
        });
    }
    all
}

/// The writes every sequence holds, in no order yet: those the model's post-conditions need,
/// an unknown property of each JSON type (in a body shape that turns with the sequence), each
/// pair of breaches, and in one sequence of four (the first among them) a large body: a mebibyte
/// each way is the dearest request of a sequence.
fn bag(org: Org, k: u32, depth: u32) -> Vec<Action> {
    let mut bag: Vec<Action> = (0..4)
        .map(|slot| Action::CreateVelocity { org, slot })
        .collect();
    bag.push(Action::CreateVelocity {
        org: Org::Other,
        slot: 0,
    });
    bag.push(Action::CreateVelocity {
        org: Org::Other,
        slot: OTHER_FRESH_SLOT,
    });
    bag.push(Action::RefusedVelocity {
        org,
        slot: REFUSED_SLOT,
    });
    bag.extend([Action::CreateVat; 3]);
    bag.extend([
        Action::CreateQuote,
        Action::InvoiceFromQuote,
        Action::CreditNoteFromInvoice,
        Action::CreateMailbox,
        Action::UpdateComment,
    ]);
    // Volume: writes enough that a breach which comes only with it is met before the reads.
    bag.extend((0..2 * depth).map(|_| Action::CreateQuote));
    // A deeper run's sequences also delete a tag (a default run deletes one tag of the profile,
    // in its delete cases, and no more).
    if depth >= 2 && k % 4 == 2 {
        bag.push(Action::DetachTag);
    }
    for kind in 0..6u8 {
        let shape = ((u32::from(kind) + k) % 3) as u8;
        bag.push(Action::UnknownProperty { shape, kind });
    }
    bag.extend((0..super::BREACHES.len() as u8).map(|kind| Action::TwoBreaches { kind }));
    if k % 4 == 1 {
        bag.push(Action::LargeBody);
    }
    bag
}

/// Sequence `k` of a run seeded with `seed`, at `--explore-depth` `depth`.
pub fn draw(seed: u64, k: u32, read_only: bool, depth: u32) -> Vec<Action> {
    let mut rng = crate::generate::rng_for(seed, &format!("explore-{k}"));
    let mut pick = |n: u32| rng.next_u32() % n;
    let mut body = if read_only {
        Vec::new()
    } else {
        bag(Org::First, k, depth)
    };
    for _ in 0..EXTRA * depth as usize {
        body.push(extra(&mut pick, read_only));
    }
    // Fisher-Yates, with the seeded draw.
    for i in (1..body.len()).rev() {
        let j = pick(i as u32 + 1) as usize;
        body.swap(i, j);
    }
    // A token kept before every write of the sequence, used with other parameters after them.
    let limit = 10 + pick(51) as u8;
    body.insert(0, Action::IssueToken { limit });
    let mut tail = Vec::new();
    let first_slot = body.iter().find_map(|c| match c {
        Action::CreateVelocity {
            org: Org::First,
            slot,
        } => Some(*slot),
        _ => None,
    });
    if let Some(slot) = first_slot {
        // The first id taken, after every other create: refused again.
        tail.push(Action::CreateVelocity {
            org: Org::First,
            slot,
        });
    }
    if !read_only {
        // An id only a refused create named, and one only the first organization took.
        tail.push(Action::CreateVelocity {
            org: Org::First,
            slot: REFUSED_SLOT,
        });
        tail.push(Action::CreateVelocity {
            org: Org::Other,
            slot: 1,
        });
        // Every VAT ID the bag created, read back once another was created after all of them.
        tail.push(Action::CreateVat);
        tail.extend((0..3).map(|nth| Action::ReadVat {
            org: Org::First,
            nth,
        }));
        tail.push(Action::ReadVat {
            org: Org::Other,
            nth: 0,
        });
        tail.push(Action::QuoteWithCreatedVat);
    }
    // Large pages: the events of a whole run are read twice under the first organization, with
    // a read of the other's between (an event in both is a tenancy breach), and the sequence is
    // one chain of requests beside the other cases.
    tail.push(Action::ReadEvents {
        org: Org::First,
        limit: 100,
        desc: false,
    });
    tail.push(Action::ReadEvents {
        org: Org::Other,
        limit: 100,
        desc: false,
    });
    tail.push(Action::ReadEvents {
        org: Org::First,
        limit: 100,
        desc: true,
    });
    tail.push(Action::FirstPagesOfOne);
    tail.push(Action::CarryToken { nth: 0 });
    tail.push(Action::TokenWithParams {
        nth: 0,
        kind: (k % super::OTHER_PARAMS.len() as u32) as u8,
    });
    // A read deep enough at a small page size: nine pages and more.
    tail.push(Action::ReadTransactions { limit: 10 });
    let walk = 1 + pick(2 + depth) as u8;
    tail.push(Action::WalkBack {
        limit: 5 + pick(36) as u8,
        depth: walk,
    });
    tail.push(Action::ReadTransactionsWith {
        limit: 20 + pick(81) as u8,
        kind: (k % super::UNSTATED_PARAMS.len() as u32) as u8,
    });
    body.extend(tail);
    body
}

/// A page size of 1 to [`MAX_LIMIT`] from a draw below it.
fn page_size(drawn: u32) -> u8 {
    u8::try_from(drawn % MAX_LIMIT + 1).expect("at most 100")
}

/// One random command.
fn extra(pick: &mut impl FnMut(u32) -> u32, read_only: bool) -> Action {
    let org = |n: u32| if n == 0 { Org::First } else { Org::Other };
    let kinds = if read_only { 3 } else { 5 };
    match pick(kinds) {
        0 => Action::ReadEvents {
            org: org(pick(2)),
            limit: page_size(pick(MAX_LIMIT)),
            desc: pick(2) == 1,
        },
        1 => Action::ReadTransactions {
            limit: page_size(pick(MAX_LIMIT)),
        },
        2 => Action::CarryToken { nth: pick(3) as u8 },
        3 => Action::ReadVat {
            org: org(pick(2)),
            nth: pick(3) as u8,
        },
        _ => Action::CreateVelocity {
            org: org(pick(3).min(1)),
            slot: pick(6) as u8,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_sequence_and_another_seed_another() {
        assert_eq!(draw(7, 1, false, 1), draw(7, 1, false, 1));
        assert_ne!(draw(7, 1, false, 1), draw(8, 1, false, 1));
        assert_ne!(draw(7, 1, false, 1), draw(7, 2, false, 1));
    }

    #[test]
    fn drawn_reads_ask_for_page_sizes_from_1_to_100() {
        let limits: std::collections::BTreeSet<u8> = (1..200)
            .flat_map(|k| draw(5, k, false, 1))
            .filter_map(|c| match c {
                Action::ReadEvents { limit, .. } | Action::ReadTransactions { limit } => {
                    Some(limit)
                }
                _ => None,
            })
            .collect();
        assert!(limits.iter().all(|l| (1..=100).contains(l)), "{limits:?}");
        assert!(limits.len() > 40, "few page sizes drawn: {limits:?}");
    }

    #[test]
    fn a_read_only_sequence_draws_reads_alone() {
        for k in 1..20 {
            assert!(draw(3, k, true, 1).iter().all(|c| !c.writes()));
        }
    }

    #[test]
    fn every_sequence_takes_an_id_again_after_three_other_creates() {
        let first = |c: &Action| match c {
            Action::CreateVelocity {
                org: Org::First,
                slot,
            } => Some(*slot),
            _ => None,
        };
        for k in 1..20 {
            let seq = draw(11, k, false, 1);
            let creates: Vec<u8> = seq.iter().filter_map(first).collect();
            let again =
                (0..creates.len()).any(|j| (0..j).any(|i| creates[i] == creates[j] && j - i > 3));
            assert!(again, "{seq:?}");
        }
    }

    #[test]
    fn a_deeper_sequence_draws_more_commands_and_every_sequence_ends_with_the_deep_reads() {
        for k in 1..10 {
            let (one, three) = (draw(4, k, false, 1), draw(4, k, false, 3));
            assert!(
                three.len() > one.len() + 8,
                "{} vs {}",
                three.len(),
                one.len()
            );
            for seq in [one, three] {
                assert!(seq.iter().any(|c| matches!(c, Action::WalkBack { .. })));
                assert!(seq
                    .iter()
                    .any(|c| matches!(c, Action::ReadTransactionsWith { .. })));
                let refused = seq
                    .iter()
                    .position(|c| matches!(c, Action::RefusedVelocity { .. }))
                    .expect("a refused create");
                let valid = seq
                    .iter()
                    .rposition(|c| {
                        *c == Action::CreateVelocity {
                            org: Org::First,
                            slot: REFUSED_SLOT,
                        }
                    })
                    .expect("a valid create of its id");
                assert!(refused < valid);
            }
        }
    }
}
