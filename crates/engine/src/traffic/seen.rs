//! What a judge saw, in counts: the exchanges judged, and those not judged by why.

/// The exchanges a judge saw, each counted once: judged, or not and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seen {
    pub judged: u64,
    pub unanswered: u64,
    pub unlisted: u64,
    pub elsewhere: u64,
    pub unjudged: u64,
    /// Of those judged, answers judged on their status alone: the file holds no body.
    pub bodiless: u64,
}

impl Seen {
    pub fn total(&self) -> u64 {
        self.judged + self.unanswered + self.unlisted + self.elsewhere + self.unjudged
    }

    /// The exchanges not judged, by why, in words (none where every exchange was judged).
    pub fn not_judged(&self) -> Vec<String> {
        [
            (self.unanswered, "got no answer"),
            (self.elsewhere, "went to another origin"),
            (
                self.unlisted,
                "went to paths the spec does not list (another API)",
            ),
            (self.unjudged, "passed while the judge was too far behind"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect()
    }

    /// The one line the commands print before the summary.
    pub fn line(&self) -> String {
        let mut line = format!("{} exchange(s) judged", self.judged);
        if self.bodiless > 0 {
            line.push_str(&format!(
                " ({} on their status alone: the file holds no body)",
                self.bodiless
            ));
        }
        let not = self.not_judged();
        if !not.is_empty() {
            line.push_str(&format!("; not judged: {}", not.join(", ")));
        }
        line
    }
}
