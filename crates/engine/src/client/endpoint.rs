//! The endpoint a request goes to, as the pace and the reports name it: its method and the path
//! template of its operation (`GET /finops/v1/tags/{tag_id}`), or its path without the query
//! when no operation of the spec has that path.

/// The endpoint of `method` on `path` (relative to the base URL, query included or not).
pub(super) fn endpoint(method: &str, path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let template = crate::schema::operations()
        .iter()
        .find(|op| op.method.as_str().eq_ignore_ascii_case(method) && fills(&op.path, path))
        .map_or(path, |op| op.path.as_str());
    format!("{method} {template}")
}

/// Whether `path` is `template` with each `{name}` segment filled by a non-empty value.
fn fills(template: &str, path: &str) -> bool {
    let mut given = path.trim_end_matches('/').split('/');
    let mut stated = template.trim_end_matches('/').split('/');
    loop {
        match (stated.next(), given.next()) {
            (None, None) => return true,
            (Some(t), Some(p)) if t.starts_with('{') => {
                if p.is_empty() {
                    return false;
                }
            }
            (Some(t), Some(p)) if t == p => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_named_by_its_operations_template_or_else_by_its_path() {
        let op = &crate::schema::operations()[0];
        let filled: String = op
            .path
            .split('/')
            .map(|s| if s.starts_with('{') { "x-1" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        let method = op.method.as_str();
        assert_eq!(
            endpoint(method, &format!("{filled}?limit=2")),
            format!("{method} {}", op.path)
        );
        assert_eq!(endpoint("GET", "/nowhere/1?a=b"), "GET /nowhere/1");
        assert_eq!(endpoint("GET", "/"), "GET /");
    }
}
