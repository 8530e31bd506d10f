//! Speed of the generation engine: valid and invalid payloads drawn and validated per second
//! over the real request-body schemas. A measurement, never a test: run with
//! `cargo bench --bench generate`.

use covenant_contract::schema::Registry;
use covenant_generate::{rng_for, sample, Engine, GenOptions};
use std::time::Instant;

const PAYLOADS: usize = 10_000;
const STEMS: &[&str] = &[
    "receivable-create",
    "vat-id-create",
    "comment-update",
    "mailbox-domain-create",
    "velocity-control-create",
];

fn main() {
    let engine = Engine::new(Registry::embedded(), GenOptions::default());
    let per_stem = PAYLOADS / STEMS.len();
    for (what, invalid) in [("valid", false), ("invalid", true)] {
        let started = Instant::now();
        let mut drawn = 0usize;
        for stem in STEMS {
            let mut rng = rng_for(1, stem);
            drawn += if invalid {
                let strategy = engine.invalid(stem).expect("embedded schemas compile");
                sample(&strategy, &mut rng, per_stem).len()
            } else {
                let strategy = engine.valid(stem).expect("embedded schemas compile");
                sample(&strategy, &mut rng, per_stem).len()
            };
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{what}: {drawn} payloads generated and validated in {seconds:.3} s ({:.0} payloads/s)",
            drawn as f64 / seconds
        );
    }
}
