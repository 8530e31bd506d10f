//! Sequences drawn from the seed: a bag of commands the post-conditions need (enough creates
//! for ids to interleave, enough VAT IDs for one to be read after others), random commands
//! beside them, shuffled, after a first page whose token the tail uses again with other query
//! parameters; then the closing reads that judge the state the sequence built.
//!
//! The same seed and sequence number give the same commands, whatever the target answers: what
//! a command acts on follows from the model when it runs, never from the draw.

use super::{Command, Org};
use proptest::prelude::Rng;

/// Requests a sequence sends, roughly (for `--dry-run` and the plan's order).
pub const REQUESTS: usize = 69;

/// The largest page size both lists allow: a drawn read asks for 1 to this many items a page,
/// so that a page skipped or repeated only at some page size is found at any.
const MAX_LIMIT: u32 = 100;

/// Random commands drawn beside the bag.
const EXTRA: usize = 4;

/// One command of each kind a sequence may draw: what its case needs of the profile.
pub fn shape(read_only: bool) -> Vec<Command> {
    let reads = [
        Command::ReadEvents {
            org: Org::Other,
            limit: 50,
            desc: false,
        },
        Command::ReadTransactions { limit: 50 },
        Command::CarryToken { nth: 0 },
        Command::IssueToken { limit: 10 },
        Command::TokenWithParams { nth: 0, kind: 0 },
    ];
    let mut all = reads.to_vec();
    if !read_only {
        all.extend(bag(Org::First, 1));
        all.push(Command::ReadVat {
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
fn bag(org: Org, k: u32) -> Vec<Command> {
    let mut bag: Vec<Command> = (0..4)
        .map(|slot| Command::CreateVelocity { org, slot })
        .collect();
    bag.push(Command::CreateVelocity {
        org: Org::Other,
        slot: 0,
    });
    bag.extend([Command::CreateVat; 3]);
    bag.extend([
        Command::CreateQuote,
        Command::InvoiceFromQuote,
        Command::CreditNoteFromInvoice,
        Command::CreateMailbox,
        Command::UpdateComment,
    ]);
    for kind in 0..6u8 {
        let shape = ((u32::from(kind) + k) % 3) as u8;
        bag.push(Command::UnknownProperty { shape, kind });
    }
    bag.extend((0..super::BREACHES.len() as u8).map(|kind| Command::TwoBreaches { kind }));
    if k % 4 == 1 {
        bag.push(Command::LargeBody);
    }
    bag
}

/// Sequence `k` of a run seeded with `seed`.
pub fn draw(seed: u64, k: u32, read_only: bool) -> Vec<Command> {
    let mut rng = crate::generate::rng_for(seed, &format!("explore-{k}"));
    let mut pick = |n: u32| rng.next_u32() % n;
    let mut body = if read_only {
        Vec::new()
    } else {
        bag(Org::First, k)
    };
    for _ in 0..EXTRA {
        body.push(extra(&mut pick, read_only));
    }
    // Fisher-Yates, with the seeded draw.
    for i in (1..body.len()).rev() {
        let j = pick(i as u32 + 1) as usize;
        body.swap(i, j);
    }
    // A token kept before every write of the sequence, used with other parameters after them.
    let limit = 10 + pick(51) as u8;
    body.insert(0, Command::IssueToken { limit });
    let mut tail = Vec::new();
    let first_slot = body.iter().find_map(|c| match c {
        Command::CreateVelocity {
            org: Org::First,
            slot,
        } => Some(*slot),
        _ => None,
    });
    if let Some(slot) = first_slot {
        // The first id taken, after every other create: refused again.
        tail.push(Command::CreateVelocity {
            org: Org::First,
            slot,
        });
    }
    if !read_only {
        tail.push(Command::ReadVat {
            org: Org::First,
            nth: 0,
        });
        tail.push(Command::ReadVat {
            org: Org::Other,
            nth: 0,
        });
    }
    // Large pages: the events of a whole run are read twice, and the sequence is one chain of
    // requests beside the other cases.
    tail.push(Command::ReadEvents {
        org: Org::First,
        limit: 100,
        desc: false,
    });
    tail.push(Command::ReadEvents {
        org: Org::First,
        limit: 100,
        desc: true,
    });
    tail.push(Command::CarryToken { nth: 0 });
    tail.push(Command::TokenWithParams {
        nth: 0,
        kind: (k % super::OTHER_PARAMS.len() as u32) as u8,
    });
    // A read deep enough at a small page size: nine pages and more.
    tail.push(Command::ReadTransactions { limit: 10 });
    body.extend(tail);
    body
}

/// A page size of 1 to [`MAX_LIMIT`] from a draw below it.
fn page_size(drawn: u32) -> u8 {
    u8::try_from(drawn % MAX_LIMIT + 1).expect("at most 100")
}

/// One random command.
fn extra(pick: &mut impl FnMut(u32) -> u32, read_only: bool) -> Command {
    let org = |n: u32| if n == 0 { Org::First } else { Org::Other };
    let kinds = if read_only { 3 } else { 5 };
    match pick(kinds) {
        0 => Command::ReadEvents {
            org: org(pick(2)),
            limit: page_size(pick(MAX_LIMIT)),
            desc: pick(2) == 1,
        },
        1 => Command::ReadTransactions {
            limit: page_size(pick(MAX_LIMIT)),
        },
        2 => Command::CarryToken { nth: pick(3) as u8 },
        3 => Command::ReadVat {
            org: org(pick(2)),
            nth: pick(3) as u8,
        },
        _ => Command::CreateVelocity {
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
        assert_eq!(draw(7, 1, false), draw(7, 1, false));
        assert_ne!(draw(7, 1, false), draw(8, 1, false));
        assert_ne!(draw(7, 1, false), draw(7, 2, false));
    }

    #[test]
    fn drawn_reads_ask_for_page_sizes_from_1_to_100() {
        let limits: std::collections::BTreeSet<u8> = (1..200)
            .flat_map(|k| draw(5, k, false))
            .filter_map(|c| match c {
                Command::ReadEvents { limit, .. } | Command::ReadTransactions { limit } => {
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
            assert!(draw(3, k, true).iter().all(|c| !c.writes()));
        }
    }

    #[test]
    fn every_sequence_takes_an_id_again_after_three_other_creates() {
        for k in 1..20 {
            let seq = draw(11, k, false);
            let last = seq
                .iter()
                .rposition(|c| {
                    matches!(
                        c,
                        Command::CreateVelocity {
                            org: Org::First,
                            ..
                        }
                    )
                })
                .expect("a create");
            let Command::CreateVelocity { slot, .. } = seq[last] else {
                unreachable!()
            };
            let first = seq
                .iter()
                .position(|c| {
                    *c == Command::CreateVelocity {
                        org: Org::First,
                        slot,
                    }
                })
                .expect("taken before");
            let between = seq[first + 1..last]
                .iter()
                .filter(|c| {
                    matches!(
                        c,
                        Command::CreateVelocity {
                            org: Org::First,
                            ..
                        }
                    )
                })
                .count();
            assert!(between >= 3, "{seq:?}");
        }
    }
}
