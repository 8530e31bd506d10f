//! The embedded reference implementation of the API, with deliberate faults.
//! (Being built in issue 4.)

use crate::cli::ServeArgs;
use crate::exit::Fatal;

/// `covenant serve`.
pub fn command(_args: ServeArgs) -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant serve` is not built yet"))
}

/// `covenant list faults`.
pub fn list_faults_command() -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant list faults` is not built yet"))
}

// Temporary stand-ins until the reference lands (issue 4).
pub struct FaultSet;
impl FaultSet {
    pub fn from_names(_n: &[String]) -> Result<FaultSet, std::io::Error> {
        Ok(FaultSet)
    }
}
pub struct ReferenceConfig {
    pub seed: u64,
    pub faults: FaultSet,
    pub port: u16,
}
pub struct RunningReference {
    profile: crate::profile::Profile,
}
impl RunningReference {
    pub fn profile(&self) -> &crate::profile::Profile {
        &self.profile
    }
    pub fn base_url(&self) -> String {
        String::new()
    }
    pub async fn shutdown(self) {}
}
pub async fn start(_c: ReferenceConfig) -> std::io::Result<RunningReference> {
    Err(std::io::Error::other("the reference is not built yet"))
}
