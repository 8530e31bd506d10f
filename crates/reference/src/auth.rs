//! The reading of an `Authorization` header both areas share, so that the finance and the
//! banking gates take a bearer token alike (the scheme in any case) and differ only where a
//! fault makes them.

/// The token of an `Authorization: Bearer <token>` value (the scheme is case-insensitive);
/// "" for any other value.
pub(crate) fn bearer_token(authorization: &str) -> &str {
    match authorization.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
        _ => "",
    }
}
