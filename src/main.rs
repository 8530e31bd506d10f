//! The `covenant` binary: parse the command line, call the engine (the `covenant` library of
//! crates/engine), map the outcome to an exit code (see `covenant::exit`).

/// The command line: flags into settings, commands, exit codes.
mod cli;

/// mimalloc: a run allocates and frees per request on several threads at once, where glibc's
/// malloc spent a fifth of the run in its arena locks and consolidation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    no_transparent_huge_pages();
    purge_arenas_sooner();
    cli::main()
}

/// mimalloc gives freed memory back to the system once it has been free for its purge delay
/// (10 ms), but the memory of its arenas only after ten times that: within a run of a second or
/// so, most freed memory was never given back, and the default run peaked near 57 MiB where
/// arenas purging as soon as pages do peaks near 47, in the same time. A user's
/// `MIMALLOC_ARENA_PURGE_MULT` is left to choose otherwise.
fn purge_arenas_sooner() {
    use std::ffi::{c_int, c_long};
    extern "C" {
        // mimalloc's own API, from the library the `mimalloc` crate links in.
        fn mi_version() -> c_int;
        fn mi_option_set(option: c_int, value: c_long);
    }
    /// `mi_option_arena_purge_mult` of `mi_option_t` in mimalloc 2 and 3 (`mimalloc.h`).
    const ARENA_PURGE_MULT: c_int = 24;
    if std::env::var_os("MIMALLOC_ARENA_PURGE_MULT").is_some() {
        return;
    }
    // SAFETY: both take plain integers and touch no memory of ours; the option is set only in
    // a major version whose option table has it at this place.
    unsafe {
        if matches!(mi_version() / 10_000, 2 | 3) {
            mi_option_set(ARENA_PURGE_MULT, 0);
        }
    }
}

/// mimalloc commits the memory of its arenas as it reserves them on Linux, and reserves its
/// first arena and reads its options in its own constructor, before `main` (where setting the
/// option came too late): a run at `--cases 500` peaked at 51 MiB with it, 48 MiB without, in the
/// same time. So this constructor, ordered before mimalloc's (its priority 101), sets
/// `MIMALLOC_ARENA_EAGER_COMMIT=0` for the process unless the user set it.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array.00100"]
static LAZY_ARENAS: extern "C" fn() = {
    extern "C" fn lazy_arenas() {
        let name = c"MIMALLOC_ARENA_EAGER_COMMIT";
        // SAFETY: runs before any thread of the process exists, with C strings that live for
        // the whole program; `setenv` with overwrite 0 keeps a value the user set.
        unsafe {
            libc::setenv(name.as_ptr(), c"0".as_ptr(), 0);
        }
    }
    lazy_arenas
};

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
