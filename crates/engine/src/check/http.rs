//! What HTTP itself requires of an answer a client can see, where the spec invokes it ("a
//! partner-facing HTTP/JSON interface", "HTTP bearer authentication"): a 401 names how to
//! authenticate (RFC 9110 §11.6.1, §15.5.2; the finance area's scheme is Bearer, RFC 6750 §3),
//! and a 405 names the methods the resource supports (RFC 9110 §15.5.6). Header names and
//! scheme names are matched case-insensitively, as HTTP has them; nothing here sends a request.

use super::finding::{finding, Checked};
use crate::catalogue::Catalogue;
use crate::client::{Request, Response};
use crate::schema::Area;

/// The rule a 401 without its challenge breaks.
pub const CHALLENGE: &str = "HTTP-401-CHALLENGE";
/// The rule a 405 without its `Allow` breaks.
pub const ALLOW: &str = "HTTP-405-ALLOW";

/// Every value of the header `name` (an answer may repeat a header).
fn values<'r>(response: &'r Response, name: &'r str) -> impl Iterator<Item = &'r str> {
    response
        .headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A 401 carries `WWW-Authenticate` (RFC 9110 §15.5.2: the server "MUST send" one with at
/// least one challenge); in the finance area, whose authentication is HTTP bearer, one of its
/// challenges names the Bearer scheme (RFC 6750 §3), in any case (RFC 9110 §11.1).
pub fn challenge(catalogue: &Catalogue, area: Area, response: &Response, out: &mut Checked) {
    if response.status != 401 {
        return;
    }
    out.judged.push(CHALLENGE);
    let challenges: Vec<&str> = values(response, "www-authenticate").collect();
    let message = if challenges.iter().all(|v| v.trim().is_empty()) {
        "a 401 answer carries no WWW-Authenticate challenge (RFC 9110 §15.5.2: a 401 MUST send one)"
            .to_owned()
    } else if area == Area::Finance && !challenges.iter().any(|v| names_scheme(v, "bearer")) {
        format!(
            "a finance 401 answer challenges with {:?}, which names no Bearer scheme (HTTP bearer authentication: RFC 6750 §3)",
            challenges.join(", ")
        )
    } else {
        return;
    };
    out.findings.push(finding(catalogue, CHALLENGE, message));
}

/// Whether a `WWW-Authenticate` value names the auth scheme `scheme` (lower case) in one of its
/// challenges: a token outside quoted strings, not followed by `=` (which makes it a
/// parameter's name), equal to the scheme whatever its case.
fn names_scheme(value: &str, scheme: &str) -> bool {
    let mut quoted = false;
    let mut escaped = false;
    let mut word = String::new();
    let mut words: Vec<(String, bool)> = Vec::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => {}
            }
            continue;
        }
        if c == '"' {
            quoted = true;
        } else if c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c) {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            let rest: String = std::iter::once(c).chain(chars.clone()).collect();
            let parameter = rest.trim_start().starts_with('=');
            words.push((std::mem::take(&mut word), parameter));
        }
    }
    if !word.is_empty() {
        words.push((word, false));
    }
    words
        .iter()
        .any(|(w, parameter)| !parameter && w.eq_ignore_ascii_case(scheme))
}

/// A 405 carries `Allow` (RFC 9110 §15.5.6: the origin server "MUST generate" it, listing the
/// resource's supported methods); when the request's method is not `listed`, the method the
/// spec states on that path, the list names `listed` (in any case and order).
pub fn allow(
    catalogue: &Catalogue,
    listed: &str,
    request: &Request,
    response: &Response,
    out: &mut Checked,
) {
    if response.status != 405 {
        return;
    }
    out.judged.push(ALLOW);
    let mut present = false;
    let mut methods = Vec::new();
    for value in values(response, "allow") {
        present = true;
        methods.extend(value.split(',').map(str::trim).filter(|m| !m.is_empty()));
    }
    let method = request.method.as_str();
    let message = if !present {
        format!(
            "a 405 answer to {method} {} carries no Allow header (RFC 9110 §15.5.6: a 405 MUST list the supported methods)",
            request.path
        )
    } else if !listed.eq_ignore_ascii_case(method)
        && !methods.iter().any(|m| m.eq_ignore_ascii_case(listed))
    {
        format!(
            "a 405 answer to {method} {} allows {:?}, which leaves out {listed}, the method the spec states on this path",
            request.path,
            methods.join(", ")
        )
    } else {
        return;
    };
    out.findings.push(finding(catalogue, ALLOW, message));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, headers: &[(&str, &str)]) -> Response {
        Response {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            body: Vec::new(),
            json: None,
        }
    }

    fn challenged(area: Area, headers: &[(&str, &str)]) -> Vec<String> {
        let mut out = Checked::default();
        challenge(
            Catalogue::embedded(),
            area,
            &response(401, headers),
            &mut out,
        );
        assert_eq!(out.judged, [CHALLENGE]);
        out.findings.into_iter().map(|f| f.message).collect()
    }

    #[test]
    fn a_401_challenge_naming_bearer_in_any_case_and_with_parameters_passes() {
        for value in [
            "Bearer",
            "bearer realm=\"finops\"",
            r#"Bearer realm="x", error="invalid_token", error_description="expired""#,
            r#"Basic realm="a, Bearer", BEARER"#,
            "Newauth realm=\"apps\", type=1, Bearer",
        ] {
            let found = challenged(Area::Finance, &[("WWW-Authenticate", value)]);
            assert!(found.is_empty(), "{value}: {found:?}");
        }
        let two = [
            ("www-authenticate", "Basic"),
            ("www-authenticate", "Bearer"),
        ];
        assert!(challenged(Area::Finance, &two).is_empty());
    }

    #[test]
    fn a_401_without_a_challenge_or_without_bearer_in_finance_fails() {
        assert_eq!(challenged(Area::Finance, &[]).len(), 1);
        assert_eq!(challenged(Area::Banking, &[]).len(), 1);
        assert_eq!(
            challenged(Area::Banking, &[("www-authenticate", " ")]).len(),
            1
        );
        for value in [r#"Basic realm="Bearer""#, "Basic bearer=1", "Bearerx"] {
            let found = challenged(Area::Finance, &[("www-authenticate", value)]);
            assert_eq!(found.len(), 1, "{value}");
        }
        // The banking area's scheme is not stated: any challenge keeps HTTP.
        assert!(challenged(Area::Banking, &[("www-authenticate", "Basic")]).is_empty());
        let mut out = Checked::default();
        challenge(
            Catalogue::embedded(),
            Area::Finance,
            &response(403, &[]),
            &mut out,
        );
        assert!(out.judged.is_empty());
    }

    fn allowed(listed: &str, method: &str, headers: &[(&str, &str)]) -> Vec<String> {
        let mut out = Checked::default();
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
        let request = Request::new(method, "/finops/v1/receivables");
        let answer = response(405, headers);
        allow(Catalogue::embedded(), listed, &request, &answer, &mut out);
        assert_eq!(out.judged, [ALLOW]);
        out.findings.into_iter().map(|f| f.message).collect()
    }

    #[test]
    fn a_405_allow_listing_the_stated_method_in_any_case_and_order_passes() {
        for value in ["POST", "post", "GET, HEAD,Post", "OPTIONS , POST"] {
            let found = allowed("POST", "GET", &[("Allow", value)]);
            assert!(found.is_empty(), "{value}: {found:?}");
        }
        let split = [("allow", "OPTIONS"), ("allow", "POST")];
        assert!(allowed("POST", "GET", &split).is_empty());
        // A 405 to the stated method itself only needs the header.
        assert!(allowed("POST", "POST", &[("allow", "")]).is_empty());
        assert!(allowed("GET", "PUT", &[("allow", "GET")]).is_empty());
    }

    #[test]
    fn a_405_without_allow_or_without_the_stated_method_fails() {
        assert_eq!(allowed("POST", "GET", &[]).len(), 1);
        assert_eq!(allowed("GET", "PUT", &[]).len(), 1);
        for value in ["GET", "", "POSTS, PATCH"] {
            let found = allowed("POST", "GET", &[("allow", value)]);
            assert_eq!(found.len(), 1, "{value}");
        }
    }
}
