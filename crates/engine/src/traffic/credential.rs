//! Credentials in a client's headers: which headers carry one, and the secret each holds.

/// The secret a credential header holds: the token after an `authorization` scheme
/// (`Bearer`, `Basic`), else the whole value (a cookie, an API key). Masking it masks the header.
pub fn credential<'a>(name: &str, value: &'a str) -> &'a str {
    let value = value.trim();
    match value.split_once(' ') {
        Some((_, token)) if name.to_ascii_lowercase().ends_with("authorization") => token.trim(),
        _ => value,
    }
}

/// A header that carries a credential: its value is a secret.
pub fn is_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "authorization"
        || name == "proxy-authorization"
        || name == "cookie"
        || name.contains("token")
        || name.contains("api-key")
        || name.contains("apikey")
        || name.contains("secret")
}
