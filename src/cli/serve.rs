//! `covenant serve` and `covenant list faults`: the embedded reference, started on its own for
//! anyone to point covenant (or another tool) at.

use clap::Args;
use covenant::exit::{self, Fatal};
use covenant::reference::{self, FaultSet, ReferenceConfig};
use covenant::terminal::out;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Seed of the fixtures.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Switch on a deliberate fault (repeatable); `covenant list faults` names them.
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Write the target profile for this server to FILE.
    #[arg(long, value_name = "FILE")]
    pub profile_out: Option<PathBuf>,
    /// Delay every answer by N milliseconds, as a target across a network would (at most
    /// 60000): how covenant's run time behaves against a remote target.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub latency_ms: u64,
    /// Let at most REQ_PER_S requests per second through (a token bucket with a burst of 0.2 s
    /// of them) and answer the rest 429 with Retry-After, as a staging gateway would (for tests
    /// of covenant's pacing); between 0.001 and 1000000.
    #[arg(long, value_name = "REQ_PER_S")]
    pub rate_limit: Option<f64>,
}

/// The longest `--latency-ms` accepted: a minute.
const MAX_LATENCY_MS: u64 = 60_000;

/// `covenant serve`: starts the reference and serves until Ctrl-C or SIGTERM.
pub fn serve_command(args: ServeArgs) -> Result<u8, Fatal> {
    let faults = FaultSet::from_names(&args.faults).map_err(|e| Fatal::Usage(e.to_string()))?;
    if args.latency_ms > MAX_LATENCY_MS {
        return Err(Fatal::Usage(format!(
            "--latency-ms {}: at most {MAX_LATENCY_MS}",
            args.latency_ms
        )));
    }
    if let Some(rate) = args.rate_limit {
        covenant::settings::rate("--rate-limit", rate)?;
    }
    let runtime = super::runtime(None)?;
    runtime.block_on(serve(args, faults))
}

async fn serve(args: ServeArgs, faults: FaultSet) -> Result<u8, Fatal> {
    // Listen for the signals before saying anything: a caller may signal as soon as it reads
    // the address.
    let mut signals = covenant::interrupt::Signals::new();
    let config = ReferenceConfig {
        seed: args.seed,
        faults,
        port: args.port,
        latency: std::time::Duration::from_millis(args.latency_ms),
        rate_limit: args.rate_limit,
    };
    let server = reference::start(config)
        .await
        .map_err(|e| Fatal::Startup(format!("cannot listen on 127.0.0.1:{}: {e}", args.port)))?;
    out(&format!(
        "covenant reference listening on {}\n",
        server.base_url()
    ));
    if args.latency_ms > 0 {
        out(&format!(
            "  latency: {} ms added to every answer\n",
            args.latency_ms
        ));
    }
    if let Some(rate) = args.rate_limit {
        out(&format!(
            "  rate limit: {rate} requests per second, the rest answered 429 with Retry-After\n"
        ));
    }
    for fault in faults.iter() {
        out(&format!(
            "  fault on: {} ({})\n",
            fault.name(),
            fault.rule()
        ));
    }
    if let Some(path) = &args.profile_out {
        std::fs::write(path, server.profile().to_toml()).map_err(|e| {
            Fatal::Files(format!(
                "cannot write the profile to {}: {e}",
                path.display()
            ))
        })?;
        out(&format!("profile written to {}\n", path.display()));
    }
    signals.next().await;
    server.shutdown().await;
    Ok(exit::SUCCESS)
}

/// `covenant list faults`: name, rule and description of every fault, then the count.
pub fn list_faults_command() -> Result<u8, Fatal> {
    out(&reference::render_list());
    Ok(exit::SUCCESS)
}
