//! Colours and counted nouns: how every command and report words and paints what it prints.
//!
//! Colours are decided here, once per process ([`set_colour`], from `--color` and the
//! environment's conventions), and every command paints through [`paint`]: no other module
//! asks whether the output is a terminal or reads `NO_COLOR`.

/// `--color`: when the output gets colours (colorchoice's, the choice anstream and clap read).
pub use colorchoice::ColorChoice as ColourChoice;

/// Decides once, for the whole process, whether [`paint`] colours (off until called), and
/// records it as colorchoice's global choice, which anstream and clap's own output follow too.
/// `--color always` and `never` decide alone (a flag given for one command overrides the
/// environment, as both conventions say); with `auto`, anstream decides for stdout: `NO_COLOR`
/// set to anything but the empty string turns colours off (no-color.org); `CLICOLOR_FORCE` set
/// to anything but empty or `0` turns them on, terminal or not (bixense.com/clicolors);
/// `CLICOLOR=0` turns them off; else they follow whether stdout is a terminal whose `TERM`
/// takes colours (`dumb` does not).
pub fn set_colour(choice: ColourChoice) {
    // bixense.com/clicolors: `CLICOLOR_FORCE=0` forces nothing, where anstyle-query takes any
    // value but the empty one. Done once here, at the start, before any other thread runs.
    if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v == "0") {
        std::env::remove_var("CLICOLOR_FORCE");
    }
    let decided = match choice {
        ColourChoice::Auto => anstream::AutoStream::choice(&std::io::stdout()),
        other => other,
    };
    decided.write_global();
}

/// Whether colours are on, as [`set_colour`] decided.
pub fn colours() -> bool {
    matches!(
        ColourChoice::global(),
        ColourChoice::Always | ColourChoice::AlwaysAnsi
    )
}

/// What a painted word says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Held: green.
    Pass,
    /// Warned, skipped, known: yellow.
    Warn,
    /// Failed or errored: bold red.
    Fail,
}

/// `text` in the colour of `tone` when colours are on ([`set_colour`]), else as it is.
pub fn paint(tone: Tone, text: &str) -> String {
    if !colours() || text.is_empty() {
        return text.to_owned();
    }
    let code = match tone {
        Tone::Pass => "32",
        Tone::Warn => "33",
        Tone::Fail => "1;31",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// `1 gap`, `2 gaps`: a count and its noun, as every line and report words it.
pub fn plural(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}
