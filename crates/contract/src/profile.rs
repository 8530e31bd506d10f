//! The target profile: where the target is, how to authenticate, and which fixtures it holds.
//!
//! A profile is TOML (see `cases/profile.example.toml`). Parsing is strict: an unknown key is an
//! error naming the key, because a misspelt fixture would otherwise silently skip cases.
//! Secrets (tokens, client secrets) may come from environment variables so that they never sit
//! in files, and they never appear in `Debug` output or in a report: reports use
//! [`Profile::redacted`].

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::schema::DEFAULT_FINOPS_VERSION;

mod fixture;
pub use fixture::{Fixture, FixtureRow, FIXTURES};

/// A secret value: shown as `***` in `Debug` and in redacted profiles.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }
    /// The value itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A secret as a replayable curl names it: the shell variable to export, and the profile key
/// whose value it must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretVar {
    pub key: &'static str,
    pub var: String,
}

impl SecretVar {
    /// Each secret's profile key and the variable a curl names where the profile gave the value
    /// itself (not a `*_env`): finance token, banking token (given, or fetched with
    /// `[banking.oauth]`), the banking token without the scope, the OAuth client secret.
    pub const DEFAULTS: [(&'static str, &'static str); 4] = [
        ("finops.token", "COVENANT_FINOPS_TOKEN"),
        ("banking.token", "COVENANT_BANKING_TOKEN"),
        (
            "banking.token_without_scope",
            "COVENANT_BANKING_TOKEN_WITHOUT_SCOPE",
        ),
        (
            "banking.oauth.client_secret",
            "COVENANT_BANKING_CLIENT_SECRET",
        ),
    ];
}

/// The mask secrets are replaced with in anything written out.
pub const REDACTED: &str = "***";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The implementation's name, shown in every report and as its column in `covenant
    /// matrix` (else the target's host and port).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Base URL of the target; `--target` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Currency used in generated bodies (default EUR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// Directories of case files run beside the suite (as `--case-dir`), relative to the
    /// profile's own directory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finops: Option<FinopsProfile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banking: Option<BankingProfile>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinopsProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_organization_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterpart_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_user_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vat_rate_id: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comment_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deletable_tag_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deletable_bank_accounts: Vec<DeletableBankAccount>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoice_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeletableBankAccount {
    pub counterpart_id: String,
    pub bank_account_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BankingProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    /// Client-credentials flow: the token is fetched before the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthProfile>,
    /// A valid token that lacks `authorization_control:write:org` (the 403 case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_without_scope: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_without_scope_env: Option<String>,
    /// The organization header's name, which the spec does not give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org_header: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization_id: Option<String>,
    /// A second organization the banking token may name in the organization header (or not),
    /// for the banking tenant-isolation cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_organization_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_card_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_account_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_bank_account_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthProfile {
    pub token_url: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// A profile that cannot be used. Each message names the file, key or variable to fix.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot read profile {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("profile {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("profile {path}: `{key}` names environment variable {var}, which is not set")]
    MissingEnv {
        path: PathBuf,
        key: String,
        var: String,
    },
    #[error(
        "profile {path}: `{key}` names environment variable {var}, which is empty; set it to the \
         secret (an empty credential would only be refused)"
    )]
    EmptyEnv {
        path: PathBuf,
        key: String,
        var: String,
    },
    #[error("profile {path}: `{key}` is empty; give the secret, or leave the key out")]
    EmptySecret { path: PathBuf, key: String },
    #[error("profile {path}: `{key}` = {value:?} is not {expected}")]
    BadValue {
        path: PathBuf,
        key: String,
        value: String,
        expected: String,
    },
    #[error(
        "profile {path}: `{key}` is the same token as `{other}`; give a valid token that lacks \
         the scope authorization_control:write:org, or leave `{key}` out (the case that needs it \
         is then skipped)"
    )]
    SameToken {
        path: PathBuf,
        key: String,
        other: String,
    },
    #[error("profile {path}: `{key}` and `{other}` are both set; give one")]
    Conflict {
        path: PathBuf,
        key: String,
        other: String,
    },
}

impl Profile {
    /// Reads, parses and checks a profile file, resolving `*_env` secrets.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        Profile::parse(&read(path)?, path)
    }

    /// Reads, parses and checks a profile for a run that sends nothing (`--dry-run`, `--list`):
    /// a `*_env` variable that is not set stands for a secret that a real run would have, so the
    /// plan is the same, and no secret is needed to see it.
    pub fn load_for_plan(path: &Path) -> Result<Profile, ProfileError> {
        let lookup = |var: &str| std::env::var(var).ok().or_else(|| Some(format!("${var}")));
        Profile::parse_with(&read(path)?, path, &lookup)
    }

    /// Parses a profile's text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &Path) -> Result<Profile, ProfileError> {
        Profile::parse_with(text, origin, &|var| std::env::var(var).ok())
    }

    /// Parses a profile's text, reading `*_env` variables through `lookup`.
    fn parse_with(
        text: &str,
        origin: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Profile, ProfileError> {
        let mut profile: Profile = toml::from_str(text).map_err(|e| ProfileError::Parse {
            path: origin.to_owned(),
            message: e.message().to_owned() + &span_hint(text, e.span()),
        })?;
        profile.resolve_env(origin, lookup)?;
        profile.check(origin)?;
        let here = origin.parent().unwrap_or(Path::new(""));
        for dir in &mut profile.cases {
            *dir = here.join(&*dir);
        }
        Ok(profile)
    }

    /// Moves `*_env` secrets into their values, reading variables through `lookup`.
    pub fn resolve_env(
        &mut self,
        origin: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), ProfileError> {
        let resolve = |slot: &mut Option<Secret>, env: &Option<String>, key: &str, name: &str| {
            let Some(var) = env else { return Ok(()) };
            if slot.is_some() {
                return Err(ProfileError::Conflict {
                    path: origin.to_owned(),
                    key: key.to_owned(),
                    other: name.to_owned(),
                });
            }
            match lookup(var) {
                Some(value) if value.is_empty() => Err(ProfileError::EmptyEnv {
                    path: origin.to_owned(),
                    key: key.to_owned(),
                    var: var.clone(),
                }),
                Some(value) => {
                    *slot = Some(Secret::new(value));
                    Ok(())
                }
                None => Err(ProfileError::MissingEnv {
                    path: origin.to_owned(),
                    key: key.to_owned(),
                    var: var.clone(),
                }),
            }
        };
        if let Some(f) = self.finops.as_mut() {
            resolve(
                &mut f.token,
                &f.token_env,
                "finops.token_env",
                "finops.token",
            )?;
        }
        if let Some(b) = self.banking.as_mut() {
            resolve(
                &mut b.token,
                &b.token_env,
                "banking.token_env",
                "banking.token",
            )?;
            resolve(
                &mut b.token_without_scope,
                &b.token_without_scope_env,
                "banking.token_without_scope_env",
                "banking.token_without_scope",
            )?;
            if let Some(o) = b.oauth.as_mut() {
                resolve(
                    &mut o.client_secret,
                    &o.client_secret_env,
                    "banking.oauth.client_secret_env",
                    "banking.oauth.client_secret",
                )?;
            }
        }
        Ok(())
    }

    /// Every secret given is non-empty: an empty token is a mistake, never a credential.
    fn check_secrets(&self, origin: &Path) -> Result<(), ProfileError> {
        let f = self.finops.as_ref();
        let b = self.banking.as_ref();
        let secrets = [
            ("finops.token", f.and_then(|f| f.token.as_ref())),
            ("banking.token", b.and_then(|b| b.token.as_ref())),
            (
                "banking.token_without_scope",
                b.and_then(|b| b.token_without_scope.as_ref()),
            ),
            (
                "banking.oauth.client_secret",
                b.and_then(|b| b.oauth.as_ref())
                    .and_then(|o| o.client_secret.as_ref()),
            ),
        ];
        match secrets
            .iter()
            .find(|(_, secret)| secret.is_some_and(|s| s.expose().is_empty()))
        {
            Some((key, _)) => Err(ProfileError::EmptySecret {
                path: origin.to_owned(),
                key: (*key).to_owned(),
            }),
            None => Ok(()),
        }
    }

    fn check(&self, origin: &Path) -> Result<(), ProfileError> {
        self.check_secrets(origin)?;
        if let Some(b) = &self.banking {
            if b.token.is_some() && b.token == b.token_without_scope {
                return Err(ProfileError::SameToken {
                    path: origin.to_owned(),
                    key: "banking.token_without_scope".into(),
                    other: "banking.token".into(),
                });
            }
        }
        let bad = |key: &str, value: &str, expected: &str| ProfileError::BadValue {
            path: origin.to_owned(),
            key: key.to_owned(),
            value: value.to_owned(),
            expected: expected.to_owned(),
        };
        if let Some(url) = &self.base_url {
            check_base_url(url).map_err(|why| bad("base_url", url, why))?;
        }
        if let Some(version) = self.finops.as_ref().and_then(|f| f.version.as_ref()) {
            if !is_iso_date(version) {
                return Err(bad("finops.version", version, "a date (YYYY-MM-DD)"));
            }
        }
        if let Some(name) = self.banking.as_ref().and_then(|b| b.org_header.as_ref()) {
            if !is_header_name(name) {
                return Err(bad("banking.org_header", name, "an HTTP header name"));
            }
        }
        if let Some(o) = self.banking.as_ref().and_then(|b| b.oauth.as_ref()) {
            check_base_url(&o.token_url)
                .map_err(|why| bad("banking.oauth.token_url", &o.token_url, why))?;
        }
        Ok(())
    }

    /// Every identifier the profile gives, with its key (`finops.comment_ids[1]`). The spec
    /// states that identifiers are UUIDs unless stated otherwise, and states no other for these.
    pub fn ids(&self) -> Vec<(String, &str)> {
        let rows = FIXTURES.iter().filter(|row| row.id);
        // Single ids first, then the lists.
        let (lists, singles): (Vec<&FixtureRow>, Vec<&FixtureRow>) = rows.partition(|r| r.list);
        let mut ids: Vec<(String, &str)> = Vec::new();
        for row in singles.into_iter().chain(lists) {
            if row.fixture != Fixture::DeletableBankAccount {
                ids.extend(row.fixture.labelled(self));
                continue;
            }
            // Each entry names its counterpart too.
            let accounts = self.finops.iter().flat_map(|f| &f.deletable_bank_accounts);
            for (i, a) in accounts.enumerate() {
                let key = format!("{}[{i}]", row.key);
                ids.push((format!("{key}.counterpart_id"), &a.counterpart_id));
                ids.push((format!("{key}.bank_account_id"), &a.bank_account_id));
            }
        }
        ids
    }

    /// The finance version header value.
    pub fn finops_version(&self) -> &str {
        self.finops
            .as_ref()
            .and_then(|f| f.version.as_deref())
            .unwrap_or(DEFAULT_FINOPS_VERSION)
    }

    /// The profile with every secret replaced by `***`, fit for reports and logs.
    pub fn redacted(&self) -> Profile {
        let mut copy = self.clone();
        let mask = |s: &mut Option<Secret>| {
            if s.is_some() {
                *s = Some(Secret::new(REDACTED));
            }
        };
        if let Some(f) = copy.finops.as_mut() {
            mask(&mut f.token);
        }
        if let Some(b) = copy.banking.as_mut() {
            mask(&mut b.token);
            mask(&mut b.token_without_scope);
            if let Some(o) = b.oauth.as_mut() {
                mask(&mut o.client_secret);
            }
        }
        copy
    }

    /// Every secret value the profile holds, for redaction of anything written out.
    pub fn secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(f) = &self.finops {
            out.extend(f.token.iter().map(|s| s.0.clone()));
        }
        if let Some(b) = &self.banking {
            out.extend(b.token.iter().map(|s| s.0.clone()));
            out.extend(b.token_without_scope.iter().map(|s| s.0.clone()));
            if let Some(o) = &b.oauth {
                out.extend(o.client_secret.iter().map(|s| s.0.clone()));
            }
        }
        out.retain(|s| !s.is_empty());
        out
    }

    /// Each secret of the profile as a replayable curl names it, with its value where the
    /// profile holds one: curls never hold a secret, but a shell variable the user exports.
    /// The variable is the key's `*_env` where the profile took the secret from one, else
    /// covenant's own name for it ([`SecretVar::DEFAULTS`]).
    pub fn secret_vars(&self) -> Vec<(SecretVar, Option<&Secret>)> {
        let f = self.finops.as_ref();
        let b = self.banking.as_ref();
        let o = b.and_then(|b| b.oauth.as_ref());
        let slots = [
            (
                f.and_then(|f| f.token_env.as_ref()),
                f.and_then(|f| f.token.as_ref()),
            ),
            (
                b.and_then(|b| b.token_env.as_ref()),
                b.and_then(|b| b.token.as_ref()),
            ),
            (
                b.and_then(|b| b.token_without_scope_env.as_ref()),
                b.and_then(|b| b.token_without_scope.as_ref()),
            ),
            (
                o.and_then(|o| o.client_secret_env.as_ref()),
                o.and_then(|o| o.client_secret.as_ref()),
            ),
        ];
        SecretVar::DEFAULTS
            .iter()
            .zip(slots)
            .map(|(&(key, default), (env, value))| {
                let var = env.cloned().unwrap_or_else(|| default.to_owned());
                (SecretVar { key, var }, value)
            })
            .collect()
    }

    /// The profile as TOML, secrets included (for `covenant serve --profile-out`).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a profile always serialises")
    }
}

fn span_hint(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    let Some(span) = span else {
        return String::new();
    };
    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
    format!(" (line {line})")
}

fn check_base_url(value: &str) -> Result<(), &'static str> {
    match url::Url::parse(value) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => Ok(()),
        Ok(_) => Err("an http or https URL"),
        Err(_) => Err("a URL"),
    }
}

/// `YYYY-MM-DD` with a real calendar date.
/// Whether `value` is a UUID as JSON Schema's `uuid` format writes one: 8-4-4-4-12 hex digits.
pub fn is_uuid(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

pub fn is_iso_date(value: &str) -> bool {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    value.len() == 10 && time::Date::parse(value, &format).is_ok()
}

fn is_header_name(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A profile file's text.
fn read(path: &Path) -> Result<String, ProfileError> {
    std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Profile, ProfileError> {
        Profile::parse(text, Path::new("p.toml"))
    }

    #[test]
    fn unknown_key_is_named_in_the_error() {
        let err = parse("base_url = \"http://x\"\n[finops]\ntokn = \"a\"\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("tokn"), "{msg}");
        assert!(msg.contains("p.toml"), "{msg}");
    }

    #[test]
    fn secrets_are_masked_in_debug_and_redacted_copies() {
        let p = parse("[finops]\ntoken = \"s3cret-value\"\n").unwrap();
        assert!(!format!("{p:?}").contains("s3cret-value"));
        assert!(!p.redacted().to_toml().contains("s3cret-value"));
        assert!(p.to_toml().contains("s3cret-value"));
        assert_eq!(p.secrets(), vec!["s3cret-value".to_owned()]);
    }

    #[test]
    fn env_secret_is_resolved_and_missing_variable_is_named() {
        let mut p: Profile = toml::from_str("[finops]\ntoken_env = \"COV_T\"\n").unwrap();
        p.resolve_env(Path::new("p.toml"), &|v| {
            (v == "COV_T").then(|| "tok".to_owned())
        })
        .unwrap();
        assert_eq!(p.finops.unwrap().token.unwrap().expose(), "tok");
        let mut q: Profile = toml::from_str("[banking]\ntoken_env = \"NOPE\"\n").unwrap();
        let err = q.resolve_env(Path::new("p.toml"), &|_| None).unwrap_err();
        assert!(err.to_string().contains("NOPE"));
    }

    #[test]
    fn the_commented_example_profile_parses() {
        let text = include_str!("../../../cases/profile.example.toml");
        let mut p: Profile = toml::from_str(text).expect("example parses");
        p.resolve_env(Path::new("example"), &|v| Some(format!("value-of-{v}")))
            .unwrap();
        assert_eq!(p.finops.as_ref().unwrap().deletable_bank_accounts.len(), 1);
        assert_eq!(
            p.banking.unwrap().org_header.as_deref(),
            Some("x-partner-organization-id")
        );
    }

    #[test]
    fn ids_are_listed_by_key_and_uuids_told_from_other_strings() {
        let profile = parse(
            "[finops]\ncounterpart_id = \"cp-1\"\ncomment_ids = [\"a\", \"b\"]\n\
             [[finops.deletable_bank_accounts]]\ncounterpart_id = \"c\"\nbank_account_id = \"d\"\n\
             [banking]\ncard_id = \"e\"\n",
        )
        .expect("a valid profile");
        let keys: Vec<String> = profile.ids().into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "finops.counterpart_id",
                "banking.card_id",
                "finops.comment_ids[0]",
                "finops.comment_ids[1]",
                "finops.deletable_bank_accounts[0].counterpart_id",
                "finops.deletable_bank_accounts[0].bank_account_id",
            ]
        );
        assert!(is_uuid("6f9619ff-8b86-4d11-b42d-00c04fc964ff"));
        assert!(is_uuid("6F9619FF-8B86-4D11-B42D-00C04FC964FF"));
        for not in [
            "x6f9619ff-8b86-4d11-b42d-00c04fc964ff",
            "6f9619ff8b864d11b42d00c04fc964ff",
            "6f9619ff-8b86-4d11-b42d-00c04fc964fg",
            "",
        ] {
            assert!(!is_uuid(not), "{not}");
        }
    }

    #[test]
    fn malformed_version_and_url_are_refused() {
        assert!(parse("[finops]\nversion = \"2026-13-40\"\n").is_err());
        assert!(parse("base_url = \"ftp://x\"\n").is_err());
        assert!(parse("[finops]\nversion = \"2026-09-24\"\n").is_ok());
    }

    #[test]
    fn empty_secrets_are_errors_naming_the_key() {
        let empty = Profile::parse("[finops]\ntoken = \"\"\n", Path::new("p.toml"));
        assert!(
            matches!(&empty, Err(ProfileError::EmptySecret { key, .. }) if key == "finops.token"),
            "{empty:?}"
        );
        let mut p: Profile = toml::from_str("[banking]\ntoken_env = \"COV_EMPTY\"\n").unwrap();
        let e = p
            .resolve_env(Path::new("p.toml"), &|_| Some(String::new()))
            .unwrap_err();
        assert!(e.to_string().contains("COV_EMPTY, which is empty"), "{e}");
    }

    #[test]
    fn a_token_without_scope_equal_to_the_token_is_an_error_naming_both_keys() {
        let same = Profile::parse(
            "[banking]\ntoken = \"t1\"\ntoken_without_scope = \"t1\"\n",
            Path::new("p.toml"),
        );
        let e = same.unwrap_err().to_string();
        assert!(
            e.contains("`banking.token_without_scope` is the same token as `banking.token`"),
            "{e}"
        );
        assert!(Profile::parse(
            "[banking]\ntoken = \"t1\"\ntoken_without_scope = \"t2\"\n",
            Path::new("p.toml")
        )
        .is_ok());
    }

    #[test]
    fn a_curl_names_each_secret_by_its_env_variable_or_covenants_own_name() {
        let p = Profile::parse(
            "[finops]\ntoken = \"f\"\n[banking]\ntoken_env = \"MY_BANK\"\n",
            Path::new("p.toml"),
        );
        let p = match p {
            Err(ProfileError::MissingEnv { .. }) => {
                let mut p: Profile =
                    toml::from_str("[finops]\ntoken = \"f\"\n[banking]\ntoken_env = \"MY_BANK\"\n")
                        .expect("a profile");
                p.resolve_env(Path::new("p.toml"), &|_| Some("b".into()))
                    .expect("resolved");
                p
            }
            other => other.expect("a profile"),
        };
        let vars: Vec<(String, Option<String>)> = p
            .secret_vars()
            .into_iter()
            .map(|(v, s)| (v.var, s.map(|s| s.expose().to_owned())))
            .collect();
        assert_eq!(vars[0], ("COVENANT_FINOPS_TOKEN".into(), Some("f".into())));
        assert_eq!(vars[1], ("MY_BANK".into(), Some("b".into())));
        assert_eq!(
            vars[2],
            ("COVENANT_BANKING_TOKEN_WITHOUT_SCOPE".into(), None)
        );
    }
}
