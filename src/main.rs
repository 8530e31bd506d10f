//! The `covenant` binary: parse the command line, call the library, map the outcome to an exit
//! code (see `covenant::exit`).

/// mimalloc: a run allocates and frees per request on several threads at once, where glibc's
/// malloc spent a fifth of the run in its arena locks and consolidation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    no_transparent_huge_pages();
    covenant::cli::main()
}

/// A run lives for a second or so and touches a few dozen MiB: where the kernel backs memory
/// with transparent huge pages, a first touch zeroes 2 MiB, and page faults took a quarter of a
/// run's time. Turned off for this process only (what `MIMALLOC_ALLOW_THP=0` would do).
fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours; a kernel
    // without it answers EINVAL, which changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
